import type { KubeObject } from '@cluster/apimachinery';
import type { Etcd3 } from 'etcd3';
import { CachedStore, type CachedStoreOptions } from '../../src/cacher/index.js';
import { newEtcdClient } from '../../src/etcd3/client.js';
import { Etcd3Store } from '../../src/etcd3/store.js';
import { isStorageError } from '../../src/errors.js';
import type { ListResult } from '../../src/interfaces.js';
import { cm, privateEtcd, sleep } from './watch-helpers.js';

// Most-recent lists and their pages served from the watch cache (ConsistentListFromCache,
// ListFromCacheSnapshot): the answers must be those an etcd range gives (SPEC 4.4).

const T = 20_000;
let stopEtcd: () => Promise<void>;
let endpoint: string;
let client: Etcd3;
let etcd: Etcd3Store;
let n = 0;
const stores: CachedStore[] = [];

const resource = (): string => `/registry/core/lists${++n}/`;
const create = (res: string, name: string, data: Record<string, string> = {}): Promise<KubeObject> =>
  etcd.create(`${res}ns/${name}`, cm('ns', name, data));
const names = (items: KubeObject[]): string[] => items.map((o) => o.metadata.name ?? '');

/** A store whose etcd reads of lists are counted, so a test can tell which source answered. */
function newStore(opts: CachedStoreOptions = {}): { store: CachedStore; etcdLists: () => number } {
  const main = new Etcd3Store(newEtcdClient([endpoint]));
  let lists = 0;
  const getList = main.getList.bind(main);
  main.getList = (...args) => {
    lists++;
    return getList(...args);
  };
  // 'auto': etcd 3.4.23 (the test etcd) predates the progress fixes, so these caches never ask for
  // progress (forcing it shows the very bug: a progress answer ahead of a write's event) and
  // prove themselves current by counting instead.
  const store = new CachedStore(main, opts);
  stores.push(store);
  return { store, etcdLists: () => lists };
}

async function ready(store: CachedStore, res: string): Promise<void> {
  await store.cacherFor(res)!.waitReady();
}

beforeAll(async () => {
  const p = await privateEtcd();
  stopEtcd = p.stop;
  endpoint = p.etcd.endpoint;
  client = newEtcdClient([endpoint]);
  etcd = new Etcd3Store(client);
}, T);
afterAll(async () => {
  for (const s of stores) await s.close();
  await etcd.close();
  await stopEtcd();
}, T);

describe('most-recent list from the watch cache', () => {
  test('sees a write completed just before it (linearizable), without an etcd range', async () => {
    const res = resource();
    const { store, etcdLists } = newStore();
    await create(res, 'a');
    await ready(store, res);
    for (let i = 0; i < 5; i++) {
      const written = await create(res, `b${i}`);
      const list = await store.getList(`${res}ns/`);
      expect(names(list.items)).toContain(`b${i}`);
      expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(Number(written.metadata.resourceVersion));
    }
    expect(etcdLists()).toBe(0);
  }, T);

  test('an idle cache is shown current when only other keys were written', async () => {
    const res = resource();
    const { store, etcdLists } = newStore();
    await create(res, 'a');
    await ready(store, res);
    // Writes elsewhere move etcd's revision; this cache hears nothing of them.
    const other = await create(resource(), 'x');
    const list = await store.getList(`${res}ns/`);
    expect(names(list.items)).toEqual(['a']);
    expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(Number(other.metadata.resourceVersion));
    expect(etcdLists()).toBe(0);
  }, T);

  test('with progress requests off, an idle cache is shown current by counting (writes elsewhere) and answers at etcd\'s revision', async () => {
    const res = resource();
    const { store, etcdLists } = newStore({ progressRequests: 'never' });
    await create(res, 'a');
    await ready(store, res);
    const other = await create(resource(), 'x');
    const list = await store.getList(`${res}ns/`);
    expect(names(list.items)).toEqual(['a']);
    expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(Number(other.metadata.resourceVersion));
    expect(etcdLists()).toBe(0);
    // Pages too: the token's revision is the counted one, and the next page comes from the snapshot.
    const first = await store.getList(`${res}ns/`, { limit: 1 });
    expect(first.continueToken).toBeUndefined();
    await create(res, 'b');
    const paged = await store.getList(`${res}ns/`, { limit: 1 });
    const rest = await store.getList(`${res}ns/`, { limit: 1, continueToken: paged.continueToken! });
    expect([...names(paged.items), ...names(rest.items)]).toEqual(['a', 'b']);
    expect(rest.resourceVersion).toBe(paged.resourceVersion);
    expect(etcdLists()).toBe(0);
  }, T);
});

