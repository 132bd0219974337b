import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import type { KubeObject } from '@cluster/apimachinery';
import { SharedObjectStore, classFor, classSize } from './shared-store.js';
import { Held, HeldStore, forgetDecoded, storedJsonOf } from './held.js';
import { WatchCache } from './watch-cache.js';

const newStore = (initialBytes = 1 << 20, maxBytes?: number) =>
  new SharedObjectStore(SharedObjectStore.createBuffer({ initialBytes, ...(maxBytes ? { maxBytes } : {}) }), 1);

describe('SharedObjectStore', () => {
  test('size classes hold their sizes with at most a sixteenth to spare', () => {
    for (let size = 1; size < 8_000_000; size = Math.ceil(size * 1.07) + 1) {
      const c = classFor(size);
      expect(classSize(c)).toBeGreaterThanOrEqual(size);
      if (size > 128) expect(classSize(c)).toBeLessThanOrEqual(size * 1.0625 + 8);
      if (c > 0) expect(classSize(c - 1)).toBeLessThan(size);
    }
  });

  test('a version is stored once: the second insert and an acquire find it and count a reference', () => {
    const s = newStore();
    const a = s.insert('/registry/configmaps/ns/a', 7, '{"a":"é"}');
    expect(s.insert('/registry/configmaps/ns/a', 7, '{"other":"bytes"}')).toBe(a);
    expect(s.acquire('/registry/configmaps/ns/a', 7)).toBe(a);
    expect(s.refs(a)).toBe(3);
    expect(s.jsonString(a)).toBe('{"a":"é"}');
    expect(s.jsonCopy(a).toString('utf8')).toBe('{"a":"é"}');
    expect(s.keyOf(a)).toBe('/registry/configmaps/ns/a');
    expect(s.revisionOf(a)).toBe(7);
    // Another revision or another key is another version.
    expect(s.acquire('/registry/configmaps/ns/a', 8)).toBe(0);
    expect(s.acquire('/registry/configmaps/ns/b', 7)).toBe(0);
    expect(s.stats().entries).toBe(1);
  });

  test('keys beyond Latin-1 are compared and returned whole', () => {
    const s = newStore();
    const a = s.insert('/registry/x/ns/ünï-☃', 1, '{}');
    const b = s.insert('/registry/x/ns/ünï-☄', 1, '{"b":1}');
    expect(a).not.toBe(b);
    expect(s.keyOf(a)).toBe('/registry/x/ns/ünï-☃');
    expect(s.acquire('/registry/x/ns/ünï-☄', 1)).toBe(b);
    expect(s.jsonString(b)).toBe('{"b":1}');
  });

  test('the last release frees the block, and the next version of about that size reuses it', () => {
    const s = newStore();
    const json = (n: number) => JSON.stringify({ n, payload: 'x'.repeat(1000) });
    const a = s.insert('/k/a', 1, json(1));
    s.retain(a);
    s.release(a);
    expect(s.stats().entries).toBe(1);
    s.release(a);
    expect(s.stats()).toMatchObject({ entries: 0, liveBytes: 0 });
    expect(s.acquire('/k/a', 1)).toBe(0);
    const used = s.stats().usedBytes;
    const b = s.insert('/k/a', 2, json(2));
    expect(b).toBe(a);
    expect(s.stats().usedBytes).toBe(used);
    expect(s.stats().freeBytes).toBe(0);
    expect(() => {
      s.release(b);
      s.release(b);
    }).toThrow(/released more often/);
  });

  test('updates of many objects do not grow the buffer once their old versions are released', () => {
    const s = newStore();
    const held = new Map<string, number>();
    // From round 10 on every version of a key has the same size (two-digit rounds).
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 500; i++) {
        const key = `/k/${i}`;
        const at = s.insert(key, round * 1000 + i, JSON.stringify({ i, round, pad: 'p'.repeat(200 + (i % 50)) }));
        const old = held.get(key);
        if (old !== undefined) s.release(old);
        held.set(key, at);
      }
      if (round === 11) var afterTwo = s.stats().usedBytes;
    }
    expect(s.stats().entries).toBe(500);
    expect(s.stats().usedBytes).toBe(afterTwo!);
    for (const [key, at] of held) expect(JSON.parse(s.jsonString(at))).toMatchObject({ i: Number(key.slice(3)), round: 19 });
  });

  test('grows the buffer (and its hash table) as versions arrive, and says when it cannot', () => {
    const s = newStore(64 * 1024, 4 * 1024 * 1024);
    const ats: number[] = [];
    for (let i = 0; i < 10_000; i++) {
      const at = s.insert(`/k/${i}`, 1, `{"i":${i}}`);
      expect(at).toBeGreaterThan(0);
      ats.push(at);
    }
    for (let i = 0; i < 10_000; i += 997) expect(s.jsonString(s.acquire(`/k/${i}`, 1))).toBe(`{"i":${i}}`);
    expect(s.stats().bufferBytes).toBeGreaterThan(64 * 1024);
    // Full: 0, and the store is still sound.
    expect(s.insert('/k/big', 1, 'x'.repeat(5 * 1024 * 1024))).toBe(0);
    expect(s.jsonString(ats[5]!)).toBe('{"i":5}');
  });

  test("a worker slot's references are counted apart, and releaseSlot drops them all (a thread that ended)", () => {
    const buffer = SharedObjectStore.createBuffer({ initialBytes: 1 << 20, slots: 2 });
    const t0 = new SharedObjectStore(buffer, 1, 0);
    const t1 = new SharedObjectStore(buffer, 2, 1);
    const main = new SharedObjectStore(buffer, 99);
    const a = t0.insert('/k/a', 1, '{"a":1}');
    expect(t1.acquire('/k/a', 1)).toBe(a);
    const b = t0.insert('/k/b', 1, '{"b":1}');
    t0.retain(b);
    const c = t1.insert('/k/c', 1, '{"c":1}');
    expect([t0.slotRefs(a, 0), t0.slotRefs(a, 1), t0.refs(a), t0.slotRefs(b, 0), t0.refs(b)]).toEqual([1, 1, 2, 2, 2]);
    t0.release(b);
    expect([t0.slotRefs(b, 0), t0.refs(b)]).toEqual([1, 1]);
    // Thread 0 ends holding a and b: b is freed, a stays for thread 1, c was never thread 0's.
    expect(main.releaseSlot(0)).toBe(1);
    expect(main.stats().entries).toBe(2);
    expect([main.refs(a), main.slotRefs(a, 0), main.slotRefs(a, 1)]).toEqual([1, 0, 1]);
    expect(main.jsonString(a)).toBe('{"a":1}');
    expect(main.acquire('/k/b', 1)).toBe(0);
    // b's block is reused, its counts start from zero.
    const d = t0.insert('/k/d', 1, '{"d":1}');
    expect(d).toBe(b);
    expect([t0.refs(d), t0.slotRefs(d, 0), t0.slotRefs(d, 1)]).toEqual([1, 1, 0]);
    expect(main.releaseSlot(0)).toBe(1);
    t1.release(a);
    t1.release(c);
    expect(main.stats()).toMatchObject({ entries: 0, liveBytes: 0 });
    // Out of range: nothing.
    expect(main.releaseSlot(5)).toBe(0);
  });

  test('with an odd number of slots, keys beyond Latin-1 and JSON read back whole', () => {
    const buffer = SharedObjectStore.createBuffer({ initialBytes: 1 << 20, slots: 3 });
    const t2 = new SharedObjectStore(buffer, 3, 2);
    const a = t2.insert('/registry/x/ns/ünï-☃', 4, '{"é":"☃"}');
    expect([t2.keyOf(a), t2.jsonString(a), t2.revisionOf(a), t2.slotRefs(a, 2)]).toEqual(['/registry/x/ns/ünï-☃', '{"é":"☃"}', 4, 1]);
    expect(t2.acquire('/registry/x/ns/ünï-☃', 4)).toBe(a);
    expect(new SharedObjectStore(buffer, 99).releaseSlot(2)).toBe(1);
  });
});

