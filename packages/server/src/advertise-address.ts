import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/**
 * The address this replica advertises as an endpoint of the `kubernetes` Service, as upstream
 * decides it: --advertise-address if given, else --bind-address unless that is unspecified
 * (0.0.0.0 / ::), else the first non-loopback IPv4 address of the host; loopback as the last resort.
 */
export function resolveAdvertiseAddress(
  advertiseAddress: string,
  bindAddress: string,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): string {
  if (advertiseAddress) return advertiseAddress;
  if (bindAddress && bindAddress !== '0.0.0.0' && bindAddress !== '::') return bindAddress;
  for (const name of Object.keys(interfaces).sort()) {
    for (const info of interfaces[name] ?? []) {
      if (info.family === 'IPv4' && !info.internal) return info.address;
    }
  }
  return '127.0.0.1';
}
