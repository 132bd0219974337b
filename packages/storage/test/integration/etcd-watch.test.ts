import type { KubeObject } from '@cluster/apimachinery';
import type { Etcd3 } from 'etcd3';
import { newEtcdClient } from '../../src/etcd3/client.js';
import { EtcdKvClient } from '../../src/etcd3/kv-client.js';
import { EtcdWatchClient } from '../../src/etcd3/watch-client.js';
import { RawWatch, type RawWatchEvent } from '../../src/etcd3/raw-watch.js';
import { Etcd3Store } from '../../src/etcd3/store.js';
import { isStorageError } from '../../src/errors.js';
import { cm, collect, privateEtcd, sleep, summary } from './watch-helpers.js';

// Direct (uncached) watches and the raw etcd watch under them. The compaction test runs last:
// it compacts this file's etcd.
const T = 20_000;
let stopEtcd: () => Promise<void>;
let client: Etcd3;
let store: Etcd3Store;
let lean: EtcdWatchClient;
const ac = new AbortController();
const P = '/registry/core/configmaps/';
const key = (ns: string, name: string): string => `${P}${ns}/${name}`;

beforeAll(async () => {
  const p = await privateEtcd();
  stopEtcd = p.stop;
  client = newEtcdClient([p.etcd.endpoint]);
  lean = new EtcdWatchClient(new EtcdKvClient([p.etcd.endpoint]));
  // The server's setup: raw watches on the lean Watch client.
  store = new Etcd3Store(client, { watch: lean });
}, T);
afterAll(async () => {
  ac.abort();
  await store.close();
  await stopEtcd();
}, T);

function recorder(): {
  events: RawWatchEvent[];
  progress: number[];
  compacted: number[];
  handlers: ConstructorParameters<typeof RawWatch>[3];
} {
  const r = { events: [] as RawWatchEvent[], progress: [] as number[], compacted: [] as number[] };
  return {
    ...r,
    handlers: {
      onEvents: (evs) => r.events.push(...evs),
      onProgress: (rev) => r.progress.push(rev),
      onCompacted: (rev) => r.compacted.push(rev),
    },
  };
}

async function until(cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond() && Date.now() < deadline) await sleep(20);
}

describe('RawWatch', () => {
  test.each([
    ['the etcd3 client', () => client.watchClient],
    ['the lean Watch client', () => lean],
  ])('on %s: delivers puts and deletes in revision order with kv and prev_kv, and progress notifications', async (name, source) => {
    const run = name.includes('lean') ? 'lean' : 'etcd3';
    const start = (await store.currentRevision()) + 1;
    const a = await store.create(key('raw', 'a'), cm('raw', 'a'));
    const a2 = await store.guaranteedUpdate(key('raw', 'a'), (o) => ({ ...o!, data: { v: '2' } }), { ignoreNotFound: false });
    await store.delete(key('raw', 'a'));
    await store.create(`/registry/core/configmapsx/raw/b-${run}`, cm('raw', 'b')); // outside the prefix
    const rec = recorder();
    const w = new RawWatch(source(), `${P}raw/`, start, rec.handlers);
    try {
      await until(() => rec.events.length >= 3, 3_000);
      expect(rec.events.map((e) => [e.type, e.key, e.revision])).toEqual([
        ['put', key('raw', 'a'), Number(a.metadata.resourceVersion)],
        ['put', key('raw', 'a'), Number(a2.metadata.resourceVersion)],
        ['delete', key('raw', 'a'), Number(a2.metadata.resourceVersion) + 1],
      ]);
      expect(rec.events[0]?.prevKv).toBeUndefined();
      expect(JSON.parse(rec.events[1]!.prevKv!.value.toString())).toMatchObject({ metadata: { name: 'a' } });
      expect(rec.events[2]?.prevKv?.mod_revision).toBe(a2.metadata.resourceVersion);
      expect(w.resumeRevision).toBe(Number(a2.metadata.resourceVersion) + 2);
      // etcd runs with a 5 s progress-notify interval.
      await until(() => rec.progress.length > 0, 12_000);
      expect(rec.progress[0]).toBeGreaterThanOrEqual(Number(a2.metadata.resourceVersion) + 1);
    } finally {
      await w.close();
    }
    await store.create(key('raw', `after-close-${run}`), cm('raw', 'after-close'));
    await sleep(200);
    expect(rec.events).toHaveLength(3);
  }, T);
});

