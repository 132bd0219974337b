import type { KubeObject } from '@cluster/apimachinery';
import { isStorageError } from '../errors.js';
import { WatchCache } from './watch-cache.js';
import { objectOf } from './held.js';
import { storedMetadataJsonOf } from './cache-event.js';

const P = '/registry/core/configmaps/';
const obj = (ns: string, name: string, rv: number, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, resourceVersion: String(rv), labels },
});
const key = (ns: string, name: string): string => `${P}${ns}/${name}`;

function newCache(opts: { windowMs?: number; maxEvents?: number } = {}): { cache: WatchCache; clock: { t: number } } {
  const clock = { t: 1_000 };
  const cache = new WatchCache({ ...opts, now: () => clock.t });
  cache.reset([[key('a', 'x'), obj('a', 'x', 3)]], 10);
  return { cache, clock };
}

describe('WatchCache', () => {
  test('applies puts and deletes, classifying them and tracking the previous state', () => {
    const { cache } = newCache();
    const added = cache.apply({ type: 'put', key: key('a', 'y'), revision: 11, object: obj('a', 'y', 11) });
    expect(added).toMatchObject({ type: 'ADDED', revision: 11 });
    expect(added?.prevObject).toBeUndefined();
    const modified = cache.apply({ type: 'put', key: key('a', 'x'), revision: 12, object: obj('a', 'x', 12) });
    expect(modified).toMatchObject({ type: 'MODIFIED', prevObject: obj('a', 'x', 3) });
    const deleted = cache.apply({ type: 'delete', key: key('a', 'y'), revision: 13 });
    expect(deleted?.type).toBe('DELETED');
    // DELETED carries the last state with the delete revision.
    expect(deleted?.object).toEqual(obj('a', 'y', 13));
    expect(cache.revision).toBe(13);
    expect(cache.list(P).map((o) => o.metadata.name)).toEqual(['x']);
    expect(cache.get(key('a', 'y'))).toBeUndefined();
  });

  test("an event's stored metadata JSON is its object's metadata serialized, with a shared store only", () => {
    const { cache } = newCache();
    const shared = cache.holdsShared;
    const labels = { 'a/b': 'c"}{', '\u00fc': 'x' };
    const added = cache.apply({ type: 'put', key: key('a', 'y'), revision: 11, object: { ...obj('a', 'y', 11, labels), data: { metadata: '{}' } } as KubeObject })!;
    const modified = cache.apply({ type: 'put', key: key('a', 'x'), revision: 12, object: obj('a', 'x', 12) })!;
    const deleted = cache.apply({ type: 'delete', key: key('a', 'y'), revision: 13 })!;
    for (const ev of [added, modified]) {
      const json = storedMetadataJsonOf(ev)?.toString('utf8');
      expect(json).toBe(shared ? JSON.stringify(ev.object.metadata) : undefined);
    }
    // A DELETED event's object carries the delete's revision, not the stored one.
    expect(storedMetadataJsonOf(deleted)).toBeUndefined();
    expect(storedMetadataJsonOf({ type: 'ADDED', object: obj('a', 'z', 1) })).toBeUndefined();
  });

  test('a delete of an unknown key without prev value changes nothing but the revision', () => {
    const { cache } = newCache();
    expect(cache.apply({ type: 'delete', key: key('a', 'nope'), revision: 11 })).toBeUndefined();
    expect(cache.revision).toBe(11);
    expect(cache.windowLength).toBe(0);
  });

  test('eventsAfter replays exactly the events after N and refuses revisions before the window', () => {
    const { cache } = newCache();
    for (let r = 11; r <= 15; r++) cache.apply({ type: 'put', key: key('a', `n${r}`), revision: r, object: obj('a', `n${r}`, r) });
    expect(cache.eventsAfter(12).map((e) => e.revision)).toEqual([13, 14, 15]);
    expect(cache.eventsAfter(10).map((e) => e.revision)).toEqual([11, 12, 13, 14, 15]);
    expect(cache.eventsAfter(15)).toEqual([]);
    expect(cache.eventsAfter(99)).toEqual([]);
    let err: unknown;
    try {
      cache.eventsAfter(9);
    } catch (e) {
      err = e;
    }
    expect(isStorageError(err, 'Compacted')).toBe(true);
    expect((err as Error).message).toBe('too old resource version: 9 (10)');
  });

  test('evicts by age, moving the window start to the evicted revision', () => {
    const { cache, clock } = newCache({ windowMs: 1_000 });
    cache.apply({ type: 'put', key: key('a', 'p'), revision: 11, object: obj('a', 'p', 11) });
    clock.t += 600;
    cache.apply({ type: 'put', key: key('a', 'q'), revision: 12, object: obj('a', 'q', 12) });
    clock.t += 600;
    cache.evict();
    expect(cache.windowLength).toBe(1);
    expect(cache.windowStart).toBe(11);
    expect(cache.eventsAfter(11).map((e) => e.revision)).toEqual([12]);
    expect(() => cache.eventsAfter(10)).toThrow('too old resource version: 10 (11)');
    clock.t += 600;
    cache.evict();
    expect(cache.windowLength).toBe(0);
    expect(cache.windowStart).toBe(12);
    // The state is not affected by eviction.
    expect(cache.list(P)).toHaveLength(3);
  });

  test('evicts by count, a whole revision at a time', () => {
    const { cache } = newCache({ maxEvents: 3 });
    // Two events of one transaction share revision 11.
    cache.apply({ type: 'put', key: key('a', 'p'), revision: 11, object: obj('a', 'p', 11) });
    cache.apply({ type: 'put', key: key('a', 'q'), revision: 11, object: obj('a', 'q', 11) });
    cache.apply({ type: 'put', key: key('a', 'r'), revision: 12, object: obj('a', 'r', 12) });
    expect(cache.windowLength).toBe(3);
    cache.apply({ type: 'put', key: key('a', 's'), revision: 13, object: obj('a', 's', 13) });
    expect(cache.windowLength).toBe(2);
    expect(cache.windowStart).toBe(11);
    expect(cache.eventsAfter(11).map((e) => e.revision)).toEqual([12, 13]);
  });

  test('advance moves the revision forward only', () => {
    const { cache } = newCache();
    expect(cache.advance(20)).toBe(true);
    expect(cache.advance(15)).toBe(false);
    expect(cache.revision).toBe(20);
  });

  test('lists and synthesizes ADDED by prefix, exact key and predicate, sorted by key, sharing events', () => {
    const cache = new WatchCache();
    cache.reset(
      [
        [key('b', 'z'), obj('b', 'z', 4, { app: 'web' })],
        [key('a', 'y'), obj('a', 'y', 3, { app: 'db' })],
        [key('a', 'x'), obj('a', 'x', 2, { app: 'web' })],
        [key('ab', 'w'), obj('ab', 'w', 5)],
      ],
      5,
    );
    expect(cache.list(P).map((o) => o.metadata.name)).toEqual(['x', 'y', 'w', 'z']);
    expect(cache.list(`${P}a/`).map((o) => o.metadata.name)).toEqual(['x', 'y']);
    expect(cache.list(key('a', 'y')).map((o) => o.metadata.name)).toEqual(['y']);
    const web = (o: KubeObject): boolean => o.metadata.labels?.['app'] === 'web';
    expect(cache.list(P, web).map((o) => o.metadata.name)).toEqual(['x', 'z']);
    const first = cache.addedEvents(`${P}a/`);
    expect(first.map((e) => [e.type, e.revision])).toEqual([
      ['ADDED', 2],
      ['ADDED', 3],
    ]);
    expect(cache.addedEvents(`${P}a/`)[0]).toBe(first[0]);
  });
});

