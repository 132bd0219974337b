import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Etcd3 } from 'etcd3';
import type { KubeObject } from '@cluster/apimachinery';
import { Etcd3Store } from '../../src/etcd3/store.js';
import { newEtcdClient } from '../../src/etcd3/client.js';
import { EtcdKvClient } from '../../src/etcd3/kv-client.js';
import { startEtcd, type EtcdProcess } from '../../src/etcd-process/index.js';
import { isStorageError, StorageError } from '../../src/errors.js';
import { writtenJsonOf } from '../../src/etcd3/written-json.js';

let etcd: EtcdProcess;
let dir: string;
let client: Etcd3;
let store: Etcd3Store;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'store-test-'));
  etcd = await startEtcd({ dataDir: dir });
  client = newEtcdClient([etcd.endpoint]);
  // As the server runs it: ranges and transactions through the lean KV client.
  store = new Etcd3Store(client, { kv: new EtcdKvClient([etcd.endpoint]) });
}, 30_000);

afterAll(async () => {
  await store?.close();
  await etcd?.stop();
  await rm(dir, { recursive: true, force: true });
});

const obj = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', ...(labels ? { labels } : {}) },
  data,
});

const expectStorageError = async (p: Promise<unknown>, code: StorageError['code']) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isStorageError(err) ? err.code : err).toBe(code);
};

