import { isEndpointIP } from '../endpoints/special-ip.js';
import type { EndpointSubset } from '../endpoints/strategy.js';

/** One replica's claim to be an endpoint of the `kubernetes` Service, read from its Lease. */
export interface ReplicaLease {
  name: string;
  address: string;
  port: number;
  /** RFC 3339 (micro) time of the last renewal; missing means never renewed. */
  renewTime?: string;
  leaseDurationSeconds?: number;
}

/** Whether the lease was renewed within its duration before `now`. */
export function leaseIsLive(lease: ReplicaLease, now: Date): boolean {
  if (!lease.renewTime || !lease.leaseDurationSeconds) return false;
  const renewed = Date.parse(lease.renewTime);
  return Number.isFinite(renewed) && renewed + lease.leaseDurationSeconds * 1000 > now.getTime();
}

/**
 * The subsets of the `kubernetes` Endpoints for the live replicas: one subset per secure port
 * (replicas normally share one), addresses sorted and unique, port named https, as upstream's
 * lease endpoint reconciler writes them. Empty when no replica is live. A replica advertising an
 * address Endpoints refuse (loopback, link-local: a host with no network) is left out.
 */
export function kubernetesSubsets(leases: readonly ReplicaLease[], now: Date): EndpointSubset[] {
  const byPort = new Map<number, Set<string>>();
  for (const l of leases) {
    if (!leaseIsLive(l, now) || !isEndpointIP(l.address)) continue;
    let set = byPort.get(l.port);
    if (!set) byPort.set(l.port, (set = new Set()));
    set.add(l.address);
  }
  return [...byPort.entries()]
    .sort(([a], [b]) => a - b)
    .map(([port, addrs]) => ({
      addresses: [...addrs].sort(compareIPs).map((ip) => ({ ip })),
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    }));
}

function compareIPs(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 4; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return a < b ? -1 : a > b ? 1 : 0;
}
