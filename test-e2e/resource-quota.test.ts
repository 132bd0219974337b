import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, startEtcd, type EtcdProcess } from '@cluster/storage';
import { KubeconfigClient } from './support/http-client.js';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';

// ResourceQuota end to end: two replicas on one etcd, the quota controller on whichever leads, the
// admission plugin on both. Usage is counted within seconds, an over-quota create is refused with
// upstream's exact 403 and nothing is stored, usage comes back on delete, and 50 concurrent creates
// through both replicas against a quota of 10 create exactly 10.
let etcd: EtcdProcess | undefined;
let dir = '';
const replicas: ServerProcess[] = [];
const clients: KubeconfigClient[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quota-'));
  const [client, peer] = await freePorts(2);
  etcd = await startEtcd({ dataDir: join(dir, 'etcd'), clientPort: client!, peerPort: peer! });
  const shared = ['--etcd-servers', `http://127.0.0.1:${client}`, '--cert-dir', join(dir, 'certs')];
  // One after the other, so the second loads the CA the first generated.
  for (let i = 0; i < 2; i++) replicas.push(await startServerProcess(shared));
  for (const r of replicas) clients.push(new KubeconfigClient(r.kubeconfig, 32));
}, 90_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const r of replicas) await r.stop();
  await etcd?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the quota's status.used holds `want` (each listed name); returns how long it took. */
async function usedReaches(client: KubeconfigClient, ns: string, name: string, want: Record<string, string>, ms = 10_000): Promise<number> {
  const start = Date.now();
  let last: unknown;
  await until(
    `${ns}/${name} used ${JSON.stringify(want)}`,
    async () => {
      const used = ((await client.call('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json.status?.used ?? {}) as Record<string, string>;
      last = used;
      return Object.entries(want).every(([k, v]) => used[k] === v) ? true : undefined;
    },
    ms,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last seen ${JSON.stringify(last)}`);
  });
  return Date.now() - start;
}

const pod = (name: string, cpu: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu, memory: '100Mi' } } }] },
});

test('counted within seconds, refused with the exact 403 and nothing stored, given back on delete (kubectl and a raw client)', async () => {
  const [a, b] = clients as [KubeconfigClient, KubeconfigClient];
  const ns = 'quota-life';
  expect((await kubectl(replicas[0]!, ['create', 'namespace', ns])).code).toBe(0);
  const created = await kubectl(replicas[0]!, ['-n', ns, 'create', 'quota', 'q', '--hard=secrets=2,pods=2,requests.cpu=1,requests.memory=1Gi,count/services=1']);
  expect(created.stderr).toBe('');
  const tookMs = await usedReaches(b, ns, 'q', { secrets: '0', pods: '0', 'requests.cpu': '0', 'requests.memory': '0', 'count/services': '0' });
  expect(tookMs).toBeLessThan(5_000);
  const status = (await b.call('GET', `/api/v1/namespaces/${ns}/resourcequotas/q`)).json.status;
  expect(status.hard).toEqual({ 'count/services': '1', pods: '2', 'requests.cpu': '1', 'requests.memory': '1Gi', secrets: '2' });

  // Object counts: two secrets fit, the third is refused by kubectl and by a raw client alike.
  for (const s of ['s1', 's2']) expect((await kubectl(replicas[0]!, ['-n', ns, 'create', 'secret', 'generic', s, '--from-literal=k=v'])).code).toBe(0);
  await usedReaches(a, ns, 'q', { secrets: '2' }, 1_000);
  const refused = await kubectl(replicas[1]!, ['-n', ns, 'create', 'secret', 'generic', 's3', '--from-literal=k=v']);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain('secrets "s3" is forbidden: exceeded quota: q, requested: secrets=1, used: secrets=2, limited: secrets=2');
  const raw = await b.call('POST', `/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's3' }, data: { k: 'dg==' } });
  expect(raw.status).toBe(403);
  expect(raw.json).toMatchObject({
    kind: 'Status',
    status: 'Failure',
    reason: 'Forbidden',
    code: 403,
    message: 'secrets "s3" is forbidden: exceeded quota: q, requested: secrets=1, used: secrets=2, limited: secrets=2',
    details: { name: 's3', kind: 'secrets' },
  });
  expect((await a.call('GET', `/api/v1/namespaces/${ns}/secrets/s3`)).status).toBe(404);

  // Pod requests: charged at once by admission, the next pod refused on cpu alone.
  expect((await a.call('POST', `/api/v1/namespaces/${ns}/pods`, pod('p1', '600m'))).status).toBe(201);
  await usedReaches(b, ns, 'q', { pods: '1', 'requests.cpu': '600m', 'requests.memory': '100Mi' }, 1_000);
  const over = await b.call('POST', `/api/v1/namespaces/${ns}/pods`, pod('p2', '600m'));
  expect(over.status).toBe(403);
  expect(over.json.message).toBe('pods "p2" is forbidden: exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1');
  // A pod that does not state its requests is refused while cpu and memory requests are limited.
  const bare = await kubectl(replicas[0]!, ['-n', ns, 'run', 'bare', '--image=busybox', '--restart=Never']);
  expect(bare.stderr).toContain('pods "bare" is forbidden: failed quota: q: must specify requests.cpu,requests.memory');
  // A dry run is checked but charges nothing.
  const dry = await kubectl(replicas[0]!, ['-n', ns, 'create', 'service', 'clusterip', 'svc', '--tcp=80:80', '--dry-run=server']);
  expect(dry.code).toBe(0);
  await usedReaches(a, ns, 'q', { 'count/services': '0' }, 1_000);

  // Deletes give usage back within seconds (the controller's replenishment).
  expect((await kubectl(replicas[1]!, ['-n', ns, 'delete', 'pod', 'p1', '--grace-period=0', '--force'])).code).toBe(0);
  expect((await kubectl(replicas[1]!, ['-n', ns, 'delete', 'secret', 's1'])).code).toBe(0);
  const backMs = await usedReaches(a, ns, 'q', { pods: '0', 'requests.cpu': '0', 'requests.memory': '0', secrets: '1' });
  expect(backMs).toBeLessThan(5_000);
  expect((await kubectl(replicas[0]!, ['-n', ns, 'create', 'secret', 'generic', 's3', '--from-literal=k=v'])).code).toBe(0);
}, 90_000);

