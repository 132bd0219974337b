import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { makeTestCsr } from '@cluster/apimachinery';
import { KubeconfigClient } from '../support/http-client.js';

// The HA control plane of hack/local-up-ha.sh (three etcd members, three replicas, HAProxy), under
// faults, through the load balancer: a write is visible on every replica; killing a replica, and
// killing and restarting an etcd member, under a write load loses no acknowledged write, and a
// watcher that resumes from its last resourceVersion sees every one of them exactly once; a
// client-node informer stays an exact mirror while replicas are killed; a rolling restart fails
// no kubectl request; the controllers' leader is replaced; Prometheus scrapes every replica.
// Each fault test prints the figures it checked.
const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'hack/local-up-ha.sh');
const CMS = '/api/v1/namespaces/default/configmaps';
let dir = '';
let lb: KubeconfigClient;
const replicaUrls: string[] = [];

async function ha(...args: string[]): Promise<string> {
  const { stdout } = await exec('bash', [SCRIPT, ...args], { env: { ...process.env, HA_DIR: dir }, timeout: 120_000 });
  return stdout;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ha-'));
  const out = await ha('up');
  for (const m of out.matchAll(/^replica\d pid \d+ (https:\/\/\S+)/gm)) replicaUrls.push(m[1]!);
  lb = new KubeconfigClient(join(dir, 'admin.kubeconfig'), 16);
}, 180_000);

afterAll(async () => {
  lb?.close();
  if (dir) {
    await ha('down').catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);

/** The same admin credentials, straight to one replica. */
function direct(url: string): KubeconfigClient {
  const c = new KubeconfigClient(join(dir, 'admin.kubeconfig'), 2);
  Object.assign(c, { server: url });
  return c;
}

test('a write through the load balancer is visible on every replica, no older than the write', async () => {
  const created = await lb.call('POST', CMS, { metadata: { name: 'seen-everywhere' }, data: { a: 'b' } });
  expect(created.status).toBe(201);
  const rv = Number(created.json.metadata.resourceVersion);
  expect(replicaUrls).toHaveLength(3);
  for (const url of replicaUrls) {
    const c = direct(url);
    const r = await c.call('GET', `${CMS}/seen-everywhere`);
    expect(r.status).toBe(200);
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(rv);
    c.close();
  }
});

/** Writers that create objects through the load balancer, retrying each until it is acknowledged. */
function writeLoad(prefix: string, writers: number) {
  const acked = new Set<string>();
  let running = true;
  let retries = 0;
  const done = Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let n = 0; running; n++) {
        const name = `${prefix}-${w}-${n}`;
        for (let attempt = 0; running || attempt === 0; attempt++) {
          const r = await lb.call('POST', CMS, { metadata: { name }, data: { n: String(n) } }).catch(() => ({ status: 0, json: null }));
          // 409: an earlier attempt was applied and its answer lost with the connection.
          if (r.status === 201 || r.status === 409) {
            acked.add(name);
            break;
          }
          retries++;
          await new Promise((res) => setTimeout(res, 50));
          if (attempt > 200) throw new Error(`${name} never acknowledged (last status ${r.status})`);
        }
      }
    }),
  );
  return { acked, stop: async () => ((running = false), await done), retries: () => retries };
}

/** A watcher through the load balancer that resumes from its last resourceVersion after a cut. */
function resumingWatcher(prefix: string, fromRv: string) {
  const added = new Map<string, number>();
  let rv = fromRv;
  let running = true;
  let current: { stop(): void; ended: Promise<void> } | undefined;
  const loop = (async () => {
    while (running) {
      current = lb.watch(`${CMS}?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`, (e) => {
        if (e.object?.metadata?.resourceVersion) rv = e.object.metadata.resourceVersion;
        const name: string = e.object?.metadata?.name ?? '';
        if (e.type === 'ADDED' && name.startsWith(prefix)) added.set(name, (added.get(name) ?? 0) + 1);
      });
      await current.ended.catch(() => undefined);
      if (running) await new Promise((res) => setTimeout(res, 100));
    }
  })();
  return { added, stop: async () => ((running = false), current?.stop(), await loop) };
}

