import type { KubeObject } from '@cluster/apimachinery';
import { isStorageError } from '../errors.js';
import type { WatchEvent } from '../interfaces.js';
import { Cacher } from './cacher.js';
import type { CacherSource, ChangeSink } from './cacher-source.js';

const P = '/registry/core/configmaps/';
const obj = (name: string, rv: number): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: String(rv) } });

/** An in-memory etcd stand-in: a revision counter, objects, and the one watch a cacher opens. */
class FakeSource implements CacherSource {
  rev = 10;
  objects = new Map<string, KubeObject>([[`${P}ns/a`, obj('a', 10)]]);
  sinks: ChangeSink[] = [];
  lists = 0;
  async listEntries(prefix: string, revision?: number): Promise<{ entries: [string, KubeObject][]; revision: number }> {
    this.lists++;
    const entries = [...this.objects].filter(([k]) => k.startsWith(prefix));
    return { entries, revision: revision ?? this.rev };
  }
  watchChanges(_prefix: string, _from: number, sink: ChangeSink): { close(): Promise<void> } {
    this.sinks.push(sink);
    return { close: async () => undefined };
  }
  async currentRevision(): Promise<number> {
    return this.rev;
  }
  duringCount: (() => void) | undefined;
  /** When set, each count's answer (taken when it is sent, as etcd would) is held until this resolves. */
  holdCount: (() => Promise<void>) | undefined;
  counts = 0;
  async countChangesSince(prefix: string, after: number): Promise<{ revision: number; count: number; changedSince: number }> {
    this.counts++;
    this.duringCount?.();
    const under = [...this.objects].filter(([k]) => k.startsWith(prefix));
    const changedSince = under.filter(([, o]) => Number(o.metadata.resourceVersion) > after).length;
    const answer = { revision: this.rev, count: under.length, changedSince };
    await this.holdCount?.();
    return answer;
  }
  remove(name: string, deliver = true): void {
    const key = `${P}ns/${name}`;
    const prev = this.objects.get(key);
    this.objects.delete(key);
    ++this.rev;
    if (deliver) this.sinks.at(-1)?.onChanges([{ type: 'delete', key, revision: this.rev, ...(prev ? { object: prev } : {}) }]);
  }
  put(name: string, deliver = true): void {
    const o = obj(name, ++this.rev);
    this.objects.set(`${P}ns/${name}`, o);
    if (deliver) this.sinks.at(-1)?.onChanges([{ type: 'put', key: `${P}ns/${name}`, revision: this.rev, object: o }]);
  }
}

async function take(it: AsyncIterable<WatchEvent>, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const iter = it[Symbol.asyncIterator]();
  for (let i = 0; i < n; i++) {
    const r = await iter.next();
    if (r.done) break;
    // What a consumer reads of an event (a cache with a shared store decodes objects on read).
    const { type, object, revision } = r.value;
    out.push({ type, object, revision });
  }
  return out;
}