test('50 concurrent creates through two replicas against a quota of 10 create exactly 10', async () => {
  const ns = 'quota-race';
  const [a] = clients as [KubeconfigClient];
  expect((await a.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
  const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'ten' }, spec: { hard: { 'count/secrets': '10' } } };
  expect((await a.call('POST', `/api/v1/namespaces/${ns}/resourcequotas`, quota)).status).toBe(201);
  await usedReaches(a, ns, 'ten', { 'count/secrets': '0' });
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      clients[i % 2]!.call('POST', `/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` }, stringData: { i: String(i) } }),
    ),
  );
  const codes = results.map((r) => r.status);
  expect(codes.filter((c) => c === 201)).toHaveLength(10);
  expect(codes.filter((c) => c === 403)).toHaveLength(40);
  for (const r of results.filter((x) => x.status === 403)) expect(r.json.message).toMatch(/^secrets "s\d+" is forbidden: exceeded quota: ten, requested: count\/secrets=1, used: count\/secrets=10, limited: count\/secrets=10$/);
  for (const c of clients) {
    const list = await c.call('GET', `/api/v1/namespaces/${ns}/secrets`);
    expect(list.json.items).toHaveLength(10);
  }
  expect((await a.call('GET', `/api/v1/namespaces/${ns}/resourcequotas/ten`)).json.status.used).toEqual({ 'count/secrets': '10' });
}, 60_000);

test('custom resources are counted by count/<resource>.<group>, refused over quota and given back on delete', async () => {
  const [a, b] = clients as [KubeconfigClient, KubeconfigClient];
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  expect((await a.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
  for (const c of clients) await until('widgets served', async () => ((await c.call('GET', '/apis/example.com/v1')).status === 200 ? true : undefined), 15_000);
  const ns = 'quota-crd';
  expect((await a.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
  const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'w' }, spec: { hard: { 'count/widgets.example.com': '1' } } };
  expect((await a.call('POST', `/api/v1/namespaces/${ns}/resourcequotas`, quota)).status).toBe(201);
  await usedReaches(b, ns, 'w', { 'count/widgets.example.com': '0' });
  const widget = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name } });
  expect((await a.call('POST', `/apis/example.com/v1/namespaces/${ns}/widgets`, widget('w1'))).status).toBe(201);
  const over = await b.call('POST', `/apis/example.com/v1/namespaces/${ns}/widgets`, widget('w2'));
  expect(over.status).toBe(403);
  expect(over.json.message).toBe(
    'widgets.example.com "w2" is forbidden: exceeded quota: w, requested: count/widgets.example.com=1, used: count/widgets.example.com=1, limited: count/widgets.example.com=1',
  );
  expect((await b.call('DELETE', `/apis/example.com/v1/namespaces/${ns}/widgets/w1`)).status).toBe(200);
  await usedReaches(a, ns, 'w', { 'count/widgets.example.com': '0' });
  expect((await b.call('POST', `/apis/example.com/v1/namespaces/${ns}/widgets`, widget('w2'))).status).toBe(201);
}, 60_000);

test('every way of creating is charged: server-side apply and generateName too', async () => {
  const [a, b] = clients as [KubeconfigClient, KubeconfigClient];
  const ns = 'quota-paths';
  expect((await a.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
  const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'two' }, spec: { hard: { secrets: '2' } } };
  expect((await a.call('POST', `/api/v1/namespaces/${ns}/resourcequotas`, quota)).status).toBe(201);
  await usedReaches(a, ns, 'two', { secrets: '0' });
  const apply = (c: KubeconfigClient, name: string) =>
    c.call('PATCH', `/api/v1/namespaces/${ns}/secrets/${name}?fieldManager=e2e`, { apiVersion: 'v1', kind: 'Secret', metadata: { name } }, 'application/apply-patch+yaml');
  expect((await apply(a, 'applied')).status).toBe(201);
  // Applying again changes nothing: an update is not charged.
  expect((await apply(b, 'applied')).status).toBe(200);
  const generated = await b.call('POST', `/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { generateName: 'gen-' } });
  expect(generated.status).toBe(201);
  await usedReaches(a, ns, 'two', { secrets: '2' }, 1_000);
  const over = await apply(b, 'one-more');
  expect(over.status).toBe(403);
  expect(over.json.message).toBe('secrets "one-more" is forbidden: exceeded quota: two, requested: secrets=1, used: secrets=2, limited: secrets=2');
  expect((await a.call('GET', `/api/v1/namespaces/${ns}/secrets/one-more`)).status).toBe(404);
  const overGenerated = await a.call('POST', `/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { generateName: 'gen-' } });
  expect(overGenerated.status).toBe(403);
  expect((await a.call('GET', `/api/v1/namespaces/${ns}/secrets`)).json.items).toHaveLength(2);
}, 60_000);