async function allPresent(prefix: string, acked: Set<string>): Promise<string[]> {
  const list = await lb.call('GET', CMS);
  const names = new Set((list.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name).filter((n) => n.startsWith(prefix)));
  return [...acked].filter((n) => !names.has(n));
}

test.each([
  ['a replica killed (SIGKILL)', 'kill-replica', 'replica1'],
  ['an etcd member killed and restarted', 'kill-etcd', 'etcd2'],
])('%s under write load: no acknowledged write lost, every event seen once', async (_, prefix, victim) => {
  const start = await lb.call('GET', `${CMS}?limit=1`);
  const watcher = resumingWatcher(prefix, start.json.metadata.resourceVersion);
  const load = writeLoad(prefix, 4);
  await new Promise((res) => setTimeout(res, 1500));
  const pid = Number(/\S+ (\d+)/.exec((await exec('awk', [`$1 == "${victim}"`, join(dir, 'pids')])).stdout)![1]);
  process.kill(pid, 'SIGKILL');
  await new Promise((res) => setTimeout(res, 2500));
  await ha('restart', victim);
  await new Promise((res) => setTimeout(res, 1500));
  await load.stop();
  const missing = await allPresent(prefix, load.acked);
  const deadline = Date.now() + 15_000;
  while ([...load.acked].some((n) => !watcher.added.has(n)) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
  await watcher.stop();
  const unseen = [...load.acked].filter((n) => !watcher.added.has(n));
  const doubled = [...watcher.added].filter(([, count]) => count > 1).map(([n]) => n);
  console.log(`${prefix}: writes acknowledged ${load.acked.size}, found ${load.acked.size - missing.length}; events expected ${load.acked.size}, seen ${load.acked.size - unseen.length}; retries ${load.retries()}`);
  expect(load.acked.size).toBeGreaterThan(50);
  expect(missing).toEqual([]);
  expect(unseen).toEqual([]);
  expect(doubled).toEqual([]);
}, 120_000);

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

function getJson(url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString()));
        } catch (e) {
          reject(e);
        }
      });
    }).on('error', reject);
  });
}

