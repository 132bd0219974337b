import { startKubernetesServiceReconciler } from '@cluster/apiserver';
import { newEtcdClient } from '@cluster/storage';
import type { Etcd3 } from 'etcd3';
import { resolveAdvertiseAddress } from '../../src/advertise-address.js';
import { useTestServer } from '../support/test-server.js';

// Services through the generic registry with the etcd-backed allocators (issue 20): what is
// handed out, what a failed or refused write leaves behind (nothing), and what a delete frees.
const ts = useTestServer(['--controllers=-namespace', '--service-cluster-ip-range=10.96.0.0/28', '--service-node-port-range=30000-30009']);
let etcd: Etcd3;
beforeAll(() => {
  etcd = newEtcdClient([ts().server.embeddedEtcd!.endpoint]);
});
afterAll(() => etcd?.close());

const IPS = '/registry/ranges/serviceips/';
const PORTS = '/registry/ranges/servicenodeports/';
const SVC = '/api/v1/namespaces/default/services';

async function claimed(prefix: string): Promise<string[]> {
  return (await etcd.getAll().prefix(prefix).keys()).map((k) => k.slice(prefix.length)).sort();
}

const service = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });

async function eventually(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('service cluster IPs and node ports', () => {
  test('the kubernetes Service holds the first IP of the range, and its endpoints name this replica (bound to loopback, it advertises the host address)', async () => {
    await eventually('the kubernetes endpoints', async () => (await ts().request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).status === 200);
    const svc = (await ts().request('GET', `${SVC}/kubernetes`)).json;
    expect(svc.spec).toMatchObject({ clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], type: 'ClusterIP', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: ts().server.port }] });
    const ep = (await ts().request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).json;
    const advertised = resolveAdvertiseAddress('', '127.0.0.1');
    // A host with no network address advertises loopback, which Endpoints refuse: no subsets then.
    const expected = advertised === '127.0.0.1' ? undefined : [{ addresses: [{ ip: advertised }], ports: [{ name: 'https', port: ts().server.port, protocol: 'TCP' }] }];
    expect(ep.subsets).toEqual(expected);
    expect(await claimed(IPS)).toEqual(['10.96.0.1']);
  });

  test('a replica keeps renewing its endpoint lease, so it stays in the endpoints past the lease duration', async () => {
    // A second replica's reconciler on the same store, on a clock of its own.
    let clock = Date.now();
    const problems: string[] = [];
    const other = startKubernetesServiceReconciler({
      registries: ts().server.api.registries,
      apiDomain: 'k8s.io',
      serviceIP: '10.96.0.1',
      advertiseAddress: '10.0.0.2',
      securePort: 7443,
      identity: 'other-replica',
      leaseNamespace: 'cluster-system',
      intervalMs: 3_600_000,
      now: () => new Date(clock),
      log: (message, err) => problems.push(`${message}: ${(err as Error | undefined)?.message}`),
    });
    const leasesPath = '/apis/coordination.k8s.io/v1/namespaces/cluster-system/leases';
    const renewTimes = async () =>
      ((await ts().request('GET', leasesPath)).json.items as { spec: { holderIdentity: string; renewTime: string } }[])
        .filter((l) => l.spec.holderIdentity === 'other-replica')
        .map((l) => l.spec.renewTime);
    const endpointPorts = async () =>
      ((await ts().request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).json.subsets ?? []).flatMap((s: { ports: { port: number }[] }) => s.ports.map((p) => p.port));
    try {
      await other.firstPass;
      const first = await renewTimes();
      expect(first).toHaveLength(1);
      // Three passes, each a lease duration (15 s) after the last: every one renews the same lease.
      for (let pass = 1; pass <= 3; pass++) {
        clock += 16_000;
        await other.reconcileOnce();
        const renewed = await renewTimes();
        expect(renewed).toHaveLength(1);
        expect(Date.parse(renewed[0]!)).toBe(clock);
        expect(await endpointPorts()).toContain(7443);
      }
      expect(problems).toEqual([]);
    } finally {
      await other.stop();
    }
    expect(await renewTimes()).toEqual([]);
    expect(await endpointPorts()).not.toContain(7443);
  });

  test('a ClusterIP service gets a free IP of the range; delete frees it', async () => {
    const res = await ts().request('POST', SVC, { body: service('a', { ports: [{ port: 80 }] }) });
    expect(res.status).toBe(201);
    const ip = res.json.spec.clusterIP as string;
    expect(ip).toMatch(/^10\.96\.0\.([2-9]|1[0-4])$/);
    expect(res.json.spec.clusterIPs).toEqual([ip]);
    expect(await claimed(IPS)).toEqual(['10.96.0.1', ip].sort());
    expect((await ts().request('DELETE', `${SVC}/a`)).status).toBe(200);
    expect(await claimed(IPS)).toEqual(['10.96.0.1']);
  });

  test('a requested IP is honoured once; again, or outside the range, is 422 and nothing is stored or claimed', async () => {
    expect((await ts().request('POST', SVC, { body: service('fixed', { clusterIP: '10.96.0.9', ports: [{ port: 80 }] }) })).status).toBe(201);
    const before = await claimed(IPS);
    const taken = await ts().request('POST', SVC, { body: service('taken', { clusterIP: '10.96.0.9', ports: [{ port: 80 }] }) });
    expect(taken.status).toBe(422);
    expect(taken.json).toMatchObject({ reason: 'Invalid', details: { name: 'taken', kind: 'Service', causes: [{ field: 'spec.clusterIPs', reason: 'FieldValueInvalid' }] } });
    expect(taken.json.message).toContain('failed to allocate IP 10.96.0.9: provided IP is already allocated');
    const outside = await ts().request('POST', SVC, { body: service('outside', { clusterIP: '10.97.0.9', ports: [{ port: 80 }] }) });
    expect(outside.status).toBe(422);
    expect(outside.json.message).toContain('the provided IP (10.97.0.9) is not in the valid range. The range of valid IPs is 10.96.0.0/28');
    for (const name of ['taken', 'outside']) expect((await ts().request('GET', `${SVC}/${name}`)).status).toBe(404);
    expect(await claimed(IPS)).toEqual(before);
  });

  test('a create that fails after the claim (name taken) releases it', async () => {
    const ips = await claimed(IPS);
    const again = await ts().request('POST', SVC, { body: service('fixed', { ports: [{ port: 80 }] }) });
    expect(again.status).toBe(409);
    expect(await claimed(IPS)).toEqual(ips);
  });

  test('invalid services are refused before anything is claimed', async () => {
    const ips = await claimed(IPS);
    const res = await ts().request('POST', SVC, { body: service('bad', { type: 'NodePort', ports: [{ port: 0 }, { port: 80, protocol: 'ICMP' }] }) });
    expect(res.status).toBe(422);
    expect(res.json.details.causes.map((c: { field: string }) => c.field)).toEqual(
      expect.arrayContaining(['spec.ports[0].name', 'spec.ports[0].port', 'spec.ports[1].protocol']),
    );
    expect(await claimed(IPS)).toEqual(ips);
    expect(await claimed(PORTS)).toEqual([]);
  });

  test('a loopback external IP is refused with 422 naming the field (upstream ValidateNonSpecialIP)', async () => {
    const res = await ts().request('POST', SVC, { body: service('loop-ext', { externalIPs: ['192.0.2.7', '127.0.0.1'], ports: [{ port: 80 }] }) });
    expect(res.status).toBe(422);
    expect(res.json.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.externalIPs[1]', message: 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)' },
    ]);
    expect((await ts().request('GET', `${SVC}/loop-ext`)).status).toBe(404);
  });

  test('dry run shows an IP and node port without claiming them', async () => {
    const res = await ts().request('POST', `${SVC}?dryRun=All`, { body: service('dry', { type: 'NodePort', ports: [{ port: 80 }] }) });
    expect(res.status).toBe(201);
    expect(res.json.spec.clusterIP).toMatch(/^10\.96\.0\./);
    expect(res.json.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect((await ts().request('GET', `${SVC}/dry`)).status).toBe(404);
    expect(await claimed(PORTS)).toEqual([]);
  });

  test('node ports: requested and random ones are claimed, a taken or out-of-range one is 422, type changes free them', async () => {
    const np = await ts().request('POST', SVC, { body: service('np', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30005 }, { name: 'b', port: 81 }] }) });
    expect(np.status).toBe(201);
    const random = np.json.spec.ports[1].nodePort as number;
    expect(random).toBeGreaterThanOrEqual(30000);
    expect(random).toBeLessThanOrEqual(30009);
    expect(np.json.spec.externalTrafficPolicy).toBe('Cluster');
    expect(await claimed(PORTS)).toEqual(['30005', String(random)].sort());

    const dup = await ts().request('POST', SVC, { body: service('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }) });
    expect(dup.status).toBe(422);
    expect(dup.json.message).toContain('spec.ports[0].nodePort: Invalid value: 30005: provided port is already allocated');
    const out = await ts().request('POST', SVC, { body: service('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }) });
    expect(out.status).toBe(422);
    expect(out.json.message).toContain('provided port is not in the valid range. The range of valid ports is 30000-30009');
    const clusterIPs = await claimed(IPS);

    // A replace that leaves the allocated values out keeps them.
    const current = (await ts().request('GET', `${SVC}/np`)).json;
    const replaced = await ts().request('PUT', `${SVC}/np`, { body: service('np', { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] }) });
    expect(replaced.status).toBe(200);
    expect(replaced.json.spec.clusterIP).toBe(current.spec.clusterIP);
    expect(replaced.json.spec.ports.map((p: { nodePort: number }) => p.nodePort)).toEqual([30005, random]);

    // To ClusterIP: the node ports are freed; back to NodePort: new ones are claimed.
    const toClusterIP = await ts().request('PATCH', `${SVC}/np`, {
      body: { spec: { type: 'ClusterIP', externalTrafficPolicy: null, ports: [{ name: 'a', port: 80, nodePort: null }, { name: 'b', port: 81, nodePort: null }] } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(toClusterIP.status).toBe(200);
    expect(await claimed(PORTS)).toEqual([]);
    const toNodePort = await ts().request('PATCH', `${SVC}/np`, { body: { spec: { type: 'NodePort' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(toNodePort.status).toBe(200);
    expect(await claimed(PORTS)).toHaveLength(2);

    // To ExternalName: the cluster IP goes too.
    const toExternal = await ts().request('PATCH', `${SVC}/np`, {
      body: { spec: { type: 'ExternalName', externalName: 'db.example.com', externalTrafficPolicy: null } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(toExternal.status).toBe(200);
    expect(toExternal.json.spec.clusterIP).toBeUndefined();
    expect(await claimed(PORTS)).toEqual([]);
    expect(await claimed(IPS)).toEqual(clusterIPs.filter((ip) => ip !== current.spec.clusterIP));
  });

  test('a LoadBalancer with externalTrafficPolicy Local gets a health-check node port, freed when the policy changes', async () => {
    const lb = await ts().request('POST', SVC, { body: service('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 443 }] }) });
    expect(lb.status).toBe(201);
    const { healthCheckNodePort, ports, allocateLoadBalancerNodePorts } = lb.json.spec;
    expect(allocateLoadBalancerNodePorts).toBe(true);
    expect(healthCheckNodePort).toBeGreaterThanOrEqual(30000);
    expect(await claimed(PORTS)).toEqual([String(ports[0].nodePort), String(healthCheckNodePort)].sort());
    expect(lb.json.status).toEqual({ loadBalancer: {} });
    const toCluster = await ts().request('PATCH', `${SVC}/lb`, { body: { spec: { externalTrafficPolicy: 'Cluster', healthCheckNodePort: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(toCluster.status).toBe(200);
    expect(toCluster.json.spec.healthCheckNodePort).toBeUndefined();
    expect(await claimed(PORTS)).toEqual([String(ports[0].nodePort)]);
    expect((await ts().request('DELETE', `${SVC}/lb`)).status).toBe(200);
    expect(await claimed(PORTS)).toEqual([]);
  });

  test('server-side apply creates with claims (protocol left out) and frees the node port of a removed port', async () => {
    const apply = (ports: unknown[]) =>
      ts().request('PATCH', `${SVC}/applied?fieldManager=test&force=true`, {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'applied' }, spec: { type: 'NodePort', ports } }),
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
    const created = await apply([{ name: 'a', port: 80 }, { name: 'b', port: 81 }]);
    expect(created.status).toBe(201);
    const [pa, pb] = created.json.spec.ports.map((p: { nodePort: number }) => p.nodePort);
    expect(await claimed(PORTS)).toEqual([String(pa), String(pb)].sort());
    const narrowed = await apply([{ name: 'a', port: 80 }]);
    expect(narrowed.status).toBe(200);
    expect(narrowed.json.spec.ports).toEqual([{ name: 'a', port: 80, protocol: 'TCP', targetPort: 80, nodePort: pa }]);
    expect(await claimed(PORTS)).toEqual([String(pa)]);
    expect((await ts().request('DELETE', `${SVC}/applied`)).status).toBe(200);
    expect(await claimed(PORTS)).toEqual([]);
  });

  test('an update retried after a conflict keeps what its last attempt reuses of the first', async () => {
    expect((await ts().request('POST', SVC, { body: service('retry', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30001 }] }) })).status).toBe(201);
    const registry = ts().server.api.registries.byResource('', 'services')!;
    const key = '/registry/core/services/default/retry';
    let attempts = 0;
    const res = await registry.patch(
      'default',
      'retry',
      async (current) => {
        attempts++;
        if (attempts === 1) {
          // Another writer changes the object between this attempt's read and its write.
          const raw = JSON.parse((await etcd.get(key).string())!);
          raw.metadata.labels = { touched: 'yes' };
          await etcd.put(key).value(JSON.stringify(raw));
        }
        const next = structuredClone(current!) as { spec: { ports: unknown[] } } & typeof current;
        next!.spec.ports.push({ name: 'b', port: 81, nodePort: 30007 });
        return next!;
      },
      { dryRun: false },
    );
    expect(attempts).toBeGreaterThanOrEqual(2);
    const spec = (res.object as unknown as { spec: { ports: { nodePort: number }[] } }).spec;
    expect(spec.ports.map((p) => p.nodePort)).toEqual([30001, 30007]);
    expect(res.object.metadata.labels).toEqual({ touched: 'yes' });
    expect(await claimed(PORTS)).toEqual(['30001', '30007']);
    expect((await ts().request('DELETE', `${SVC}/retry`)).status).toBe(200);
    expect(await claimed(PORTS)).toEqual([]);
  });

  test('the cluster IP is immutable', async () => {
    const res = await ts().request('PATCH', `${SVC}/fixed`, { body: { spec: { clusterIP: '10.96.0.10' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(res.status).toBe(422);
    expect(res.json.message).toContain('spec.clusterIPs[0]: Invalid value: "10.96.0.10": may not change once set');
    expect(await claimed(IPS)).not.toContain('10.96.0.10');
  });

  test('a full range is a 500 with upstream\'s message, and the range is usable again after deletes', async () => {
    const names: string[] = [];
    for (let i = 0; ; i++) {
      const res = await ts().request('POST', SVC, { body: service(`fill-${i}`, { ports: [{ port: 80 }] }) });
      if (res.status !== 201) {
        expect(res.status).toBe(500);
        expect(res.json.message).toContain('failed to allocate a serviceIP: range is full');
        break;
      }
      names.push(`fill-${i}`);
      expect(i).toBeLessThan(20);
    }
    expect(await claimed(IPS)).toHaveLength(14);
    for (const n of names) expect((await ts().request('DELETE', `${SVC}/${n}`)).status).toBe(200);
    expect((await ts().request('POST', SVC, { body: service('after', { ports: [{ port: 80 }] }) })).status).toBe(201);
  });

  test('repair frees claims no service holds once past the grace period, and nothing else', async () => {
    const held = await claimed(IPS);
    const record = (ip: string, owner: string, uid: string, age: number) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ServiceAllocation',
        metadata: { name: ip, uid, creationTimestamp: new Date(Date.now() - age).toISOString() },
        owner: { namespace: 'default', name: owner },
      });
    const fixedUid = (await ts().request('GET', `${SVC}/fixed`)).json.metadata.uid;
    // Addresses no service holds: earlier tests' services got random ones from the range.
    const [ghostIp, inflightIp] = Array.from({ length: 50 }, (_, i) => `10.96.0.${200 + i}`).filter((ip) => !held.includes(ip));
    // Left by a replica that died mid-create (old), one still in flight (young), one claimed by a
    // service that was replaced under the same name (other uid).
    await etcd.put(`${IPS}${ghostIp}`).value(record(ghostIp!, 'ghost', 'u-ghost', 10 * 60_000));
    await etcd.put(`${IPS}${inflightIp}`).value(record(inflightIp!, 'inflight', 'u-inflight', 1_000));
    await etcd.put(`${PORTS}30009`).value(record('30009', 'fixed', 'not-' + fixedUid, 10 * 60_000));
    const registry = ts().server.api.registries.byResource('', 'services')!;
    expect(await registry.repairAllocations(new Date())).toBe(2);
    expect(await claimed(IPS)).toEqual([...held, inflightIp!].sort());
    expect(await claimed(PORTS)).toEqual([]);
    // Past its grace period the in-flight claim goes too; the held ones never do.
    expect(await registry.repairAllocations(new Date(Date.now() + 10 * 60_000))).toBe(1);
    expect(await claimed(IPS)).toEqual(held);
  });

  test('field selectors on spec.type and spec.clusterIP', async () => {
    const list = await ts().request('GET', `${SVC}?fieldSelector=spec.clusterIP%3D10.96.0.9`);
    expect(list.json.items.map((s: { metadata: { name: string } }) => s.metadata.name)).toEqual(['fixed']);
    const external = await ts().request('GET', `${SVC}?fieldSelector=spec.type%3DExternalName`);
    expect(external.json.items.map((s: { metadata: { name: string } }) => s.metadata.name)).toEqual(['np']);
  });
});