const distStore = fileURLToPath(new URL('../../dist/src/cacher/shared-store.js', import.meta.url));

/** Runs `threads` worker threads over one store, each inserting, reading and releasing versions of shared keys. */
function hammer(buffer: SharedArrayBuffer, threads: number, rounds: number, opts: { slots?: boolean; keep?: boolean } = {}): Promise<{ mismatches: number; ops: number }[]> {
  const code = `
    const { workerData, parentPort, threadId } = require('node:worker_threads');
    import(workerData.module).then(({ SharedObjectStore }) => {
      const s = new SharedObjectStore(workerData.buffer, threadId + 1, workerData.slot);
      const expected = (key, rev) => JSON.stringify({ key, rev, pad: String(rev).repeat(20 + (rev % 300)) });
      let mismatches = 0, ops = 0;
      const held = [];
      for (let i = 0; i < workerData.rounds; i++) {
        const key = '/k/' + (i % 64);
        const rev = (i * 7 + workerData.seed) % 500;
        let at = s.acquire(key, rev);
        if (at === 0) at = s.insert(key, rev, expected(key, rev));
        held.push([at, key, rev]);
        // Hold up to 32 versions, checking each one's bytes while other threads free and reuse blocks.
        if (held.length > 32) {
          const [old, k, r] = held.shift();
          if (s.jsonString(old) !== expected(k, r) || s.keyOf(old) !== k || s.revisionOf(old) !== r) mismatches++;
          s.release(old);
        }
        ops++;
      }
      for (const [at, k, r] of held) {
        if (s.jsonString(at) !== expected(k, r)) mismatches++;
        // keep: ends holding them, as a thread that crashed does.
        if (!workerData.keep) s.release(at);
      }
      parentPort.postMessage({ mismatches, ops });
    });`;
  return Promise.all(
    Array.from({ length: threads }, (_, seed) => {
      const slot = opts.slots ? seed : -1;
      const w = new Worker(code, { eval: true, workerData: { buffer, rounds, seed, module: distStore, slot, keep: opts.keep === true } });
      return new Promise<{ mismatches: number; ops: number }>((resolve, reject) => {
        const timer = setTimeout(() => {
          void w.terminate();
          reject(new Error('a thread did not finish in 60 s'));
        }, 60_000);
        w.once('message', (m: { mismatches: number; ops: number }) => {
          clearTimeout(timer);
          void w.terminate();
          resolve(m);
        });
        w.once('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
      });
    }),
  );
}

describe('SharedObjectStore across threads', () => {
  beforeAll(() => {
    if (!existsSync(distStore)) throw new Error(`${distStore} is missing: build first (make build)`);
  });

  test('threads inserting, reading and releasing the same versions see whole bytes and leave nothing behind', async () => {
    const buffer = SharedObjectStore.createBuffer({ initialBytes: 64 * 1024 });
    const results = await hammer(buffer, 4, 20_000);
    expect(results.map((r) => r.mismatches)).toEqual([0, 0, 0, 0]);
    expect(results.every((r) => r.ops === 20_000)).toBe(true);
    const s = new SharedObjectStore(buffer, 99);
    expect(s.stats()).toMatchObject({ entries: 0, liveBytes: 0 });
  }, 90_000);

  test('threads that end holding versions leave them behind until releaseSlot drops their counts', async () => {
    const buffer = SharedObjectStore.createBuffer({ initialBytes: 64 * 1024, slots: 3 });
    const results = await hammer(buffer, 3, 10_000, { slots: true, keep: true });
    expect(results.map((r) => r.mismatches)).toEqual([0, 0, 0]);
    const s = new SharedObjectStore(buffer, 99);
    const left = s.stats().entries;
    expect(left).toBeGreaterThan(0);
    let freed = 0;
    for (let slot = 0; slot < 3; slot++) freed += s.releaseSlot(slot);
    expect(freed).toBe(left);
    expect(s.stats()).toMatchObject({ entries: 0, liveBytes: 0 });
  }, 90_000);
});

describe('watch cache handles (Held)', () => {
  const gc = (): (() => void) => {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  };
  // Full collections of a jest worker's heap take hundreds of ms on a loaded machine: bounded in count.
  const collect = async (until: () => boolean, rounds = 50): Promise<void> => {
    const run = gc();
    for (let i = 0; i < rounds && !until(); i++) {
      forgetDecoded();
      run();
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const cm = (name: string, rv: number, payload = 'x'): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns', resourceVersion: String(rv) },
    data: { payload },
  });
  const P = '/registry/configmaps/ns/';

  test("two caches share one copy of each version; a deleted object's bytes are freed once the window drops it", async () => {
    const shared = newStore();
    const clock = { t: 0 };
    const a = new WatchCache({ sharedStore: new HeldStore(shared), now: () => clock.t, windowMs: 1_000 });
    const b = new WatchCache({ sharedStore: new HeldStore(shared), now: () => clock.t, windowMs: 1_000 });
    for (const c of [a, b]) c.reset([[`${P}x`, cm('x', 5, 'first')]], 5);
    expect(shared.stats().entries).toBe(1);
    for (const c of [a, b]) c.apply({ type: 'put', key: `${P}y`, revision: 6, object: cm('y', 6) });
    expect(shared.stats().entries).toBe(2);
    const got = b.get(`${P}x`)!;
    expect(got).toEqual(cm('x', 5, 'first'));
    expect(storedJsonOf(got)?.toString()).toBe(JSON.stringify(cm('x', 5, 'first')));
    for (const c of [a, b]) c.apply({ type: 'delete', key: `${P}y`, revision: 7 });
    expect(a.eventsAfter(6)[0]!.object).toEqual(cm('y', 7));
    // Still in the window: kept, however many collections run (the window holds the handles).
    await collect(() => false, 3);
    expect(shared.stats().entries).toBe(2);
    clock.t += 5_000;
    for (const c of [a, b]) c.evict();
    await collect(() => shared.stats().entries === 1);
    expect(shared.stats().entries).toBe(1);
    expect(a.get(`${P}x`)).toEqual(cm('x', 5, 'first'));
  }, 90_000);

  test("a replaced version's bytes are freed once the window drops it; current ones stay however many collections run", async () => {
    const shared = newStore();
    const clock = { t: 0 };
    const c = new WatchCache({ sharedStore: new HeldStore(shared), now: () => clock.t, windowMs: 1_000 });
    c.reset([[`${P}x`, cm('x', 5, 'first')], [`${P}z`, cm('z', 5)]], 5);
    c.apply({ type: 'put', key: `${P}x`, revision: 6, object: cm('x', 6, 'second') });
    expect(shared.stats().entries).toBe(3);
    // The first version is the window's previous state of revision 6: kept until evicted.
    await collect(() => false, 3);
    expect(shared.stats().entries).toBe(3);
    clock.t += 5_000;
    c.evict();
    expect(c.windowLength).toBe(0);
    await collect(() => shared.stats().entries === 2);
    expect(shared.stats().entries).toBe(2);
    // The state's handles own their references without a finalizer: nothing else holds them.
    await collect(() => false, 3);
    expect(shared.stats().entries).toBe(2);
    expect(c.get(`${P}x`)).toEqual(cm('x', 6, 'second'));
    expect(c.get(`${P}z`)).toEqual(cm('z', 5));
  }, 90_000);

  test('a relist and a collected cache let their versions go; a snapshot keeps what it holds', async () => {
    const shared = newStore();
    let c: WatchCache | undefined = new WatchCache({ sharedStore: new HeldStore(shared) });
    c.reset([[`${P}a`, cm('a', 5)], [`${P}b`, cm('b', 5)]], 5);
    c.apply({ type: 'delete', key: `${P}b`, revision: 6 });
    const snap = c.snapshot(P);
    expect(snap.keys).toEqual([`${P}a`]);
    c.reset([[`${P}c`, cm('c', 7)]], 7);
    // a@5 in the snapshot; b@5 and its DELETED object (same entry) only in the dropped window.
    await collect(() => shared.stats().entries === 2);
    expect(shared.stats().entries).toBe(2);
    expect(JSON.parse((snap.objects[0] as Held).json().toString())).toEqual(cm('a', 5));
    c = undefined;
    // The cache's finalizer disowns c@7, then its handle's drops the reference.
    await collect(() => shared.stats().entries === 1);
    expect(shared.stats().entries).toBe(1);
    expect((snap.objects[0] as Held).toObject()).toEqual(cm('a', 5));
  }, 90_000);

  test('a list without a selector answers the stored bytes without decoding', () => {
    const shared = newStore();
    const c = new WatchCache({ sharedStore: new HeldStore(shared) });
    c.reset(
      Array.from({ length: 10 }, (_, i) => [`${P}o${i}`, cm(`o${i}`, 10 + i)] as const),
      30,
    );
    forgetDecoded();
    const entries = c.entries(P);
    expect(entries.map((e) => (e as { decoded?: unknown }).decoded)).toEqual(new Array(10).fill(undefined));
    expect(entries.map((e) => JSON.parse((e as { json(): Buffer }).json().toString()))).toEqual(
      Array.from({ length: 10 }, (_, i) => cm(`o${i}`, 10 + i)),
    );
  });
});
