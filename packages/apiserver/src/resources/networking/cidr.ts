import { isIP } from 'node:net';

/** A parsed CIDR: the address as a bigint, its bit width and prefix length. */
export interface Cidr {
  bits: 32 | 128;
  address: bigint;
  prefix: number;
}

function ipToBigInt(ip: string): { bits: 32 | 128; value: bigint } | undefined {
  const v = isIP(ip);
  if (v === 4) return { bits: 32, value: ip.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n) };
  if (v !== 6) return undefined;
  let text = ip;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hextets.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = ipToBigInt(v4[1]!)!.value;
    text = `${text.slice(0, -v4[1]!.length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return { bits: 128, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n) };
}

/** Go's net.ParseCIDR as far as validity goes: `<ip>/<prefix>` with a prefix within the family's width. */
export function parseCidr(text: string): Cidr | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const ip = ipToBigInt(m[1]!);
  const prefix = Number(m[2]);
  if (!ip || prefix > ip.bits) return undefined;
  return { bits: ip.bits, address: ip.value, prefix };
}

/** True when `inner` lies inside `outer` with a strictly longer prefix (upstream's ipBlock except rule). */
export function isStrictSubset(outer: Cidr, inner: Cidr): boolean {
  if (outer.bits !== inner.bits || outer.prefix >= inner.prefix) return false;
  const shift = BigInt(outer.bits - outer.prefix);
  return outer.address >> shift === inner.address >> shift;
}
