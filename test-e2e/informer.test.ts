import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { freePorts, startEtcd, type EtcdProcess } from '../packages/storage/src/etcd-process/index.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';

let etcd: EtcdProcess;
let etcdDir: string;
let server: ServerProcess;

beforeAll(async () => {
  etcdDir = await mkdtemp(join(tmpdir(), 'informer-etcd-'));
  const [client, peer] = await freePorts(2);
  etcd = await startEtcd({ dataDir: etcdDir, clientPort: client, peerPort: peer });
  server = await startServerProcess([`--etcd-servers=${etcd.endpoint}`]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await etcd?.stop();
  await rm(etcdDir, { recursive: true, force: true });
}, 60_000);

const WRITERS = 8;
const TOTAL_WRITES = Number(process.env.INFORMER_WRITES ?? 20_000);
const KEYS = 400;

async function eventually(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('list-then-watch with @kubernetes/client-node (issue: List, watch and lifecycle)', () => {
  test(`an informer follows ${TOTAL_WRITES} writes from ${WRITERS} writers and ends with etcd's state`, async () => {
    const client = new KubeconfigClient(server.kubeconfig, WRITERS * 2);
    expect((await client.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'inform' } })).status).toBe(201);

    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const api = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/inform/configmaps', () =>
      api.listNamespacedConfigMap({ namespace: 'inform' }),
    );
    const errors: unknown[] = [];
    // Stopping aborts the watch, which the informer reports as an error too: only restart while
    // the test still wants it running, or it keeps listing after the test (and the server) ended.
    let running = true;
    informer.on('error', (e) => {
      if (!running) return;
      errors.push(e);
      // Restart after an error, as controllers do.
      setTimeout(() => running && informer.start().catch((err: unknown) => errors.push(err)), 100);
    });
    await informer.start();

    // Each writer owns a slice of keys: create, update (several times), delete some, all racing.
    let next = 0;
    const writer = async (w: number) => {
      for (;;) {
        const i = next++;
        if (i >= TOTAL_WRITES) return;
        const name = `k-${w}-${i % (KEYS / WRITERS)}`;
        const step = Math.floor(i / KEYS);
        const path = `/api/v1/namespaces/inform/configmaps`;
        let r;
        if (step % 5 === 4) r = await client.call('DELETE', `${path}/${name}`);
        else r = await client.call('PUT', `${path}/${name}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { step: String(step), i: String(i) } });
        if (r.status >= 500) throw new Error(`write failed: ${JSON.stringify(r.json)}`);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));

    const truth = await client.call('GET', '/api/v1/namespaces/inform/configmaps');
    const want = new Map<string, string>(truth.json.items.map((i: V1ConfigMap) => [i.metadata!.name!, i.metadata!.resourceVersion!]));
    const seen = () => new Map(informer.list('inform').map((i) => [i.metadata!.name!, i.metadata!.resourceVersion!]));
    const converged = eventually('informer to converge', () => {
      const have = seen();
      if (have.size !== want.size) return false;
      for (const [k, v] of want) if (have.get(k) !== v) return false;
      return true;
    }, 60_000);
    await converged.catch((e: Error) => {
      throw new Error(`${e.message}; the informer's errors: ${errors.map(String).join('; ') || 'none'}`);
    });
    running = false;
    await informer.stop();
    client.close();
  }, 240_000);

  test('a watch restarted from its last resourceVersion after a server restart misses no event', async () => {
    let client = new KubeconfigClient(server.kubeconfig);
    await client.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'restart' } });
    const list = await client.call('GET', '/api/v1/namespaces/restart/configmaps');
    const received: { type: string; rv: string; name: string }[] = [];
    // Kept, not thrown: a throw here would surface as an uncaught exception outside the test.
    const watchErrors: unknown[] = [];
    const onEvent = (e: { type: string; object: V1ConfigMap }) => {
      if (e.type === 'ERROR') return void watchErrors.push(e.object);
      // kube-root-ca.crt, which root-ca-cert-publisher adds to the new namespace, is not the test's.
      if (!e.object.metadata!.name!.startsWith('r-')) return;
      received.push({ type: e.type, rv: e.object.metadata!.resourceVersion!, name: e.object.metadata!.name! });
    };
    const first = client.watch(`/api/v1/namespaces/restart/configmaps?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`, onEvent);
    const written: string[] = [];
    const write = async (c: KubeconfigClient, i: number) => {
      const r = await c.call('POST', '/api/v1/namespaces/restart/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `r-${i}` } });
      expect(r.status).toBe(201);
      written.push(r.json.metadata.resourceVersion);
    };
    for (let i = 0; i < 50; i++) await write(client, i);
    await eventually('first events', () => received.length === 50 || watchErrors.length > 0, 20_000);
    expect(watchErrors).toEqual([]);

    // Restart the replica; writes continue on the new one before the client re-watches.
    client.close();
    expect(await server.stop()).toBe(0);
    await first.ended;
    server = await startServerProcess([`--etcd-servers=${etcd.endpoint}`]);
    client = new KubeconfigClient(server.kubeconfig);
    for (let i = 50; i < 100; i++) await write(client, i);
    const last = received[received.length - 1]!.rv;
    const second = client.watch(`/api/v1/namespaces/restart/configmaps?watch=true&resourceVersion=${last}`, onEvent);
    await eventually('all events', () => received.length === 100 || watchErrors.length > 0, 20_000);
    second.stop();
    client.close();
    expect(watchErrors).toEqual([]);
    expect(received.map((e) => e.rv)).toEqual(written);
    expect(received.every((e) => e.type === 'ADDED')).toBe(true);
    const revs = received.map((e) => Number(e.rv));
    expect(revs).toEqual([...revs].sort((a, b) => a - b));
  }, 120_000);
});
