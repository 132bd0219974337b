/** An IPv4 CIDR block the cluster IPs of services come from (--service-cluster-ip-range). */
export interface IPv4Range {
  /** The flag's text, e.g. 10.0.0.0/24, for messages. */
  cidr: string;
  /** The network address as an unsigned 32-bit number. */
  base: number;
  /** Number of addresses in the block (2^(32-prefix)). */
  size: number;
}

/** Parses dotted-quad IPv4 text; undefined when it is not one (leading zeros are refused, as Go's netip). */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

export function formatIPv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** Parses a CIDR such as 10.0.0.0/24; throws with a flag-style message when it is not IPv4 or has host bits. */
export function parseIPv4Range(cidr: string): IPv4Range {
  const m = /^([^/]+)\/([0-9]{1,2})$/.exec(cidr.trim());
  const ip = m ? parseIPv4(m[1]!) : undefined;
  const prefix = m ? Number(m[2]) : NaN;
  if (!m || ip === undefined || prefix > 32) {
    if (cidr.includes(':')) throw new Error(`${cidr}: only IPv4 service ranges are supported (dual-stack is not)`);
    throw new Error(`${cidr}: not an IPv4 CIDR (for example 10.0.0.0/24)`);
  }
  if (cidr.includes(',')) throw new Error(`${cidr}: dual-stack service ranges are not supported`);
  const size = 2 ** (32 - prefix);
  if (ip % size !== 0) throw new Error(`${cidr}: the address has bits set beyond the prefix length`);
  if (prefix > 30) throw new Error(`${cidr}: the range is too small (at most /30)`);
  // Upstream's limit: at most 2^20 addresses.
  if (prefix < 12) throw new Error(`${cidr}: the range is too large (the prefix must be at least /12)`);
  return { cidr, base: ip, size };
}

/**
 * Offsets within the range that can be handed out: the network and broadcast addresses are not
 * (as upstream's allocator for IPv4), so offsets run from 1 to size-2.
 */
export function usableOffsets(range: IPv4Range): { first: number; last: number } {
  return { first: 1, last: range.size - 2 };
}

/** The offset of `ip` in the range, or undefined when it is outside the usable part. */
export function offsetOf(range: IPv4Range, ip: string): number | undefined {
  const n = parseIPv4(ip);
  if (n === undefined) return undefined;
  const off = n - range.base;
  const { first, last } = usableOffsets(range);
  return off >= first && off <= last ? off : undefined;
}

/** The first usable IP: the `kubernetes` Service's cluster IP. */
export function firstIP(range: IPv4Range): string {
  return formatIPv4(range.base + usableOffsets(range).first);
}

/** A node port range such as 30000-32767 (--service-node-port-range). */
export interface PortRange {
  base: number;
  size: number;
  text: string;
}

export function parsePortRange(text: string): PortRange {
  const m = /^([0-9]{1,5})(?:-([0-9]{1,5}))?$/.exec(text.trim());
  const lo = m ? Number(m[1]) : NaN;
  const hi = m ? Number(m[2] ?? m[1]) : NaN;
  if (!m || lo < 1 || hi > 65535 || hi < lo) throw new Error(`${text}: not a port range (for example 30000-32767)`);
  return { base: lo, size: hi - lo + 1, text: `${lo}-${hi}` };
}
