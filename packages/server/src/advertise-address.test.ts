import type { NetworkInterfaceInfo } from 'node:os';
import { resolveAdvertiseAddress } from './advertise-address.js';

const iface = (address: string, internal: boolean, family: 'IPv4' | 'IPv6' = 'IPv4'): NetworkInterfaceInfo =>
  ({ address, internal, family, netmask: '', mac: '', cidr: null }) as NetworkInterfaceInfo;

describe('resolveAdvertiseAddress', () => {
  const host = { lo: [iface('127.0.0.1', true)], eth0: [iface('fe80::1', false, 'IPv6'), iface('192.168.5.20', false)] };
  test.each([
    ['the flag wins', '10.1.1.1', '127.0.0.1', host, '10.1.1.1'],
    ['a specific bind address', '', '10.2.3.4', host, '10.2.3.4'],
    ['a loopback bind address: first non-loopback IPv4, as upstream', '', '127.0.0.1', host, '192.168.5.20'],
    ['link-local interfaces are skipped', '', '0.0.0.0', { eth0: [iface('169.254.3.3', false), iface('10.9.9.9', false)] }, '10.9.9.9'],
    ['0.0.0.0: first non-loopback IPv4', '', '0.0.0.0', host, '192.168.5.20'],
    ['0.0.0.0 on a host with loopback only', '', '0.0.0.0', { lo: [iface('127.0.0.1', true)] }, '127.0.0.1'],
  ])('%s', (_name, flag, bind, interfaces, expected) => {
    expect(resolveAdvertiseAddress(flag, bind, interfaces)).toBe(expected);
  });
});
