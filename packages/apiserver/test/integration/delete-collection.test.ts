import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Etcd3 } from 'etcd3';
import { newForbidden, type KubeObject } from '@cluster/apimachinery';
import { EtcdKvClient, Etcd3Store, newEtcdClient, startEtcd, type EtcdProcess, type GuardedDeleteOutcome, type Store } from '@cluster/storage';
import { GenericRegistry, type RegistryBehaviour } from '../../src/registry/generic-registry.js';
import { configMaps } from '../../src/resources/core/configmaps/register.js';
import { forEachBounded } from '../../src/registry/delete-collection.js';
import type { AdmissionPlugin } from '../../src/admission/admission.js';

// DeleteCollection at the registry, over a real etcd: each listed object is deleted as a single
// DELETE of it would be, a concurrent change to an object is never lost to the one-txn shortcut,
// and no more than --delete-collection-workers deletes are in flight.

let etcd: EtcdProcess;
let dir: string;
let client: Etcd3;
let etcdStore: Etcd3Store;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'delete-collection-'));
  etcd = await startEtcd({ dataDir: dir });
  client = newEtcdClient([etcd.endpoint]);
  etcdStore = new Etcd3Store(client, { kv: new EtcdKvClient([etcd.endpoint]) });
}, 30_000);

afterAll(async () => {
  await etcdStore?.close();
  await etcd?.stop();
  await rm(dir, { recursive: true, force: true });
});

const behaviour = (workers: number): RegistryBehaviour => ({ garbageCollection: true, deleteCollectionWorkers: workers });
const registryOver = (store: Store, workers = 1, admission: AdmissionPlugin[] = []) =>
  new GenericRegistry(configMaps.info, configMaps.strategy, store, () => admission, undefined, undefined, {}, behaviour(workers));

const cm = (name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { k: 'v' } });
const write = { dryRun: false };

async function fill(reg: GenericRegistry, ns: string, count: number, meta: (i: number) => Partial<KubeObject['metadata']> = () => ({})): Promise<void> {
  for (let i = 0; i < count; i++) await reg.create(ns, cm(`cm-${i}`, meta(i)), write);
}
const names = async (reg: GenericRegistry, ns: string) => (await reg.list(ns, { hasSelector: false })).items.map((o) => o.metadata.name ?? '').sort();

/** A store whose writes are counted, with the deletes in flight (a guarded delete may run a hook first). */
class CountingStore implements Store {
  inFlight = 0;
  maxInFlight = 0;
  guarded = 0;
  full = 0;
  beforeGuarded: ((key: string) => Promise<void>) | undefined;
  constructor(private readonly inner: Etcd3Store) {}
  create: Store['create'] = (k, o, opts) => this.inner.create(k, o, opts);
  get: Store['get'] = (k, o) => this.inner.get(k, o);
  getList: Store['getList'] = (p, o) => this.inner.getList(p, o);
  // Marking an object for deletion is a delete in flight too.
  guaranteedUpdate: Store['guaranteedUpdate'] = (k, f, o) => this.track(() => this.inner.guaranteedUpdate(k, f, o));
  watch: Store['watch'] = (p, o) => this.inner.watch(p, o);
  currentRevision: Store['currentRevision'] = () => this.inner.currentRevision();
  ping: Store['ping'] = () => this.inner.ping();
  close: Store['close'] = async () => {};
  delete: Store['delete'] = (k, o) => {
    this.full++;
    return this.track(() => this.inner.delete(k, o));
  };
  deleteIfUnchanged = (k: string, rev: number): Promise<GuardedDeleteOutcome> =>
    this.track(async () => {
      this.guarded++;
      await this.beforeGuarded?.(k);
      return this.inner.deleteIfUnchanged(k, rev);
    });
  private async track<T>(fn: () => Promise<T>): Promise<T> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      // Yield a few turns so that other workers get to start theirs while this one is open.
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      return await fn();
    } finally {
      this.inFlight--;
    }
  }
}

