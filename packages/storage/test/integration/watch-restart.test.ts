import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CachedStore } from '../../src/cacher/index.js';
import { freePort, startEtcd, type EtcdProcess } from '../../src/etcd-process/index.js';
import { newEtcdClient } from '../../src/etcd3/client.js';
import { EtcdKvClient } from '../../src/etcd3/kv-client.js';
import { EtcdWatchClient } from '../../src/etcd3/watch-client.js';
import { Etcd3Store } from '../../src/etcd3/store.js';
import { cm, collect, summary } from './watch-helpers.js';

const T = 30_000;
let dir: string;
let etcd: EtcdProcess;
let ports: { clientPort: number; peerPort: number };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'storage-restart-'));
  ports = { clientPort: await freePort(), peerPort: await freePort() };
  etcd = await startEtcd({ dataDir: join(dir, 'etcd'), ...ports });
}, T);
afterAll(async () => {
  await etcd.stop();
  await rm(dir, { recursive: true, force: true });
}, T);

test('a cached watch resumes after an etcd restart without missing or repeating events', async () => {
  const logs: string[] = [];
  const writer = new Etcd3Store(newEtcdClient([etcd.endpoint]));
  const store = new CachedStore(
    new Etcd3Store(newEtcdClient([etcd.endpoint]), {
      watch: new EtcdWatchClient(new EtcdKvClient([etcd.endpoint])),
      rawWatch: { minBackoffMs: 50, maxBackoffMs: 500 },
      log: (m) => logs.push(m),
    }),
  );
  const ac = new AbortController();
  try {
    const P = '/registry/core/configmaps/';
    const a = await writer.create(`${P}ns/a`, cm('ns', 'a'));
    const w = await store.watch(P, { resourceVersion: a.metadata.resourceVersion!, signal: ac.signal });
    const b = await writer.create(`${P}ns/b`, cm('ns', 'b'));
    expect(summary(await collect(w, 1))).toEqual([['ADDED', 'b', b.metadata.resourceVersion]]);

    await etcd.stop();
    etcd = await startEtcd({ dataDir: join(dir, 'etcd'), ...ports });
    // The writer's own client may need a moment to reconnect too.
    let c;
    for (let i = 0; ; i++) {
      try {
        c = await writer.create(`${P}ns/c`, cm('ns', 'c'));
        break;
      } catch (e) {
        if (i > 50) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const d = await writer.create(`${P}ns/d`, cm('ns', 'd'));
    expect(summary(await collect(w, 2, 15_000))).toEqual([
      ['ADDED', 'c', c.metadata.resourceVersion],
      ['ADDED', 'd', d.metadata.resourceVersion],
    ]);
    expect(await collect(w, 1, 300)).toEqual([]);
    expect(logs.some((l) => l.includes('reconnecting'))).toBe(true);
    expect(store.etcdWatchCount).toBe(1);
  } finally {
    ac.abort();
    await store.close();
    await writer.close();
  }
}, T);
