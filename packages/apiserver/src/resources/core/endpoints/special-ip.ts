import { BlockList, isIP } from 'node:net';
import { invalid, type FieldErrorList } from '@cluster/apimachinery';
import { parseIPv4 } from '../services/ip-range.js';

/** Which family a textual IP is (4 or 6), or 0: dotted quads without leading zeros, IPv6 without a zone. */
export function ipFamily(text: string): 0 | 4 | 6 {
  if (parseIPv4(text) !== undefined) return 4;
  if (!text.includes('%') && isIP(text) === 6) return 6;
  return 0;
}

function blockList(entries: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [net, prefix, type] of entries) list.addSubnet(net, prefix, type);
  return list;
}

// Go's net.IP predicates; a BlockList also matches the IPv4-mapped IPv6 forms (::ffff:127.0.0.1), as Go does.
const UNSPECIFIED = blockList([
  ['0.0.0.0', 32, 'ipv4'],
  ['::', 128, 'ipv6'],
]);
const LOOPBACK = blockList([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);
const LINK_LOCAL_UNICAST = blockList([
  ['169.254.0.0', 16, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
]);
// IPv6: every ffX2::/16 (multicast with link-local scope, whatever the flags), as Go's IsLinkLocalMulticast.
const LINK_LOCAL_MULTICAST = blockList([
  ['224.0.0.0', 24, 'ipv4'],
  ...Array.from({ length: 16 }, (_, flags) => [`ff${flags.toString(16)}2::`, 16, 'ipv6'] as const),
]);

/**
 * Upstream's ValidateNonSpecialIP, for the addresses of Endpoints and EndpointSlices: an endpoint
 * must be an address other hosts can reach, so the unspecified address, loopback (127.0.0.0/8,
 * ::1), link-local unicast (169.254.0.0/16, fe80::/10) and link-local multicast (224.0.0.0/24,
 * ff02::/16) are refused, each with upstream's message. Pure.
 */
export function validateNonSpecialIP(ip: string, path: string): FieldErrorList {
  const family = ipFamily(ip);
  if (family === 0) return [invalid(path, ip, 'must be a valid IP address')];
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const errs: FieldErrorList = [];
  if (UNSPECIFIED.check(ip, type)) errs.push(invalid(path, ip, `may not be unspecified (${ip})`));
  if (LOOPBACK.check(ip, type)) errs.push(invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (LINK_LOCAL_UNICAST.check(ip, type)) errs.push(invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (LINK_LOCAL_MULTICAST.check(ip, type)) errs.push(invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errs;
}

/** Whether `ip` may stand in Endpoints: a valid address outside the special ranges above. */
export function isEndpointIP(ip: string): boolean {
  return validateNonSpecialIP(ip, 'ip').length === 0;
}
