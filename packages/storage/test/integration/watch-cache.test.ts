import type { KubeObject } from '@cluster/apimachinery';
import type { Etcd3 } from 'etcd3';
import { setMaxListeners } from 'node:events';
import { CachedStore, type CachedStoreOptions } from '../../src/cacher/index.js';
import { newEtcdClient } from '../../src/etcd3/client.js';
import { EtcdKvClient } from '../../src/etcd3/kv-client.js';
import { EtcdWatchClient } from '../../src/etcd3/watch-client.js';
import { RecentWrites } from '../../src/etcd3/recent-writes.js';
import { Etcd3Store } from '../../src/etcd3/store.js';
import { isStorageError } from '../../src/errors.js';
import type { WatchEvent } from '../../src/interfaces.js';
import { cm, collect, privateEtcd, sleep, summary } from './watch-helpers.js';

const T = 20_000;
let stopEtcd: () => Promise<void>;
let client: Etcd3;
let etcd: Etcd3Store;
let store: CachedStore;
let n = 0;
const stores: CachedStore[] = [];
const ac = new AbortController();
// Every watch of this file shares one signal.
setMaxListeners(0, ac.signal);

/** A fresh resource prefix per test, so that each test has its own cacher. */
const resource = (): string => `/registry/core/things${++n}/`;
const key = (res: string, ns: string, name: string): string => `${res}${ns}/${name}`;
const create = (res: string, ns: string, name: string, labels?: Record<string, string>): Promise<KubeObject> =>
  etcd.create(key(res, ns, name), cm(ns, name, {}, labels));
const update = (res: string, ns: string, name: string, fn: (o: KubeObject) => KubeObject): Promise<KubeObject> =>
  etcd.guaranteedUpdate(key(res, ns, name), (cur) => fn(structuredClone(cur!)), { ignoreNotFound: false });

function newStore(opts: CachedStoreOptions = {}): CachedStore {
  // The server's setup: the cache's etcd watches on the lean Watch client.
  const s = new CachedStore(new Etcd3Store(newEtcdClient([endpoint]), { watch: new EtcdWatchClient(new EtcdKvClient([endpoint])) }), {
    waitTimeoutMs: 500,
    bookmarkIntervalMs: 200,
    ...opts,
  });
  stores.push(s);
  return s;
}
let endpoint: string;

beforeAll(async () => {
  const p = await privateEtcd();
  stopEtcd = p.stop;
  endpoint = p.etcd.endpoint;
  client = newEtcdClient([endpoint]);
  etcd = new Etcd3Store(client);
  store = newStore({ watcherBufferSize: 10, slowBudgetMs: 100 });
}, T);
afterAll(async () => {
  ac.abort();
  for (const s of stores) await s.close();
  await etcd.close();
  await stopEtcd();
}, T);