describe('Cacher (fake etcd)', () => {
  let source: FakeSource;
  let cacher: Cacher;
  const ac = new AbortController();
  beforeEach(async () => {
    source = new FakeSource();
    cacher = new Cacher(source, P, { waitTimeoutMs: 200, freshWaitMs: 20, bookmarkIntervalMs: 50 });
    cacher.start();
    await cacher.waitReady();
  });
  afterEach(() => cacher.close());

  test('rejects a malformed resourceVersion', async () => {
    await expect(cacher.watch(P, { resourceVersion: 'abc', signal: ac.signal })).rejects.toThrow('invalid resource version: abc');
  });

  test('a revision newer than etcd fails with TooLargeResourceVersion after the wait', async () => {
    const started = Date.now();
    let err: unknown;
    await cacher.watch(P, { resourceVersion: '50', signal: ac.signal }).catch((e: unknown) => (err = e));
    expect(isStorageError(err, 'TooLargeResourceVersion')).toBe(true);
    expect((err as { currentRevision?: number }).currentRevision).toBe(10);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  test('a revision etcd has but the cache has not heard of yet is served without waiting for the cache', async () => {
    source.put('b', false); // rev 11, not delivered yet
    source.put('c', false); // rev 12
    const w = await cacher.watch(P, { resourceVersion: '11', signal: ac.signal });
    source.sinks[0]!.onChanges([
      { type: 'put', key: `${P}ns/b`, revision: 11, object: obj('b', 11) },
      { type: 'put', key: `${P}ns/c`, revision: 12, object: obj('c', 12) },
    ]);
    expect((await take(w, 1)).map((e) => e.object.metadata.name)).toEqual(['c']);
  });

  test('a most-recent watch on a lagging cache reads its start state from etcd', async () => {
    source.put('b', false); // rev 11, still in flight
    const lists = source.lists;
    const w = await cacher.watch(P, { signal: ac.signal });
    expect(source.lists).toBe(lists + 1);
    // The in-flight event is part of the start state and is not repeated.
    source.sinks[0]!.onChanges([{ type: 'put', key: `${P}ns/b`, revision: 11, object: obj('b', 11) }]);
    source.put('c');
    expect((await take(w, 3)).map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
      ['ADDED', 'c'],
    ]);
  });

  test('progress notifications advance the revision and become bookmarks', async () => {
    const w = await cacher.watch(P, { resourceVersion: '10', allowBookmarks: true, signal: ac.signal });
    source.sinks[0]!.onProgress(15);
    expect(cacher.revision).toBe(15);
    expect(await take(w, 1)).toEqual([{ type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } }, revision: 15 }]);
  });

  test('sendInitialEvents ends the initial events with an annotated bookmark', async () => {
    const w = await cacher.watch(P, { resourceVersion: '0', sendInitialEvents: true, allowBookmarks: true, signal: ac.signal });
    expect(await take(w, 2)).toEqual([
      { type: 'ADDED', object: obj('a', 10), revision: 10 },
      {
        type: 'BOOKMARK',
        object: { metadata: { resourceVersion: '10', annotations: { 'k8s.io/initial-events-end': 'true' } } },
        revision: 10,
      },
    ]);
  });

  test('a compacted etcd watch ends every watcher with 410 and lists again', async () => {
    const w1 = await cacher.watch(P, { resourceVersion: '0', signal: ac.signal });
    const w2 = await cacher.watch(`${P}ns/`, { resourceVersion: '10', signal: ac.signal });
    source.put('b');
    source.sinks[0]!.onCompacted(11);
    // Unread events are dropped: the client lists again anyway.
    const e1 = await take(w1, 10);
    expect(e1.map((e) => e.type)).toEqual(['ERROR']);
    expect(e1[0]?.object).toMatchObject({ code: 410, reason: 'Expired', message: 'The resourceVersion for the provided watch is too old.' });
    expect((await take(w2, 10)).map((e) => e.type)).toEqual(['ERROR']);
    await cacher.waitReady();
    expect(source.sinks).toHaveLength(2);
    expect(cacher.watcherCount).toBe(0);
    const fresh = await cacher.watch(P, { resourceVersion: '0', signal: ac.signal });
    expect((await take(fresh, 2)).map((e) => e.object.metadata.name)).toEqual(['a', 'b']);
  });

  test('a throwing predicate ends only its own watch', async () => {
    const bad = await cacher.watch(P, {
      resourceVersion: '10',
      predicate: () => {
        throw new Error('boom');
      },
      signal: ac.signal,
    });
    const good = await cacher.watch(P, { resourceVersion: '10', signal: ac.signal });
    source.put('b');
    expect((await take(bad, 5)).map((e) => [e.type, e.object['code']])).toEqual([['ERROR', 500]]);
    expect((await take(good, 1)).map((e) => e.object.metadata.name)).toEqual(['b']);
  });

  test('close ends all watchers', async () => {
    const w = await cacher.watch(P, { resourceVersion: '0', signal: ac.signal });
    await cacher.close();
    expect((await take(w, 5)).map((e) => e.type)).toEqual(['ADDED']);
    await expect(cacher.watch(P, { signal: ac.signal })).rejects.toThrow('the watch cache is closed');
  });

  describe('confirmCurrent: proving the cached state current with one count read', () => {
    const cases: Array<[string, (src: FakeSource) => void, ((src: FakeSource) => void) | undefined, number | undefined]> = [
      ['the cache has seen etcd\'s revision', () => undefined, undefined, 10],
      ['only keys elsewhere were written since: etcd\'s revision', (src) => (src.rev += 2), undefined, 12],
      ['a put under the prefix the cache has not seen', (src) => src.put('b', false), undefined, undefined],
      ['a delete under the prefix the cache has not seen', (src) => src.remove('a', false), undefined, undefined],
      ['the cache caught up while the read was in flight', (src) => src.put('b', false), (src) => src.sinks.at(-1)?.onChanges([{ type: 'put', key: `${P}ns/b`, revision: 11, object: src.objects.get(`${P}ns/b`)! }]), 11],
      ['the cache moved (not to etcd\'s revision) while the read was in flight', (src) => {
        src.put('b', false);
        src.rev += 1;
      }, (src) => src.sinks.at(-1)?.onChanges([{ type: 'put', key: `${P}ns/b`, revision: 11, object: src.objects.get(`${P}ns/b`)! }]), undefined],
    ];
    test.each(cases)('%s', async (_name, before, during, expected) => {
      before(source);
      source.duringCount = during && (() => during(source));
      const got = await cacher.confirmCurrent(`${P}ns/`);
      expect(got?.revision).toBe(expected);
      if (got) expect(cacher.stillCurrent(got.revision, got.cacheRevision)).toBe(true);
    });

    test('a proof is reused while neither etcd nor the cache moved, and made again when etcd did', async () => {
      source.rev += 2;
      expect((await cacher.confirmCurrent(`${P}ns/`))?.revision).toBe(12);
      expect((await cacher.confirmCurrent(`${P}ns/`))?.revision).toBe(12);
      expect(source.counts).toBe(1);
      source.put('b', false);
      expect(await cacher.confirmCurrent(`${P}ns/`)).toBeUndefined();
      expect(source.counts).toBe(2);
    });

    test('concurrent callers share a count sent after they arrived; a caller arriving after it was sent sends its own', async () => {
      const held: Array<() => void> = [];
      source.holdCount = () => new Promise<void>((resolve) => held.push(resolve));
      const settle = () => new Promise((r) => setImmediate(r));
      source.rev += 2;
      const first = [cacher.confirmCurrent(`${P}ns/`), cacher.confirmCurrent(`${P}ns/`), cacher.confirmCurrent(`${P}ns/`)];
      await settle();
      expect(source.counts).toBe(1);
      // Etcd moves again; a caller arriving now must not take the answer already on its way.
      source.rev += 1;
      const later = cacher.confirmCurrent(`${P}ns/`);
      await settle();
      expect(source.counts).toBe(2);
      for (const release of held) release();
      expect((await Promise.all(first)).map((r) => r?.revision)).toEqual([12, 12, 12]);
      expect((await later)?.revision).toBe(13);
    });

    test('what was shown no longer holds once the cache moves on below etcd\'s revision', async () => {
      source.rev += 2;
      const got = (await cacher.confirmCurrent(`${P}ns/`))!;
      expect(got.revision).toBe(12);
      source.sinks.at(-1)?.onProgress(11);
      expect(cacher.stillCurrent(got.revision, got.cacheRevision)).toBe(false);
    });
  });
});