test('deletes only what the label selector picks, each in one guarded txn, answering the deleted objects', async () => {
  const counting = new CountingStore(etcdStore);
  const reg = registryOver(counting, 2);
  await fill(reg, 'sel', 6, (i) => ({ labels: { keep: i % 2 ? 'yes' : 'no' } }));
  const predicate = Object.assign((o: KubeObject) => o.metadata.labels?.['keep'] === 'no', {});
  const out = await reg.deleteCollection('sel', { predicate, hasSelector: true }, write);
  expect(out.items.map((o) => o.metadata.name).sort()).toEqual(['cm-0', 'cm-2', 'cm-4']);
  expect(out.items.every((o) => o.metadata.deletionTimestamp === undefined)).toBe(true);
  expect(await names(reg, 'sel')).toEqual(['cm-1', 'cm-3', 'cm-5']);
  expect(counting.guarded).toBe(3);
  expect(counting.full).toBe(0);
});

test('objects with finalizers stay, marked for deletion; the others go', async () => {
  const reg = registryOver(etcdStore, 3);
  await fill(reg, 'fin', 4, (i) => (i < 2 ? { finalizers: ['example.com/hold'] } : {}));
  const out = await reg.deleteCollection('fin', { hasSelector: false }, write);
  expect(out.items).toHaveLength(4);
  expect(await names(reg, 'fin')).toEqual(['cm-0', 'cm-1']);
  for (const name of ['cm-0', 'cm-1']) {
    const held = await reg.get('fin', name);
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    expect(held.metadata.finalizers).toEqual(['example.com/hold']);
  }
});

test('a finalizer added after the list and before the guarded delete is kept: the object is marked, not removed', async () => {
  const counting = new CountingStore(etcdStore);
  const reg = registryOver(counting, 2);
  await fill(reg, 'race', 3);
  // The race, made deterministic: another writer adds a finalizer to cm-1 just before its guarded txn.
  counting.beforeGuarded = async (key) => {
    if (!key.endsWith('/cm-1')) return;
    await etcdStore.guaranteedUpdate(key, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: ['example.com/late'] } }), { ignoreNotFound: false });
  };
  const out = await reg.deleteCollection('race', { hasSelector: false }, write);
  expect(out.items).toHaveLength(3);
  expect(await names(reg, 'race')).toEqual(['cm-1']);
  const kept = await reg.get('race', 'cm-1');
  expect(kept.metadata.finalizers).toEqual(['example.com/late']);
  expect(kept.metadata.deletionTimestamp).toBeTruthy();
  expect(out.items.find((o) => o.metadata.name === 'cm-1')?.metadata.deletionTimestamp).toBeTruthy();
  // The guard failed for cm-1 and the full delete ran on its fresh state.
  expect(counting.guarded).toBe(3);
});

test('an object deleted after the list counts as deleted (NotFound skipped)', async () => {
  const counting = new CountingStore(etcdStore);
  const reg = registryOver(counting, 1);
  await fill(reg, 'gone', 3);
  counting.beforeGuarded = async (key) => {
    if (key.endsWith('/cm-0')) await etcdStore.delete(key);
  };
  const out = await reg.deleteCollection('gone', { hasSelector: false }, write);
  expect(out.items.map((o) => o.metadata.name)).toEqual(['cm-1', 'cm-2']);
  expect(await names(reg, 'gone')).toEqual([]);
  // The failed guard itself told that cm-0 was gone: no further read or delete.
  expect(counting.full).toBe(0);
});

test('dryRun deletes nothing and still answers what would be deleted', async () => {
  const reg = registryOver(etcdStore, 4);
  await fill(reg, 'dry', 5, (i) => (i === 0 ? { finalizers: ['example.com/hold'] } : {}));
  const out = await reg.deleteCollection('dry', { hasSelector: false }, { dryRun: true });
  expect(out.items).toHaveLength(5);
  expect(await names(reg, 'dry')).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
  expect((await reg.get('dry', 'cm-0')).metadata.deletionTimestamp).toBeUndefined();
});

