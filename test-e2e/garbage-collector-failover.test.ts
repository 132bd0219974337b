import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, startEtcd, type EtcdProcess } from '@cluster/storage';
import { KubeconfigClient } from './support/http-client.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

// Issue 32: three replicas on one etcd; the garbage collector runs on the controllers' Lease
// holder. Its process is killed (SIGKILL, no Lease release) while it is deleting the dependents of
// a deleted owner; another replica takes the Lease over once it expires, rebuilds the graph from
// lists, and the collection finishes.
const NS = 'gc-failover';
const N = 400;
let etcd: EtcdProcess | undefined;
let dir = '';
const replicas: ServerProcess[] = [];
const clients: KubeconfigClient[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gc-failover-'));
  const [client, peer] = await freePorts(2);
  etcd = await startEtcd({ dataDir: join(dir, 'etcd'), clientPort: client!, peerPort: peer! });
  const shared = ['--etcd-servers', `http://127.0.0.1:${client}`, '--cert-dir', join(dir, 'certs'), '--workers=1'];
  // One after the other, so the later ones load the CA the first generated.
  for (let i = 0; i < 3; i++) replicas.push(await startServerProcess(shared));
  for (const r of replicas) clients.push(new KubeconfigClient(r.kubeconfig, 8));
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const r of replicas) await r.stop();
  await etcd?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number, everyMs = 200): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const isLeader = async (c: KubeconfigClient) => /^leader_election_master_status\{name="cluster-controller-manager"[^}]*\} 1$/m.test(String((await c.call('GET', '/metrics')).json));

async function remaining(c: KubeconfigClient): Promise<number> {
  const r = await c.call('GET', `/api/v1/namespaces/${NS}/secrets?labelSelector=gc-failover%3Ddependent`);
  if (r.status !== 200) throw new Error(`list: ${r.status}`);
  return (r.json.items as unknown[]).length;
}

test('the leader killed mid-collection: another replica finishes it', async () => {
  const leader = await until('a leader', async () => {
    for (let i = 0; i < 3; i++) if (await isLeader(clients[i]!)) return i;
    return undefined;
  }, 30_000);
  const others = [0, 1, 2].filter((i) => i !== leader);
  const c = clients[others[0]!]!;
  expect((await c.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).toBe(201);
  const owner = await c.call('POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
  expect(owner.status).toBe(201);
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.json.metadata.uid as string, blockOwnerDeletion: true };
  for (let start = 0; start < N; start += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, N - start) }, async (_v, k) => {
        const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: `d-${start + k}`, labels: { 'gc-failover': 'dependent' }, ownerReferences: [ref] } };
        const r = await c.call('POST', `/api/v1/namespaces/${NS}/secrets`, body);
        if (r.status !== 201) throw new Error(`create d-${start + k}: ${r.status}`);
      }),
    );
  }
  expect(await remaining(c)).toBe(N);

  const del = await c.call('DELETE', `/api/v1/namespaces/${NS}/configmaps/owner`, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' });
  expect(del.status).toBe(200);
  // Kill the leader as soon as its collection has begun and before it ends.
  const left = await until('the collection under way', async () => {
    const n = await remaining(c);
    return n < N ? n : undefined;
  }, 30_000, 20);
  replicas[leader]!.child.kill('SIGKILL');
  const killedAt = Date.now();
  expect(left).toBeGreaterThan(0);
  const afterKill = await remaining(c);

  // The Lease (15 s) expires, another replica leads and collects the rest.
  await until('every dependent collected', async () => ((await remaining(c)) === 0 ? true : undefined), 90_000, 500);
  const took = Date.now() - killedAt;
  const next = await until('the new leader', async () => {
    for (const i of others) if (await isLeader(clients[i]!)) return i;
    return undefined;
  }, 10_000);
  expect(others).toContain(next);
  expect(afterKill).toBeGreaterThan(0);
  // Reported for the record: how many were left at the kill and how long the rest took.
  console.log(`gc failover: ${N - left} of ${N} collected before the kill, ${afterKill} left after it; the new leader finished ${took} ms after the kill`);
}, 180_000);