describe('ConsistentListFromCache off', () => {
  test('most-recent lists and their pages go to etcd', async () => {
    const res = resource();
    const { store, etcdLists } = newStore({ consistentListFromCache: false });
    for (const x of ['a', 'b']) await create(res, x);
    await ready(store, res);
    const first = await store.getList(`${res}ns/`, { limit: 1 });
    await store.getList(`${res}ns/`, { limit: 1, continueToken: first.continueToken! });
    expect(etcdLists()).toBe(2);
  }, T);
});

/** Each cached page equals etcd's page for the same token, at the first page's revision. */
function expectPagesAsEtcd(first: ListResult, pairs: ReadonlyArray<readonly [ListResult, ListResult]>): void {
  for (const [cached, fromEtcd] of pairs) {
    expect(cached.resourceVersion).toBe(first.resourceVersion);
    expect(cached.items).toEqual(fromEtcd.items);
    expect(cached.remainingItemCount).toBe(fromEtcd.remainingItemCount);
    expect(cached.continueToken).toBe(fromEtcd.continueToken);
  }
}

describe('paged most-recent lists from cache snapshots', () => {
  test('later pages return the state at the first page revision after later writes, as etcd would', async () => {
    const res = resource();
    const { store, etcdLists } = newStore();
    for (const x of ['p0', 'p1', 'p2', 'p3', 'p4']) await create(res, x, { v: 'old' });
    await ready(store, res);
    const first = await store.getList(`${res}ns/`, { limit: 2 });
    expect(names(first.items)).toEqual(['p0', 'p1']);
    expect(first.remainingItemCount).toBe(3);
    expect(first.continueToken).toBeTruthy();

    await create(res, 'p5');
    await etcd.delete(`${res}ns/p3`);
    await etcd.guaranteedUpdate(`${res}ns/p2`, (cur) => ({ ...cur!, data: { v: 'new' } }), { ignoreNotFound: false });

    const second = await store.getList(`${res}ns/`, { limit: 2, continueToken: first.continueToken! });
    const third = await store.getList(`${res}ns/`, { limit: 2, continueToken: second.continueToken! });
    expect(etcdLists()).toBe(0);
    // The same pages straight from etcd at that revision.
    const secondEtcd = await etcd.getList(`${res}ns/`, { limit: 2, continueToken: first.continueToken! });
    const thirdEtcd = await etcd.getList(`${res}ns/`, { limit: 2, continueToken: secondEtcd.continueToken! });
    expectPagesAsEtcd(first, [
      [second, secondEtcd],
      [third, thirdEtcd],
    ]);
    expect(names(second.items)).toEqual(['p2', 'p3']);
    expect(second.items[0]!.data).toEqual({ v: 'old' });
    expect(names(third.items)).toEqual(['p4']);
    expect(third.continueToken).toBeUndefined();
  }, T);

  test('a selector fills pages up to the limit and reports no remainingItemCount', async () => {
    const res = resource();
    const { store } = newStore();
    for (let i = 0; i < 6; i++) await create(res, `s${i}`);
    await ready(store, res);
    const predicate = (o: KubeObject): boolean => Number((o.metadata.name ?? '').slice(1)) % 2 === 0;
    const first = await store.getList(`${res}ns/`, { limit: 2, predicate, hasSelector: true });
    expect(names(first.items)).toEqual(['s0', 's2']);
    expect(first.remainingItemCount).toBeUndefined();
    const fromEtcd = await etcd.getList(`${res}ns/`, { limit: 2, predicate, hasSelector: true, resourceVersion: first.resourceVersion });
    expect(first.continueToken).toBe(fromEtcd.continueToken);
    const rest = await store.getList(`${res}ns/`, { limit: 2, predicate, hasSelector: true, continueToken: first.continueToken! });
    expect(names(rest.items)).toEqual(['s4']);
  }, T);

  test('without a kept snapshot (another worker\'s first page) the next page comes from this cache\'s own history at the token revision', async () => {
    const res = resource();
    const { store } = newStore();
    const other = newStore();
    for (const x of ['a', 'b', 'c']) await create(res, x, { v: 'old' });
    await ready(store, res);
    await ready(other.store, res);
    const first = await store.getList(`${res}ns/`, { limit: 1 });
    await create(res, 'a0');
    await etcd.delete(`${res}ns/c`);
    const updated = await etcd.guaranteedUpdate(`${res}ns/b`, (cur) => ({ ...cur!, data: { v: 'new' } }), { ignoreNotFound: false });
    const cacher = other.store.cacherFor(res)!;
    while (cacher.revision < Number(updated.metadata.resourceVersion)) await sleep(5);
    const before = other.etcdLists();
    const second = await other.store.getList(`${res}ns/`, { limit: 1, continueToken: first.continueToken! });
    const third = await other.store.getList(`${res}ns/`, { limit: 1, continueToken: second.continueToken! });
    expect(other.etcdLists()).toBe(before);
    const secondEtcd = await etcd.getList(`${res}ns/`, { limit: 1, continueToken: first.continueToken! });
    const thirdEtcd = await etcd.getList(`${res}ns/`, { limit: 1, continueToken: secondEtcd.continueToken! });
    expectPagesAsEtcd(first, [
      [second, secondEtcd],
      [third, thirdEtcd],
    ]);
    expect(names(second.items)).toEqual(['b']);
    expect(second.items[0]!.data).toEqual({ v: 'old' });
    expect(names(third.items)).toEqual(['c']);
  }, T);

  test('a cache behind the token revision serves the page when nothing under the prefix changed up to it', async () => {
    const res = resource();
    const { store } = newStore();
    const other = newStore();
    for (const x of ['a', 'b', 'c']) await create(res, x);
    await ready(store, res);
    await ready(other.store, res);
    // etcd moves on elsewhere: the first page is proven current at etcd's revision, ahead of both caches.
    await etcd.create(`/registry/core/elsewhere${n}/x`, cm('ns', 'x'));
    const first = await store.getList(`${res}ns/`, { limit: 1 });
    expect(Number(first.resourceVersion)).toBeGreaterThan(other.store.cacherFor(res)!.revision);
    const before = other.etcdLists();
    const second = await other.store.getList(`${res}ns/`, { limit: 1, continueToken: first.continueToken! });
    expect(other.etcdLists()).toBe(before);
    expect(second.resourceVersion).toBe(first.resourceVersion);
    expect(names(second.items)).toEqual(['b']);
    const fromEtcd = await etcd.getList(`${res}ns/`, { limit: 1, continueToken: first.continueToken! });
    expect(second.continueToken).toBe(fromEtcd.continueToken);
  }, T);

  test('when the cache cannot reach back to the token revision (listed after it) the next page is read from etcd', async () => {
    const res = resource();
    const { store } = newStore();
    for (const x of ['a', 'b', 'c']) await create(res, x, { v: 'old' });
    await ready(store, res);
    const first = await store.getList(`${res}ns/`, { limit: 1 });
    await etcd.guaranteedUpdate(`${res}ns/b`, (cur) => ({ ...cur!, data: { v: 'new' } }), { ignoreNotFound: false });
    const other = newStore();
    await ready(other.store, res);
    const before = other.etcdLists();
    const second = await other.store.getList(`${res}ns/`, { limit: 1, continueToken: first.continueToken! });
    expect(other.etcdLists()).toBe(before + 1);
    expect(second.resourceVersion).toBe(first.resourceVersion);
    expect(names(second.items)).toEqual(['b']);
    expect(second.items[0]!.data).toEqual({ v: 'old' });
  }, T);

  // Last: compaction makes older revisions of this etcd unreadable.
  test('a token whose revision etcd compacted is 410 Expired even while its snapshot is kept', async () => {
    const res = resource();
    const { store, etcdLists } = newStore();
    for (const x of ['a', 'b', 'c']) await create(res, x);
    await ready(store, res);
    const first = await store.getList(`${res}ns/`, { limit: 1 });
    expect(etcdLists()).toBe(0);
    const last = await create(res, 'd');
    await client.kv.compact({ revision: last.metadata.resourceVersion!, physical: true });
    const err = await store.getList(`${res}ns/`, { limit: 1, continueToken: first.continueToken! }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isStorageError(err, 'Compacted')).toBe(true);
    // The token to go on inconsistently, as the etcd path hands out.
    const goOn = (err as { continueToken?: string }).continueToken;
    expect(goOn).toBeTruthy();
    const rest = await store.getList(`${res}ns/`, { limit: 10, continueToken: goOn! });
    expect(names(rest.items)).toEqual(['b', 'c', 'd']);
  }, T);
});
