import type { KubeObject } from '@cluster/apimachinery';
import type { Etcd3 } from 'etcd3';
import { CachedStore, type CachedStoreOptions } from '../../src/cacher/index.js';
import { newEtcdClient } from '../../src/etcd3/client.js';
import { Etcd3Store } from '../../src/etcd3/store.js';
import { isStorageError } from '../../src/errors.js';
import { EtcdKvClient } from '../../src/etcd3/kv-client.js';
import { cm, privateEtcd, sleep } from './watch-helpers.js';
import { pausableProxy, type PausableProxy } from './pausable-proxy.js';

// Most-recent gets (no resourceVersion) served from the watch cache (ConsistentGetFromCache), with
// concurrent reads sharing etcd's revision reads: answers must be those an etcd get gives.

const T = 20_000;
let stopEtcd: () => Promise<void>;
let endpoint: string;
let client: Etcd3;
let etcd: Etcd3Store;
let n = 0;
const stores: CachedStore[] = [];
const proxies: PausableProxy[] = [];

const resource = (): string => `/registry/core/gets${++n}/`;
const create = (res: string, name: string, data: Record<string, string> = {}): Promise<KubeObject> =>
  etcd.create(`${res}ns/${name}`, cm('ns', name, data));

/** A store whose etcd gets are counted, so a test can tell which source answered. */
function newStore(opts: CachedStoreOptions = {}): { store: CachedStore; main: Etcd3Store; etcdGets: () => number } {
  const main = new Etcd3Store(newEtcdClient([endpoint]));
  let gets = 0;
  const get = main.get.bind(main);
  main.get = (...args) => {
    gets++;
    return get(...args);
  };
  const store = new CachedStore(main, opts);
  stores.push(store);
  return { store, main, etcdGets: () => gets };
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
  for (const p of proxies) await p.close();
  await etcd.close();
  await stopEtcd();
}, T);

describe('most-recent get from the watch cache', () => {
  test('sees a write completed just before it (made through another store), without an etcd get', async () => {
    const res = resource();
    const { store, etcdGets } = newStore();
    await create(res, 'a');
    await store.cacherFor(res)!.waitReady();
    for (let i = 0; i < 5; i++) {
      const written = await etcd.guaranteedUpdate(`${res}ns/a`, (cur) => ({ ...cur!, data: { v: String(i) } }), { ignoreNotFound: false });
      const got = await store.get(`${res}ns/a`);
      expect(got.data).toEqual({ v: String(i) });
      expect(got.metadata.resourceVersion).toBe(written.metadata.resourceVersion);
    }
    expect(etcdGets()).toBe(0);
  }, T);

  test('a key that does not exist (or was just deleted) is KeyNotFound, from the cache', async () => {
    const res = resource();
    const { store, etcdGets } = newStore();
    await create(res, 'a');
    await store.cacherFor(res)!.waitReady();
    await etcd.delete(`${res}ns/a`);
    for (const key of [`${res}ns/a`, `${res}ns/never`]) {
      const err = await store.get(key).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isStorageError(err, 'KeyNotFound')).toBe(true);
    }
    expect(etcdGets()).toBe(0);
  }, T);

  test('while the cache is not ready the get goes to etcd', async () => {
    const res = resource();
    await create(res, 'a', { v: '1' });
    const { store, etcdGets } = newStore();
    // The first get starts the resource's cache; it cannot have listed yet.
    const got = await store.get(`${res}ns/a`);
    expect(got.data).toEqual({ v: '1' });
    expect(etcdGets()).toBe(1);
  }, T);

  test('concurrent gets share etcd revision reads: 50 gets, at most 2 revision reads', async () => {
    const res = resource();
    const { store, main } = newStore();
    for (let i = 0; i < 5; i++) await create(res, `c${i}`, { v: String(i) });
    await store.cacherFor(res)!.waitReady();
    const before = main.revisionReadsSent;
    const got = await Promise.all(Array.from({ length: 50 }, (_, i) => store.get(`${res}ns/c${i % 5}`)));
    expect(got.map((o) => (o.data as Record<string, string> | undefined)?.['v'])).toEqual(Array.from({ length: 50 }, (_, i) => String(i % 5)));
    // The first read sends at once; the 49 arriving while it is in flight share the next one.
    expect(main.revisionReadsSent - before).toBeLessThanOrEqual(2);
    expect(main.revisionReadsSent - before).toBeGreaterThanOrEqual(1);
  }, T);

  test('an explicit resourceVersion (not 0) still reads etcd', async () => {
    const res = resource();
    const { store, etcdGets } = newStore();
    const written = await create(res, 'a');
    await store.cacherFor(res)!.waitReady();
    await store.get(`${res}ns/a`, { resourceVersion: written.metadata.resourceVersion! });
    expect(etcdGets()).toBe(1);
  }, T);
});

describe('ConsistentGetFromCache off', () => {
  test('most-recent gets go to etcd', async () => {
    const res = resource();
    const { store, etcdGets } = newStore({ consistentGetFromCache: false });
    await create(res, 'a');
    await store.cacherFor(res)!.waitReady();
    await store.get(`${res}ns/a`);
    await store.get(`${res}ns/a`);
    expect(etcdGets()).toBe(2);
  }, T);
});

describe('shared revision reads stay linearizable', () => {
  test('a get arriving after a write was acknowledged does not take a revision read etcd answered before that write', async () => {
    const res = resource();
    const key = `${res}ns/k`;
    // The cache's etcd traffic goes through proxies, so the test can hold etcd's answers back:
    // ranges (revision reads, counts) through one, the cache's watch through the other.
    const kvProxy = await pausableProxy(endpoint);
    const watchProxy = await pausableProxy(endpoint);
    proxies.push(kvProxy, watchProxy);
    const source = new Etcd3Store(newEtcdClient([watchProxy.endpoint]), { kv: new EtcdKvClient([kvProxy.endpoint]) });
    const { store } = newStore({ cacheSource: source });
    await create(res, 'k', { v: 'old' });
    await store.cacherFor(res)!.waitReady();
    expect((await store.get(key)).data).toEqual({ v: 'old' });

    kvProxy.pause();
    watchProxy.pause();
    // A revision read is sent and answered by etcd; its answer is held on the way back.
    const early = source.currentRevision();
    for (let i = 0; i < 200 && kvProxy.heldBytes === 0; i++) await sleep(5);
    expect(kvProxy.heldBytes).toBeGreaterThan(0);
    // A write is acknowledged after that answer; then a get arrives, while the early read is
    // still in flight. It must wait for a revision read sent after it arrived.
    const written = await etcd.guaranteedUpdate(key, (cur) => ({ ...cur!, data: { v: 'new' } }), { ignoreNotFound: false });
    const got = store.get(key);
    kvProxy.resume();
    expect(await early).toBeLessThan(Number(written.metadata.resourceVersion));
    // The cache hears of the write a little later still.
    await sleep(50);
    watchProxy.resume();
    const obj = await got;
    expect(obj.data).toEqual({ v: 'new' });
    expect(obj.metadata.resourceVersion).toBe(written.metadata.resourceVersion);
  }, T);
});
