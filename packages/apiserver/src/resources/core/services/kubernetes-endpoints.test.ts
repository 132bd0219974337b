import { kubernetesSubsets, leaseIsLive, type ReplicaLease } from './kubernetes-endpoints.js';

const now = new Date('2024-05-01T10:00:00Z');
const lease = (name: string, address: string, port: number, secondsAgo: number, duration = 15): ReplicaLease => ({
  name,
  address,
  port,
  renewTime: new Date(now.getTime() - secondsAgo * 1000).toISOString(),
  leaseDurationSeconds: duration,
});

describe('endpoints of the kubernetes Service from replica leases', () => {
  test.each([
    ['renewed 5 s ago with 15 s', lease('a', '10.0.0.1', 6443, 5), true],
    ['renewed 15 s ago with 15 s', lease('a', '10.0.0.1', 6443, 15), false],
    ['never renewed', { name: 'a', address: '10.0.0.1', port: 6443, leaseDurationSeconds: 15 }, false],
    ['no duration', { name: 'a', address: '10.0.0.1', port: 6443, renewTime: now.toISOString() }, false],
  ])('%s: live=%s', (_name, l, live) => {
    expect(leaseIsLive(l, now)).toBe(live);
  });

  test('live replicas with addresses Endpoints accept only, sorted by address, one subset per port, duplicates merged', () => {
    const subsets = kubernetesSubsets(
      [
        lease('c', '192.168.1.10', 6443, 1),
        lease('a', '192.168.1.9', 6443, 2),
        lease('dead', '192.168.1.8', 6443, 60),
        lease('b', '192.168.1.9', 6443, 3),
        lease('d', '10.0.0.7', 7443, 1),
        lease('loopback', '127.0.0.1', 7443, 1),
        lease('link-local', '169.254.1.1', 6443, 1),
      ],
      now,
    );
    expect(subsets).toEqual([
      { addresses: [{ ip: '192.168.1.9' }, { ip: '192.168.1.10' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.7' }], ports: [{ name: 'https', port: 7443, protocol: 'TCP' }] },
    ]);
  });

  test('no live replica: no subsets', () => {
    expect(kubernetesSubsets([lease('a', '10.0.0.1', 6443, 100)], now)).toEqual([]);
  });
});