test('propagationPolicy Orphan leaves every object under the orphan finalizer', async () => {
  const counting = new CountingStore(etcdStore);
  const reg = registryOver(counting, 2);
  await fill(reg, 'orphan', 3);
  await reg.deleteCollection('orphan', { hasSelector: false }, { dryRun: false, propagationPolicy: 'Orphan' });
  for (const name of await names(reg, 'orphan')) {
    const o = await reg.get('orphan', name);
    expect(o.metadata.finalizers).toEqual(['orphan']);
    expect(o.metadata.deletionTimestamp).toBeTruthy();
  }
  expect(await names(reg, 'orphan')).toHaveLength(3);
  expect(counting.guarded).toBe(0);
});

test('validating admission sees each object being deleted; a denial stops the collection with its error', async () => {
  const seen: string[] = [];
  const deny: AdmissionPlugin = {
    name: 'DenyCm2',
    validate: async (a) => {
      if (a.operation !== 'DELETE') return;
      seen.push(`${a.name}:${a.oldObject?.metadata.name}`);
      if (a.name === 'cm-2') throw newForbidden({ group: '', resource: 'configmaps' }, a.name ?? '', 'denied');
    },
  };
  const reg = registryOver(etcdStore, 1, [deny]);
  await fill(reg, 'adm', 4);
  await expect(reg.deleteCollection('adm', { hasSelector: false }, write)).rejects.toMatchObject({ status: { code: 403 } });
  expect(seen.slice(0, 3)).toEqual(['cm-0:cm-0', 'cm-1:cm-1', 'cm-2:cm-2']);
  // Workers stop at the first failure: cm-3 was never started with one worker.
  expect(await names(reg, 'adm')).toEqual(['cm-2', 'cm-3']);
});

test.each([1, 3])('never more than %i deletes in flight', async (workers) => {
  const counting = new CountingStore(etcdStore);
  const reg = registryOver(counting, workers);
  await fill(reg, `bound${workers}`, 12, (i) => (i % 4 === 0 ? { finalizers: ['example.com/hold'] } : {}));
  await reg.deleteCollection(`bound${workers}`, { hasSelector: false }, write);
  expect(counting.maxInFlight).toBe(workers);
});

test('forEachBounded keeps order, bounds concurrency and stops starting items after the first failure', async () => {
  let open = 0;
  let max = 0;
  const started: number[] = [];
  const results = await forEachBounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
    started.push(n);
    open++;
    max = Math.max(max, open);
    await new Promise((r) => setImmediate(r));
    open--;
    return n * 10;
  });
  expect(results).toEqual([10, 20, 30, 40, 50, 60, 70]);
  expect(max).toBe(3);
  started.length = 0;
  await expect(
    forEachBounded([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      if (n === 2) throw new Error('boom');
      await new Promise((r) => setImmediate(r));
      return n;
    }),
  ).rejects.toThrow('boom');
  // Item 2 fails before item 1 is done: no further item is started.
  expect(started).toEqual([1, 2]);
  expect(await forEachBounded([], 4, async () => 1)).toEqual([]);
  // 0 (or anything below 1) means one worker, as upstream.
  expect(await forEachBounded([1, 2], 0, async (n) => n)).toEqual([1, 2]);
});

test('the same collection delete asked again while it runs waits for it and lists what is left', async () => {
  const counting = new CountingStore(etcdStore);
  const reg = registryOver(counting, 2);
  await fill(reg, 'again', 6);
  const [first, second] = await Promise.all([
    reg.deleteCollection('again', { hasSelector: false }, write),
    reg.deleteCollection('again', { hasSelector: false }, write),
  ]);
  expect(first.items).toHaveLength(6);
  expect(second.items).toHaveLength(0);
  expect(counting.guarded).toBe(6);
  expect(await names(reg, 'again')).toEqual([]);
});