describe('WatchCache key order (kept incrementally)', () => {
  test('lists stay sorted by key through creates, deletes and re-creates, per prefix', () => {
    const cache = new WatchCache();
    cache.reset([[key('b', 'm'), obj('b', key('b', 'm'), 1)]], 1);
    const live = new Map<string, number>([[key('b', 'm'), 1]]);
    let rev = 1;
    // A deterministic pseudo-random sequence of writes over a few namespaces and names.
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 400; i++) {
      const k = key(['a', 'b', 'c'][next(3)]!, `n${next(20)}`);
      rev++;
      if (live.has(k) && next(3) === 0) {
        cache.apply({ type: 'delete', key: k, revision: rev });
        live.delete(k);
      } else {
        cache.apply({ type: 'put', key: k, revision: rev, object: obj('x', k, rev) });
        live.set(k, rev);
      }
      if (i % 7 === 0) {
        const want = [...live.keys()].sort();
        expect(cache.list(P).map((o) => o.metadata.name)).toEqual(want);
        expect(cache.list(`${P}b/`).map((o) => o.metadata.name)).toEqual(want.filter((x) => x.startsWith(`${P}b/`)));
        expect(cache.snapshot(`${P}c/`).keys).toEqual(want.filter((x) => x.startsWith(`${P}c/`)));
      }
    }
  });

  test.each([
    ['nothing', () => undefined, true],
    ['a put of a new key in another prefix', (c: WatchCache) => c.apply({ type: 'put', key: key('b', 'y'), revision: 11, object: obj('b', 'y', 11) }), false],
    ['a second change at the same revision', (c: WatchCache) => c.apply({ type: 'put', key: key('a', 'x'), revision: 10, object: obj('a', 'x', 10) }), false],
    ['a delete', (c: WatchCache) => c.apply({ type: 'delete', key: key('a', 'x'), revision: 11 }), false],
    ['a progress notification', (c: WatchCache) => c.advance(20), true],
    ['a relist to the same revision', (c: WatchCache) => c.reset([[key('a', 'x'), obj('a', 'x', 3)]], 10), false],
  ])('a snapshot is reused after %s: %s', (_name, change, reused) => {
    const { cache } = newCache();
    const first = cache.snapshot(`${P}a/`);
    change(cache);
    const second = cache.snapshot(`${P}a/`);
    expect(second === first).toBe(reused);
    expect(cache.snapshot(`${P}a/`).objects.map(objectOf)).toEqual(cache.list(`${P}a/`));
  });

  test('namespace strings are shared, the objects stay equal', () => {
    const { cache } = newCache();
    cache.apply({ type: 'put', key: key('a', 'y'), revision: 11, object: obj('a', 'y', 11) });
    expect(cache.get(key('a', 'y'))).toEqual(obj('a', 'y', 11));
  });

  describe('stateAt', () => {
    // From newCache: a/x at 10; then these changes.
    const changes = (c: WatchCache): void => {
      c.apply({ type: 'put', key: key('a', 'y'), revision: 11, object: obj('a', 'y', 11) });
      c.apply({ type: 'put', key: key('a', 'x'), revision: 12, object: obj('a', 'x', 12) });
      c.apply({ type: 'put', key: key('b', 'z'), revision: 13, object: obj('b', 'z', 13) });
      c.apply({ type: 'delete', key: key('a', 'y'), revision: 14 });
      c.apply({ type: 'put', key: key('a', 'w'), revision: 15, object: obj('a', 'w', 15) });
      c.apply({ type: 'delete', key: key('a', 'x'), revision: 15 });
    };
    test.each([
      [10, [['x', '3']]],
      [11, [['x', '3'], ['y', '11']]],
      [12, [['x', '12'], ['y', '11']]],
      [13, [['x', '12'], ['y', '11']]],
      [14, [['x', '12']]],
      [15, [['w', '15']]],
    ])('the state of a/ at %d', (revision, want) => {
      const { cache } = newCache();
      changes(cache);
      const state = cache.stateAt(`${P}a/`, revision)!;
      expect(state.keys).toEqual(want.map(([name]) => key('a', name!)));
      expect(state.objects.map(objectOf).map((o) => [o.metadata.name, o.metadata.resourceVersion])).toEqual(want);
      // The cache's own state is untouched.
      expect(cache.list(`${P}a/`).map((o) => o.metadata.name)).toEqual(['w']);
    });

    test.each([
      ['ahead of the cache', 16],
      ['before the window', 9],
    ])('undefined when %s', (_name, revision) => {
      const { cache } = newCache();
      changes(cache);
      expect(cache.stateAt(`${P}a/`, revision)).toBeUndefined();
    });

    test('undefined once the window no longer reaches back to it', () => {
      const { cache, clock } = newCache({ windowMs: 1_000 });
      changes(cache);
      clock.t += 2_000;
      cache.evict();
      expect(cache.stateAt(`${P}a/`, 12)).toBeUndefined();
      expect(cache.stateAt(`${P}a/`, 15)?.keys).toEqual([key('a', 'w')]);
    });
  });
});
