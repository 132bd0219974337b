import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/** Loopback, unspecified and IPv4 link-local addresses: never an address other hosts reach this one on. */
function hostOnly(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '::1' || address.startsWith('127.') || address.startsWith('169.254.');
}

/**
 * The address this replica advertises as an endpoint of the `kubernetes` Service, as upstream
 * decides it (ResolveBindAddress): --advertise-address if given, else --bind-address unless that
 * is unspecified (0.0.0.0 / ::) or loopback, else the first IPv4 address of the host's interfaces
 * that other hosts can reach (not loopback, not link-local). Loopback is the last resort of a
 * host with no network; the `kubernetes` Endpoints then stay empty, as Endpoints refuse it.
 */
export function resolveAdvertiseAddress(
  advertiseAddress: string,
  bindAddress: string,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): string {
  if (advertiseAddress) return advertiseAddress;
  if (bindAddress && !hostOnly(bindAddress)) return bindAddress;
  for (const name of Object.keys(interfaces).sort()) {
    for (const info of interfaces[name] ?? []) {
      if (info.family === 'IPv4' && !info.internal && !hostOnly(info.address)) return info.address;
    }
  }
  return '127.0.0.1';
}