describe('CachedStore watch', () => {
  test('from "" sends ADDED for existing objects, then live changes in order with increasing resourceVersions', async () => {
    const res = resource();
    const a = await create(res, 'ns', 'a');
    const b = await create(res, 'ns', 'b');
    const w = await store.watch(res, { resourceVersion: '', signal: ac.signal });
    const a2 = await update(res, 'ns', 'a', (o) => ({ ...o, data: { x: '1' } }));
    const c = await create(res, 'ns', 'c');
    await etcd.delete(key(res, 'ns', 'b'));
    const events = await collect(w, 5);
    expect(summary(events).slice(0, 4)).toEqual([
      ['ADDED', 'a', a.metadata.resourceVersion],
      ['ADDED', 'b', b.metadata.resourceVersion],
      ['MODIFIED', 'a', a2.metadata.resourceVersion],
      ['ADDED', 'c', c.metadata.resourceVersion],
    ]);
    const del = events[4]!;
    expect(del.type).toBe('DELETED');
    // The last state, at the revision of the delete.
    expect(del.object).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns' } });
    expect(Number(del.object.metadata.resourceVersion)).toBeGreaterThan(Number(c.metadata.resourceVersion));
    expect(del.revision).toBe(Number(del.object.metadata.resourceVersion));
    const live = events.slice(2).map((e) => Number(e.object.metadata.resourceVersion));
    expect([...live].sort((x, y) => x - y)).toEqual(live);
    expect(new Set(live).size).toBe(live.length);
  }, T);

  test('from "0" sends the cached state, then live changes', async () => {
    const res = resource();
    await create(res, 'ns', 'a');
    await store.getList(res, { resourceVersion: '0' }); // starts the cacher
    const w = await store.watch(res, { resourceVersion: '0', signal: ac.signal });
    await create(res, 'ns', 'b');
    expect(summary(await collect(w, 2)).map(([t, name]) => [t, name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
  }, T);

  test('from N replays exactly the changes after N, without synthetic events', async () => {
    const res = resource();
    const first = await create(res, 'ns', 'a');
    await store.watch(res, { resourceVersion: '0', signal: ac.signal }); // the cacher now follows the resource
    const b = await create(res, 'ns', 'b');
    const a2 = await update(res, 'ns', 'a', (o) => ({ ...o, data: { v: '2' } }));
    await etcd.delete(key(res, 'ns', 'b'));
    const events = await collect(await store.watch(res, { resourceVersion: first.metadata.resourceVersion!, signal: ac.signal }), 4, 1_000);
    expect(summary(events).map(([t, name]) => [t, name])).toEqual([
      ['ADDED', 'b'],
      ['MODIFIED', 'a'],
      ['DELETED', 'b'],
    ]);
    const fromB = await collect(await store.watch(res, { resourceVersion: b.metadata.resourceVersion!, signal: ac.signal }), 3, 1_000);
    expect(summary(fromB).map(([t, name, rv]) => [t, name, t === 'MODIFIED' ? rv : '-'])).toEqual([
      ['MODIFIED', 'a', a2.metadata.resourceVersion],
      ['DELETED', 'b', '-'],
    ]);
  }, T);

  test('a watch from the revision of an etcd list works on a cacher started by it', async () => {
    const res = resource();
    await create(res, 'ns', 'a');
    const list = await store.getList(res); // most recent: from etcd
    await create(res, 'ns', 'b');
    const w = await store.watch(res, { resourceVersion: list.resourceVersion, signal: ac.signal });
    expect(summary(await collect(w, 1)).map(([t, name]) => [t, name])).toEqual([['ADDED', 'b']]);
  }, T);

  test('a revision older than the window is 410 (Compacted) before any event', async () => {
    const s = newStore({ windowMs: 300 });
    const res = resource();
    const a = await create(res, 'ns', 'a');
    await s.watch(res, { resourceVersion: '0', signal: ac.signal });
    await create(res, 'ns', 'b');
    await sleep(500);
    const c = await create(res, 'ns', 'c'); // applying it evicts the old events
    await sleep(100);
    let err: unknown;
    await s.watch(res, { resourceVersion: a.metadata.resourceVersion!, signal: ac.signal }).catch((e: unknown) => (err = e));
    expect(isStorageError(err, 'Compacted')).toBe(true);
    expect((err as Error).message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
    // A revision inside the window still works.
    const w = await s.watch(res, { resourceVersion: c.metadata.resourceVersion!, signal: ac.signal });
    await create(res, 'ns', 'd');
    expect(summary(await collect(w, 1)).map(([t, name]) => [t, name])).toEqual([['ADDED', 'd']]);
  }, T);

  test('a revision newer than etcd waits, then fails with TooLargeResourceVersion', async () => {
    const res = resource();
    const current = await etcd.currentRevision();
    const started = Date.now();
    let err: unknown;
    await store.watch(res, { resourceVersion: String(current + 1000), signal: ac.signal }).catch((e: unknown) => (err = e));
    expect(isStorageError(err, 'TooLargeResourceVersion')).toBe(true);
    expect((err as { currentRevision: number }).currentRevision).toBeGreaterThanOrEqual(current);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    await expect(store.watch(res, { resourceVersion: 'x1', signal: ac.signal })).rejects.toThrow('invalid resource version: x1');
  }, T);

  test('a revision written while waiting is served', async () => {
    const res = resource();
    const current = await etcd.currentRevision();
    const pending = store.watch(res, { resourceVersion: String(current + 1), signal: ac.signal });
    await sleep(100);
    await create(res, 'ns', 'a'); // current + 1
    const b = await create(res, 'ns', 'b');
    expect(summary(await collect(await pending, 1))).toEqual([['ADDED', 'b', b.metadata.resourceVersion]]);
  }, T);

  test('label changes make an object enter (ADDED) and leave (DELETED) a selection', async () => {
    const res = resource();
    await create(res, 'ns', 'a', { color: 'red' });
    const blue = (o: KubeObject): boolean => o.metadata.labels?.['color'] === 'blue';
    const w = await store.watch(res, { resourceVersion: '', predicate: blue, signal: ac.signal });
    const toBlue = await update(res, 'ns', 'a', (o) => ({ ...o, metadata: { ...o.metadata, labels: { color: 'blue' } } }));
    const stillBlue = await update(res, 'ns', 'a', (o) => ({ ...o, data: { k: 'v' } }));
    const toGreen = await update(res, 'ns', 'a', (o) => ({ ...o, metadata: { ...o.metadata, labels: { color: 'green' } } }));
    await update(res, 'ns', 'a', (o) => ({ ...o, data: { k: 'w' } }));
    const events = await collect(w, 4, 1_500);
    expect(summary(events)).toEqual([
      ['ADDED', 'a', toBlue.metadata.resourceVersion],
      ['MODIFIED', 'a', stillBlue.metadata.resourceVersion],
      ['DELETED', 'a', toGreen.metadata.resourceVersion],
    ]);
    // The DELETED shows the last state the watcher was entitled to see.
    expect(events[2]?.object.metadata.labels).toEqual({ color: 'blue' });
  }, T);

  test('a namespace watch sees only its namespace', async () => {
    const res = resource();
    await create(res, 'one', 'a');
    await create(res, 'two', 'b');
    const w = await store.watch(`${res}one/`, { resourceVersion: '', signal: ac.signal });
    await create(res, 'two', 'c');
    await create(res, 'one-more', 'd'); // a namespace whose name starts with "one"
    await create(res, 'one', 'e');
    expect(summary(await collect(w, 3, 1_500)).map(([t, name]) => [t, name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'e'],
    ]);
  }, T);

  test('bookmarks come when allowed (never going back) and never when not', async () => {
    const res = resource();
    await create(res, 'ns', 'a');
    const withBm = await store.watch(`${res}ns/`, { resourceVersion: '', allowBookmarks: true, signal: ac.signal });
    const without = await store.watch(`${res}ns/`, { resourceVersion: '', signal: ac.signal });
    const other = await create(res, 'elsewhere', 'b'); // moves the cache without an event for ns
    const events = await collect(withBm, 3, 1_500);
    expect(events[0]?.type).toBe('ADDED');
    const bookmarks = events.slice(1);
    expect(bookmarks.length).toBeGreaterThanOrEqual(1);
    expect(bookmarks[0]).toEqual({
      type: 'BOOKMARK',
      object: { metadata: { resourceVersion: other.metadata.resourceVersion } },
      revision: Number(other.metadata.resourceVersion),
    });
    const rvs = bookmarks.map((e) => e.revision);
    expect(new Set(rvs).size).toBe(rvs.length);
    expect(summary(await collect(without, 3, 800)).map(([t]) => t)).toEqual(['ADDED']);
  }, T);

  test('a slow watcher is closed with 410 Gone while a fast one keeps receiving', async () => {
    const res = resource();
    const slow = await store.watch(res, { resourceVersion: '', signal: ac.signal });
    const fast = await store.watch(res, { resourceVersion: '', signal: ac.signal });
    const fastEvents: WatchEvent[] = [];
    const reading = (async () => {
      for await (const ev of fast) {
        fastEvents.push(ev);
        if (fastEvents.length === 30) break;
      }
    })();
    // 30 changes in 3 transactions: far over the slow watcher's buffer of 10.
    for (let t = 0; t < 3; t++) {
      await client.kv.txn({
        compare: [],
        success: Array.from({ length: 10 }, (_, i) => ({
          request_put: { key: Buffer.from(key(res, 'ns', `o${t}-${i}`)), value: Buffer.from(JSON.stringify(cm('ns', `o${t}-${i}`))) },
        })),
        failure: [],
      });
    }
    await reading;
    expect(fastEvents.map((e) => e.type)).toEqual(Array(30).fill('ADDED'));
    await sleep(200);
    const slowEvents = await collect(slow, 100, 1_000);
    expect(slowEvents.at(-1)).toMatchObject({
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Gone' },
    });
    expect(slowEvents.length).toBeLessThan(30);
  }, T);

  test('1,000 client watchers on one namespace hold exactly one etcd watch', async () => {
    const gauge: number[] = [];
    const s = newStore({ onEtcdWatchCountChange: (d) => gauge.push(d) });
    const res = resource();
    expect(s.etcdWatchCount).toBe(0);
    const watchers: AsyncIterable<WatchEvent>[] = [];
    for (let i = 0; i < 1000; i++) watchers.push(await s.watch(`${res}team/`, { resourceVersion: '0', signal: ac.signal }));
    expect(s.etcdWatchCount).toBe(1);
    expect(gauge.reduce((x, y) => x + y, 0)).toBe(1);
    expect(s.watcherCount).toBe(1000);
    const created = await create(res, 'team', 'x');
    const got = await Promise.all(watchers.map((w) => collect(w, 1)));
    expect(got.every((evs) => evs[0]?.object.metadata.resourceVersion === created.metadata.resourceVersion)).toBe(true);
    // Every watcher received the very same event object (serialized once upstream of them).
    expect(new Set(got.map((evs) => evs[0])).size).toBe(1);
    await s.close();
    expect(s.etcdWatchCount).toBe(0);
    expect(gauge.reduce((x, y) => x + y, 0)).toBe(0);
  }, T);

  test('the watch ends when its signal aborts', async () => {
    const res = resource();
    const own = new AbortController();
    const w = await store.watch(res, { resourceVersion: '', signal: own.signal });
    const reading = collect(w, 5, 5_000);
    own.abort();
    expect(await reading).toEqual([]);
  }, T);
});

describe('CachedStore reads', () => {
  test("a write of this process reaches its cache as the object written; another writer's is parsed", async () => {
    const recentWrites = new RecentWrites();
    const own = new CachedStore(new Etcd3Store(newEtcdClient([endpoint]), { recentWrites }), {
      cacheSource: new Etcd3Store(newEtcdClient([endpoint]), { watch: new EtcdWatchClient(new EtcdKvClient([endpoint])), recentWrites }),
      waitTimeoutMs: 500,
    });
    stores.push(own);
    const res = resource();
    await own.watch(res, { resourceVersion: '0', signal: ac.signal }); // the cacher is ready now
    const mine = await own.create(key(res, 'ns', 'a'), cm('ns', 'a'));
    // As the registry hands objects over: without resourceVersion (the revision is etcd's).
    const updated = await own.guaranteedUpdate(
      key(res, 'ns', 'a'),
      (cur) => {
        const { resourceVersion: _rv, ...metadata } = cur!.metadata;
        return { ...cur!, metadata, data: { v: '2' } };
      },
      { ignoreNotFound: false },
    );
    const theirs = await create(res, 'ns', 'b');
    const cached = async (name: string): Promise<KubeObject> => {
      for (let i = 0; i < 100; i++) {
        const l = await own.getList(res, { resourceVersion: '0' });
        const o = l.items.find((x) => x.metadata.name === name);
        if (o && o.metadata.resourceVersion === (name === 'a' ? updated : theirs).metadata.resourceVersion) return o;
        await sleep(20);
      }
      throw new Error(`${name} never reached the cache`);
    };
    expect(mine.metadata.resourceVersion).not.toBe(updated.metadata.resourceVersion);
    // The written object itself, or (when the event came before the write's answer) a copy with
    // the event's revision sharing its contents; never a parse of the bytes.
    const a = await cached('a');
    expect(a).toEqual(updated);
    expect(a['data']).toBe(updated['data']);
    const b = await cached('b');
    expect(b).toEqual(theirs);
    expect(b['data']).not.toBe(theirs['data']);
    expect(recentWrites.size).toBe(0);
  }, T);

  test('resourceVersion=0 lists and gets come from the cache; others from etcd', async () => {
    const res = resource();
    await create(res, 'ns', 'a', { app: 'x' });
    await create(res, 'ns', 'b');
    await create(res, 'other', 'c', { app: 'x' });
    const first = await store.getList(res, { resourceVersion: '0' }); // may be served by etcd while the cacher starts
    expect(first.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
    await store.watch(res, { resourceVersion: '0', signal: ac.signal }); // the cacher is ready now
    const cached = await store.getList(`${res}ns/`, {
      resourceVersion: '0',
      limit: 1,
      predicate: (o) => o.metadata.labels?.['app'] === 'x',
    });
    expect(cached.items.map((o) => o.metadata.name)).toEqual(['a']);
    expect(cached.continueToken).toBeUndefined();
    expect((await store.get(key(res, 'ns', 'b'), { resourceVersion: '0' })).metadata.name).toBe('b');
    await expect(store.get(key(res, 'ns', 'zz'), { resourceVersion: '0' })).rejects.toThrow(`key ${key(res, 'ns', 'zz')} not found`);
    const paged = await store.getList(res, { limit: 2 });
    expect(paged.items).toHaveLength(2);
    expect(paged.continueToken).toBeDefined();
  }, T);
});

describe('CachedStore updates', () => {
  /** etcd's count of transactions served so far (its Prometheus endpoint). */
  async function txnCount(): Promise<number> {
    const text = await (await fetch(`${endpoint}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('grpc_server_handled_total{') && l.includes('grpc_method="Txn"') && l.includes('grpc_code="OK"'));
    return line ? Number(line.split(' ').pop()) : 0;
  }

  test('concurrent updates of one key all land, one etcd transaction each, none lost', async () => {
    const res = resource();
    await create(res, 'ns', 'counter');
    await store.watch(res, { resourceVersion: '0', signal: ac.signal }); // the cacher is ready
    const k = key(res, 'ns', 'counter');
    const updates = 24;
    const before = await txnCount();
    const results = await Promise.all(
      Array.from({ length: updates }, () =>
        store.guaranteedUpdate(
          k,
          (cur) => {
            const next = structuredClone(cur!);
            next.data = { n: String(Number((next.data as Record<string, string> | undefined)?.n ?? '0') + 1) };
            return next;
          },
          { ignoreNotFound: false },
        ),
      ),
    );
    const txns = (await txnCount()) - before;
    expect(new Set(results.map((r) => r.metadata.resourceVersion)).size).toBe(updates);
    expect((await etcd.get(k)).data).toEqual({ n: String(updates) });
    // Unqueued, each round of retries costs a transaction for every update still racing.
    expect(txns).toBeLessThanOrEqual(updates + 1);
  }, T);
});

describe('CachedStore cachedGet and cachedList', () => {
  test('answer what a resourceVersion=0 get and list answer once the cache is ready, undefined before', async () => {
    const s = newStore();
    const res = resource();
    await create(res, 'ns', 'a');
    await create(res, 'ns', 'b');
    await create(res, 'other', 'c');
    // No cacher for the resource yet: nothing to answer from (the first call starts it).
    expect(s.cachedGet(key(res, 'ns', 'a'))).toBeUndefined();
    const deadline = Date.now() + 5_000;
    while (s.cachedList(`${res}ns/`) === undefined && Date.now() < deadline) await sleep(20);
    for (const prefix of [`${res}ns/`, `${res}other/`, res, `${res}none/`]) {
      const listed = await s.getList(prefix, { resourceVersion: '0' });
      expect(s.cachedList(prefix)).toEqual(listed.items);
    }
    expect(s.cachedGet(key(res, 'ns', 'a'))).toEqual(await s.get(key(res, 'ns', 'a'), { resourceVersion: '0' }));
    expect(s.cachedGet(key(res, 'ns', 'zz'))).toBeNull();
    expect(s.cachedGet('/elsewhere')).toBeUndefined();
  }, T);
});