describe('Etcd3Store (DESIGN "Storage")', () => {
  test('create stores JSON without resourceVersion; resourceVersion is the mod revision', async () => {
    const created = await store.create('/registry/core/configmaps/ns/a', obj('a', { k: 'v' }));
    const raw = await client.get('/registry/core/configmaps/ns/a').string();
    expect(JSON.parse(raw!).metadata.resourceVersion).toBeUndefined();
    const range = await client.kv.range({ key: Buffer.from('/registry/core/configmaps/ns/a') });
    expect(created.metadata.resourceVersion).toBe(range.kvs[0]!.mod_revision);
    const got = await store.get('/registry/core/configmaps/ns/a');
    expect(got).toEqual(created);
  });

  test('create of an existing key is KeyExists and leaves the value alone', async () => {
    await store.create('/registry/core/configmaps/ns/dup', obj('dup', { v: '1' }));
    await expectStorageError(store.create('/registry/core/configmaps/ns/dup', obj('dup', { v: '2' })), 'KeyExists');
    expect((await store.get('/registry/core/configmaps/ns/dup')).data).toEqual({ v: '1' });
  });

  test('get of a missing key is KeyNotFound', async () => {
    await expectStorageError(store.get('/registry/core/configmaps/ns/missing'), 'KeyNotFound');
  });

  test('get with a resourceVersion newer than etcd waits and then fails TooLargeResourceVersion', async () => {
    const rev = await store.currentRevision();
    await expectStorageError(store.get('/registry/core/configmaps/ns/a', { resourceVersion: String(rev + 1000) }), 'TooLargeResourceVersion');
  }, 10_000);

  test('guaranteedUpdate retries on races and never loses a write', async () => {
    await store.create('/registry/core/configmaps/ns/counter', obj('counter', { n: '0' }));
    const bump = () =>
      store.guaranteedUpdate(
        '/registry/core/configmaps/ns/counter',
        (cur) => ({ ...cur!, data: { n: String(Number((cur!.data as { n: string }).n) + 1) } }),
        { ignoreNotFound: false },
      );
    await Promise.all(Array.from({ length: 20 }, bump));
    expect((await store.get('/registry/core/configmaps/ns/counter')).data).toEqual({ n: '20' });
  });

  test('guaranteedUpdate with a stale resourceVersion precondition conflicts', async () => {
    const created = await store.create('/registry/core/configmaps/ns/pre', obj('pre'));
    await store.guaranteedUpdate('/registry/core/configmaps/ns/pre', (cur) => ({ ...cur!, data: { x: 'y' } }), { ignoreNotFound: false });
    await expectStorageError(
      store.guaranteedUpdate('/registry/core/configmaps/ns/pre', (cur) => cur!, {
        ignoreNotFound: false,
        preconditions: { resourceVersion: created.metadata.resourceVersion },
      }),
      'ResourceVersionConflicts',
    );
  });

  test('an update that changes nothing keeps the resourceVersion', async () => {
    const created = await store.create('/registry/core/configmaps/ns/same', obj('same', { a: 'b' }));
    const again = await store.guaranteedUpdate('/registry/core/configmaps/ns/same', (cur) => ({ ...cur! }), { ignoreNotFound: false });
    expect(again.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  test('guaranteedUpdate with a suggestion: current suggestion saves the read; a stale one is retried on etcd', async () => {
    const key = '/registry/core/configmaps/ns/suggest';
    const v1 = await store.create(key, obj('suggest', { n: '1' }));
    const v2 = await store.guaranteedUpdate(key, (cur) => ({ ...cur!, data: { n: '2' } }), { ignoreNotFound: false, suggestion: v1 });
    expect(Number(v2.metadata.resourceVersion)).toBeGreaterThan(Number(v1.metadata.resourceVersion));
    // v1 is stale now: the update must apply to v2's state, never overwrite it.
    const seen: string[] = [];
    const v3 = await store.guaranteedUpdate(
      key,
      (cur) => {
        const data = cur!.data as Record<string, string>;
        seen.push(data['n']!);
        return { ...cur!, data: { ...data, m: 'x' } };
      },
      { ignoreNotFound: false, suggestion: v1 },
    );
    expect(seen).toEqual(['1', '2']);
    expect(v3.data).toEqual({ n: '2', m: 'x' });
    expect((await store.get(key)).data).toEqual({ n: '2', m: 'x' });
    // A precondition the stale suggestion fails but etcd's state meets succeeds.
    const v4 = await store.guaranteedUpdate(key, (cur) => ({ ...cur!, data: { n: '4' } }), {
      ignoreNotFound: false,
      suggestion: v1,
      preconditions: { resourceVersion: v3.metadata.resourceVersion! },
    });
    expect(v4.data).toEqual({ n: '4' });
    // A no-op judged on a stale suggestion is checked against etcd: here it is a real change.
    const v5 = await store.guaranteedUpdate(key, (cur) => ({ ...cur!, data: { n: '1' } }), { ignoreNotFound: false, suggestion: v1 });
    expect(v5.metadata.resourceVersion).not.toBe(v4.metadata.resourceVersion);
    expect((await store.get(key)).data).toEqual({ n: '1' });
    // The suggestion is never modified.
    expect(v1.data).toEqual({ n: '1' });
  });

  test('guaranteedUpdate with a suggestion of a deleted object is KeyNotFound', async () => {
    const key = '/registry/core/configmaps/ns/suggest-gone';
    const v1 = await store.create(key, obj('suggest-gone'));
    await store.delete(key);
    await expectStorageError(store.guaranteedUpdate(key, (cur) => cur!, { ignoreNotFound: false, suggestion: v1 }), 'KeyNotFound');
  });

  test('dry-run create, update and delete write nothing', async () => {
    const before = await store.currentRevision();
    await store.create('/registry/core/configmaps/ns/dry', obj('dry'), { dryRun: true });
    await expectStorageError(store.get('/registry/core/configmaps/ns/dry'), 'KeyNotFound');
    await store.guaranteedUpdate('/registry/core/configmaps/ns/a', (cur) => ({ ...cur!, data: { z: 'z' } }), { ignoreNotFound: false, dryRun: true });
    await store.delete('/registry/core/configmaps/ns/a', { dryRun: true });
    expect(await store.currentRevision()).toBe(before);
  });

  test('delete returns the last state and honours preconditions', async () => {
    const created = await store.create('/registry/core/configmaps/ns/del', obj('del', { a: 'b' }));
    await expectStorageError(store.delete('/registry/core/configmaps/ns/del', { preconditions: { uid: 'other' } }), 'ResourceVersionConflicts');
    const deleted = await store.delete('/registry/core/configmaps/ns/del', { preconditions: { resourceVersion: created.metadata.resourceVersion } });
    expect(deleted.data).toEqual({ a: 'b' });
    await expectStorageError(store.delete('/registry/core/configmaps/ns/del'), 'KeyNotFound');
  });

  test('lists report the header revision and page consistently while writes happen between pages', async () => {
    for (let i = 0; i < 7; i++) await store.create(`/registry/core/configmaps/paged/item-${i}`, { ...obj(`item-${i}`), metadata: { name: `item-${i}`, namespace: 'paged' } });
    const first = await store.getList('/registry/core/configmaps/paged/', { limit: 3 });
    expect(first.items.map((i) => i.metadata.name)).toEqual(['item-0', 'item-1', 'item-2']);
    expect(first.continueToken).toBeTruthy();
    expect(first.remainingItemCount).toBe(4);
    // Writes between pages must not show up in later pages of the same list.
    await store.create('/registry/core/configmaps/paged/item-5a', { ...obj('item-5a'), metadata: { name: 'item-5a', namespace: 'paged' } });
    await store.delete('/registry/core/configmaps/paged/item-6');
    const second = await store.getList('/registry/core/configmaps/paged/', { limit: 3, continueToken: first.continueToken });
    expect(second.resourceVersion).toBe(first.resourceVersion);
    expect(second.items.map((i) => i.metadata.name)).toEqual(['item-3', 'item-4', 'item-5']);
    const third = await store.getList('/registry/core/configmaps/paged/', { limit: 3, continueToken: second.continueToken });
    expect(third.items.map((i) => i.metadata.name)).toEqual(['item-6']);
    expect(third.continueToken).toBeUndefined();
    expect(third.remainingItemCount).toBeUndefined();
    expect(third.resourceVersion).toBe(first.resourceVersion);
  });

  test('paged lists with a predicate fill pages and omit remainingItemCount', async () => {
    for (let i = 0; i < 6; i++) {
      await store.create(`/registry/core/configmaps/filtered/f-${i}`, {
        ...obj(`f-${i}`),
        metadata: { name: `f-${i}`, namespace: 'filtered', labels: { even: String(i % 2 === 0) } },
      });
    }
    const predicate = (o: KubeObject) => o.metadata.labels?.even === 'true';
    const page = await store.getList('/registry/core/configmaps/filtered/', { limit: 2, predicate, hasSelector: true });
    expect(page.items.map((i) => i.metadata.name)).toEqual(['f-0', 'f-2']);
    expect(page.remainingItemCount).toBeUndefined();
    const rest = await store.getList('/registry/core/configmaps/filtered/', { limit: 2, predicate, hasSelector: true, continueToken: page.continueToken });
    expect(rest.items.map((i) => i.metadata.name)).toEqual(['f-4']);
  });

  test('a list at an exact revision sees the past; a compacted revision is Compacted', async () => {
    await store.create('/registry/core/configmaps/history/h', { ...obj('h', { v: '1' }), metadata: { name: 'h', namespace: 'history' } });
    const at = await store.getList('/registry/core/configmaps/history/');
    await store.guaranteedUpdate('/registry/core/configmaps/history/h', (cur) => ({ ...cur!, data: { v: '2' } }), { ignoreNotFound: false });
    const past = await store.getList('/registry/core/configmaps/history/', { resourceVersion: at.resourceVersion, resourceVersionMatch: 'Exact' });
    expect(past.items[0]!.data).toEqual({ v: '1' });
    expect(past.resourceVersion).toBe(at.resourceVersion);
    const page = await store.getList('/registry/core/configmaps/paged/', { limit: 1 });
    await store.guaranteedUpdate('/registry/core/configmaps/history/h', (cur) => ({ ...cur!, data: { v: '3' } }), { ignoreNotFound: false });
    await client.kv.compact({ revision: await store.currentRevision() });
    await expectStorageError(store.getList('/registry/core/configmaps/paged/', { limit: 1, continueToken: page.continueToken }), 'Compacted');
    await expectStorageError(
      store.getList('/registry/core/configmaps/history/', { resourceVersion: at.resourceVersion, resourceVersionMatch: 'Exact' }),
      'Compacted',
    );
  });

  test('a malformed continue token is InvalidContinue', async () => {
    await expectStorageError(store.getList('/registry/core/configmaps/paged/', { limit: 1, continueToken: 'garbage' }), 'InvalidContinue');
  });

  test('an object over the etcd request limit is RequestTooLarge and nothing is written', async () => {
    const big = obj('big', { blob: 'x'.repeat(2 * 1024 * 1024) });
    await expectStorageError(store.create('/registry/core/configmaps/ns/big', big), 'RequestTooLarge');
    await expectStorageError(store.get('/registry/core/configmaps/ns/big'), 'KeyNotFound');
  }, 20_000);
});

describe('the JSON of written objects (writtenJsonOf)', () => {
  const json = (o: KubeObject) => writtenJsonOf(o)?.toString('utf8');

  test('an object a create or update returns has its JSON from the written bytes, byte for byte', async () => {
    const body: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'wj', namespace: 'ns', labels: { 'a/b': 'c"d' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:data': {} } }] },
      data: { 'ü}{': 'x\n"]}', empty: '' },
    };
    const created = await store.create('/registry/core/configmaps/ns/wj', body);
    expect(json(created)).toBe(JSON.stringify(created));
    expect(JSON.parse(json(created)!).metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    // As the registry hands an update over: the stored object without its resourceVersion.
    const updated = await store.guaranteedUpdate(
      '/registry/core/configmaps/ns/wj',
      (cur) => {
        const { resourceVersion: _rv, ...metadata } = cur!.metadata;
        return { ...cur!, metadata, data: { v: '2' } };
      },
      { ignoreNotFound: false },
    );
    expect(json(updated)).toBe(JSON.stringify(updated));
    const empty = await store.create('/registry/core/configmaps/ns/wj-empty', { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } as KubeObject);
    expect(json(empty)).toBe(JSON.stringify(empty));
  });

  test('none for objects whose JSON differs from their bytes, or that no write returned', async () => {
    // Metadata with its own resourceVersion: the returned object keeps the field where it was.
    const kept = await store.guaranteedUpdate('/registry/core/configmaps/ns/wj', (cur) => ({ ...cur!, data: { v: '3' } }), { ignoreNotFound: false });
    expect(json(kept)).toBeUndefined();
    // Keys in another order than the stored one (encodeValue puts apiVersion, kind, metadata first).
    const unordered = await store.create('/registry/core/configmaps/ns/wj-order', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'wj-order' } } as KubeObject);
    expect(json(unordered)).toBeUndefined();
    expect(json(await store.get('/registry/core/configmaps/ns/wj'))).toBeUndefined();
    expect(json(obj('never'))).toBeUndefined();
  });
});