describe('Etcd3Store.watch (uncached)', () => {
  test('from "" sends the current state, then changes; from N only the changes after N', async () => {
    const a = await store.create(key('d', 'a'), cm('d', 'a'));
    const w = await store.watch(`${P}d/`, { resourceVersion: '', signal: ac.signal });
    const b = await store.create(key('d', 'b'), cm('d', 'b'));
    const a2 = await store.guaranteedUpdate(key('d', 'a'), (o) => ({ ...o!, data: { v: '2' } }), { ignoreNotFound: false });
    await store.delete(key('d', 'b'));
    const events = await collect(w, 4);
    expect(summary(events).slice(0, 3)).toEqual([
      ['ADDED', 'a', a.metadata.resourceVersion],
      ['ADDED', 'b', b.metadata.resourceVersion],
      ['MODIFIED', 'a', a2.metadata.resourceVersion],
    ]);
    expect(events[3]).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'b', resourceVersion: String(Number(a2.metadata.resourceVersion) + 1) } } });

    const replay = await collect(await store.watch(`${P}d/`, { resourceVersion: b.metadata.resourceVersion!, signal: ac.signal }), 3, 1_000);
    expect(summary(replay).map(([t, name]) => [t, name])).toEqual([
      ['MODIFIED', 'a'],
      ['DELETED', 'b'],
    ]);
  }, T);

  test('predicates turn label changes into ADDED / DELETED', async () => {
    await store.create(key('p', 'a'), cm('p', 'a', {}, { on: 'no' }));
    const on = (o: KubeObject): boolean => o.metadata.labels?.['on'] === 'yes';
    const w = await store.watch(`${P}p/`, { resourceVersion: '0', predicate: on, signal: ac.signal });
    const set = (v: string): Promise<KubeObject> =>
      store.guaranteedUpdate(key('p', 'a'), (o) => ({ ...o!, metadata: { ...o!.metadata, labels: { on: v } } }), { ignoreNotFound: false });
    await set('yes');
    await set('no');
    expect(summary(await collect(w, 3, 1_000)).map(([t]) => t)).toEqual(['ADDED', 'DELETED']);
  }, T);

  test('a future revision is TooLargeResourceVersion after the wait; a bad one InvalidError', async () => {
    const current = await store.currentRevision();
    let err: unknown;
    await store.watch(P, { resourceVersion: String(current + 100), signal: ac.signal }).catch((e: unknown) => (err = e));
    expect(isStorageError(err, 'TooLargeResourceVersion')).toBe(true);
    expect((err as { currentRevision: number }).currentRevision).toBeGreaterThanOrEqual(current);
    await expect(store.watch(P, { resourceVersion: '-1', signal: ac.signal })).rejects.toThrow('invalid resource version: -1');
  }, T);

  test('counts its etcd watch streams', async () => {
    const own = new AbortController();
    const before = store.etcdWatchCount;
    await store.watch(P, { resourceVersion: '', signal: own.signal });
    await store.watch(P, { resourceVersion: '', signal: own.signal });
    expect(store.etcdWatchCount).toBe(before + 2);
    own.abort();
    expect(store.etcdWatchCount).toBe(before);
  }, T);

  test('after a compaction: a compacted start revision is 410, and the raw watch reports compact_revision', async () => {
    const old = await store.create(key('c', 'a'), cm('c', 'a'));
    await store.create(key('c', 'b'), cm('c', 'b'));
    const live = await store.watch(`${P}c/`, { resourceVersion: old.metadata.resourceVersion!, signal: ac.signal });
    const now = await store.currentRevision();
    await client.kv.compact({ revision: now });
    let err: unknown;
    await store.watch(`${P}c/`, { resourceVersion: old.metadata.resourceVersion!, signal: ac.signal }).catch((e: unknown) => (err = e));
    expect(isStorageError(err, 'Compacted')).toBe(true);
    expect((err as Error).message).toBe('The resourceVersion for the provided watch is too old.');

    const rec = recorder();
    const before = store.etcdWatchCount;
    store.openRawWatch(`${P}c/`, Number(old.metadata.resourceVersion), rec.handlers);
    await until(() => rec.compacted.length > 0, 3_000);
    expect(rec.compacted).toEqual([now]);
    expect(rec.events).toEqual([]);
    // A compacted watch is over, and no longer counted.
    expect(store.etcdWatchCount).toBe(before);
    // A watch that was already streaming is not affected by the compaction.
    await store.create(key('c', 'd'), cm('c', 'd'));
    expect(summary(await collect(live, 2)).map(([t, name]) => [t, name])).toEqual([
      ['ADDED', 'b'],
      ['ADDED', 'd'],
    ]);
  }, T);
});
