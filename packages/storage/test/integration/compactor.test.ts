import type { Etcd3 } from 'etcd3';
import { newEtcdClient } from '../../src/etcd3/client.js';
import { COMPACT_REV_KEY, Compactor } from '../../src/etcd3/compactor.js';
import { Etcd3Store } from '../../src/etcd3/store.js';
import { isStorageError } from '../../src/errors.js';
import { cm, privateEtcd, sleep } from './watch-helpers.js';

const T = 20_000;
let stopEtcd: () => Promise<void>;
let clientA: Etcd3;
let clientB: Etcd3;
let store: Etcd3Store;

beforeAll(async () => {
  const p = await privateEtcd();
  stopEtcd = p.stop;
  clientA = newEtcdClient([p.etcd.endpoint]);
  clientB = newEtcdClient([p.etcd.endpoint]);
  store = new Etcd3Store(clientA);
}, T);
afterAll(async () => {
  clientB.close();
  await store.close();
  await stopEtcd();
}, T);

/** Whether etcd still serves reads at `revision`. */
async function readable(revision: number): Promise<boolean> {
  try {
    await store.getList('/registry/core/configmaps/', { resourceVersion: String(revision), resourceVersionMatch: 'Exact' });
    return true;
  } catch (e) {
    if (isStorageError(e, 'Compacted')) return false;
    throw e;
  }
}

let seq = 0;
const write = async (): Promise<number> =>
  Number((await store.create(`/registry/core/configmaps/ns/c${++seq}`, cm('ns', `c${seq}`))).metadata.resourceVersion);

describe('Compactor', () => {
  test('two replicas racing: one compaction per period, to the revision of one period earlier', async () => {
    const compactedA: number[] = [];
    const compactedB: number[] = [];
    const a = new Compactor(clientA, { onCompact: (r) => compactedA.push(r) });
    const b = new Compactor(clientB, { onCompact: (r) => compactedB.push(r) });

    // Period 1: both start from nothing; the first one records the revision, nobody compacts.
    const r0 = await write();
    expect(await a.runOnce()).toEqual({ won: true });
    expect(await b.runOnce()).toEqual({ won: false });
    const afterPeriod1 = await store.currentRevision();

    // Period 2: whoever comes first wins and compacts to what was recorded in period 1.
    const r1 = await write();
    const b2 = await b.runOnce();
    const a2 = await a.runOnce();
    expect(b2.won).toBe(true);
    expect(a2).toEqual({ won: false });
    expect(b2.compacted).toBeGreaterThanOrEqual(r0);
    expect(b2.compacted).toBeLessThanOrEqual(afterPeriod1);
    expect(await readable(r0 - 1)).toBe(false);
    // History since the start of the period is kept.
    expect(await readable(r1)).toBe(true);

    // Periods 3 and 4, in either order: still one winner each.
    await write();
    const p3 = [await a.runOnce(), await b.runOnce()];
    await write();
    const p4 = [await b.runOnce(), await a.runOnce()];
    expect(p3.filter((x) => x.won)).toHaveLength(1);
    expect(p4.filter((x) => x.won)).toHaveLength(1);
    expect(compactedA.length + compactedB.length).toBe(3);
    const all = [...compactedA, ...compactedB].sort((x, y) => x - y);
    expect(new Set(all).size).toBe(3);

    const kv = (await clientA.kv.range({ key: Buffer.from(COMPACT_REV_KEY) })).kvs[0];
    expect(kv?.version).toBe('4');
  }, T);

  test('start() runs periodically and stop() ends it', async () => {
    const compacted: number[] = [];
    const c = new Compactor(clientA, { intervalMs: 150, key: '/registry/compact_rev_key_timer', onCompact: (r) => compacted.push(r) });
    c.start();
    c.start(); // harmless
    for (let i = 0; i < 6; i++) {
      await write();
      await sleep(100);
    }
    await c.stop();
    expect(compacted.length).toBeGreaterThanOrEqual(2);
    const n = compacted.length;
    await sleep(400);
    expect(compacted.length).toBe(n);
    // Each compaction goes forward.
    expect([...compacted].sort((x, y) => x - y)).toEqual(compacted);
  }, T);
});