test('Prometheus with deploy/prometheus scrapes every replica: one apiserver_request_total series set per replica', async () => {
  const targets = replicaUrls.map((u) => `'${new URL(u).host}'`).join(', ');
  const config = (await readFile(join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8'))
    .replace('@CA_FILE@', join(dir, 'certs', 'ca.crt'))
    .replace('@TOKEN_FILE@', join(dir, 'prometheus.token'))
    .replace('@TARGETS@', targets);
  await writeFile(join(dir, 'prometheus.yml'), config);
  await writeFile(join(dir, 'rules.yml'), await readFile(join(ROOT, 'deploy/prometheus/rules.yml'), 'utf8'));
  const port = await freePort();
  const prom = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'prometheus-data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
  try {
    const query = encodeURIComponent('count by (instance) (apiserver_request_total)');
    let instances: string[] = [];
    const deadline = Date.now() + 45_000;
    while (instances.length < 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      const r = (await getJson(`http://127.0.0.1:${port}/api/v1/query?query=${query}`).catch(() => undefined)) as { data?: { result?: { metric: { instance: string } }[] } } | undefined;
      instances = (r?.data?.result ?? []).map((x) => x.metric.instance).sort();
    }
    console.log(`prometheus: series per replica for ${instances.join(', ')}`);
    expect(instances).toEqual(replicaUrls.map((u) => new URL(u).host).sort());
  } finally {
    prom.kill('SIGTERM');
    await new Promise((r) => prom.once('exit', r));
  }
}, 90_000);

/** SIGKILLs one process of the cluster by its recorded PID. */
async function kill(name: string): Promise<void> {
  const pid = Number(/\S+ (\d+)/.exec((await exec('awk', [`$1 == "${name}"`, join(dir, 'pids')])).stdout)![1]);
  process.kill(pid, 'SIGKILL');
}

test('a client-node informer through the load balancer stays an exact mirror while each replica in turn is killed', async () => {
  expect((await lb.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ha-inform' } })).status).toBe(201);
  const kc = new KubeConfig();
  kc.loadFromFile(join(dir, 'admin.kubeconfig'));
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/ha-inform/configmaps', () => api.listNamespacedConfigMap({ namespace: 'ha-inform' }));
  const adds = new Map<string, number>();
  let restarts = 0;
  // stop() aborts the watch, which the informer reports as an error: restart only until then.
  let informing = true;
  informer.on('add', (cm) => adds.set(cm.metadata!.name!, (adds.get(cm.metadata!.name!) ?? 0) + 1));
  informer.on('error', () => {
    if (!informing) return;
    restarts++;
    setTimeout(() => informing && void informer.start().catch(() => undefined), 200);
  });
  await informer.start();
  const CMS_NS = '/api/v1/namespaces/ha-inform/configmaps';
  let running = true;
  let n = 0;
  const writers = Array.from({ length: 3 }, async (_, w) => {
    while (running) {
      const name = `m-${w}-${n++ % 60}`;
      const get = await lb.call('GET', `${CMS_NS}/${name}`).catch(() => ({ status: 0, json: null }));
      if (get.status === 404) await lb.call('POST', CMS_NS, { metadata: { name }, data: { v: '0' } }).catch(() => undefined);
      else if (get.status === 200) await lb.call('PUT', `${CMS_NS}/${name}`, { ...get.json, data: { v: String(Date.now()) } }).catch(() => undefined);
      else await new Promise((r) => setTimeout(r, 50));
    }
  });
  for (const victim of ['replica0', 'replica1', 'replica2']) {
    await new Promise((r) => setTimeout(r, 1200));
    await kill(victim);
    await new Promise((r) => setTimeout(r, 800));
    await ha('restart', victim);
  }
  await new Promise((r) => setTimeout(r, 1500));
  running = false;
  await Promise.all(writers);
  const want = async () => {
    const list = await lb.call('GET', CMS_NS);
    return new Map((list.json.items as V1ConfigMap[]).map((c) => [c.metadata!.name!, c.metadata!.resourceVersion!]));
  };
  let expected = await want();
  const mirror = () => new Map(informer.list('ha-inform').map((c) => [c.metadata!.name!, c.metadata!.resourceVersion!]));
  const deadline = Date.now() + 20_000;
  while (JSON.stringify([...mirror()].sort()) !== JSON.stringify([...expected].sort()) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    expected = await want();
  }
  informing = false;
  await informer.stop();
  const doubled = [...adds].filter(([, c]) => c > 1).map(([name]) => name);
  console.log(`informer: ${expected.size} objects mirrored, watch cut and resumed ${restarts} times, duplicated adds ${doubled.length}`);
  expect([...mirror()].sort()).toEqual([...expected].sort());
  expect(doubled).toEqual([]);
}, 120_000);

test('a rolling restart of every replica (SIGTERM, one at a time, waiting for readyz) fails no kubectl request', async () => {
  const env = { ...process.env, KUBECONFIG: join(dir, 'admin.kubeconfig') };
  let running = true;
  const failures: string[] = [];
  let sent = 0;
  const loops = Array.from({ length: 3 }, async (_, w) => {
    for (let i = 0; running; i++) {
      sent++;
      const args = i % 2 === 0 ? ['create', 'configmap', `roll-${w}-${i}`, '-n', 'default', '--from-literal=a=b'] : ['get', 'configmaps', '-n', 'default', '-o', 'name'];
      await exec('kubectl', args, { env, timeout: 30_000 }).catch((e: { stderr?: string }) => failures.push(`kubectl ${args.join(' ')}: ${e.stderr?.trim()}`));
    }
  });
  for (const r of ['replica0', 'replica1', 'replica2']) {
    await new Promise((res) => setTimeout(res, 800));
    await ha('restart', r);
    const url = replicaUrls[Number(r.slice(-1))]!;
    await exec(process.execPath, [join(ROOT, 'hack/ha/wait.mjs'), `${url}/readyz`, '60']);
  }
  await new Promise((res) => setTimeout(res, 800));
  running = false;
  await Promise.all(loops);
  console.log(`rolling restart: ${sent} kubectl requests, ${failures.length} failed`);
  expect(sent).toBeGreaterThan(20);
  expect(failures).toEqual([]);
}, 180_000);

test('the controllers\' leader killed: another replica takes the Lease and signs a pending approved CSR within 30 s', async () => {
  const clients = replicaUrls.map(direct);
  const leading = async (c: KubeconfigClient) => /^leader_election_master_status\{name="cluster-controller-manager"(,worker="\d+")?\} 1$/m.test(String((await c.call('GET', '/metrics').catch(() => ({ json: '' }))).json));
  let leader = -1;
  for (let i = 0; i < 60 && leader < 0; i++) {
    for (let j = 0; j < clients.length; j++) if (await leading(clients[j]!)) leader = j;
    if (leader < 0) await new Promise((r) => setTimeout(r, 500));
  }
  expect(leader).toBeGreaterThanOrEqual(0);
  await kill(`replica${leader}`);
  const killedAt = Date.now();
  const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
  // Until HAProxy's checks notice the dead replica, a new connection may still be sent to it.
  const retry = async (f: () => Promise<{ status: number; json: any }>) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    for (let i = 0; ; i++) {
      try {
        return await f();
      } catch (e) {
        if (i > 20) throw e;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  const posted = await retry(() =>
    lb.call('POST', CSRS, {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'after-leader-kill' },
      spec: { request: makeTestCsr({ commonName: 'x' }).request, signerName: 'k8s.io/api-server-client', usages: ['client auth'] },
    }),
  );
  // 409: a first attempt was applied and its answer lost with the connection.
  expect([201, 409]).toContain(posted.status);
  const current = await retry(() => lb.call('GET', `${CSRS}/after-leader-kill`));
  const approval = { ...current.json, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }] } };
  const approved = await retry(() => lb.call('PUT', `${CSRS}/after-leader-kill/approval`, approval));
  expect([200, 409]).toContain(approved.status);
  let signed = false;
  while (!signed && Date.now() - killedAt < 30_000) {
    signed = !!(await lb.call('GET', `${CSRS}/after-leader-kill`).catch(() => ({ json: {} }))).json?.status?.certificate;
    if (!signed) await new Promise((r) => setTimeout(r, 250));
  }
  console.log(`leader takeover: replica${leader} killed, CSR signed after ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);
  expect(signed).toBe(true);
  await ha('restart', `replica${leader}`);
  for (const c of clients) c.close();
}, 90_000);

test('a replica started while etcd has lost quorum retries its start-up writes and comes up once quorum is back', async () => {
  // Two of three members gone: the third answers every write and linearizable read with an error
  // (no leader, or a timeout) until they return. The replica restarted meanwhile must not exit.
  await kill('etcd1');
  await kill('etcd2');
  await ha('restart', 'replica2');
  await new Promise((res) => setTimeout(res, 10_000));
  await ha('restart', 'etcd1');
  await ha('restart', 'etcd2');
  await exec(process.execPath, [join(ROOT, 'hack/ha/wait.mjs'), `${replicaUrls[2]}/readyz`, '90']);
  const log = await readFile(join(dir, 'replica2.log'), 'utf8');
  // The scenario happened: a start-up step failed and was retried (rather than ending the process).
  expect(log).toMatch(/start-up step \S+ failed \(attempt 1\); retrying/);
  const c = direct(replicaUrls[2]!);
  expect((await c.call('GET', '/api/v1/namespaces/default')).status).toBe(200);
  c.close();
}, 180_000);
