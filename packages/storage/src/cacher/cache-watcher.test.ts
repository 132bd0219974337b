import type { KubeObject } from '@cluster/apimachinery';
import type { WatchEvent } from '../interfaces.js';
import type { CacheEvent } from './cache-event.js';
import { CacheWatcher, type CacheWatcherOptions } from './cache-watcher.js';

const P = '/registry/core/configmaps/';
const obj = (name: string, rv: number): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: String(rv) } });
const added = (name: string, rv: number, ns = 'ns'): CacheEvent => ({
  type: 'ADDED',
  key: `${P}${ns}/${name}`,
  revision: rv,
  object: obj(name, rv),
  time: 0,
});
const bookmark = (rv: number): WatchEvent => ({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(rv) } }, revision: rv });

function watcher(extra: Partial<CacheWatcherOptions> = {}): { w: CacheWatcher; ac: AbortController; closed: CacheWatcher[] } {
  const ac = new AbortController();
  const closed: CacheWatcher[] = [];
  const w = new CacheWatcher({ prefix: `${P}ns/`, signal: ac.signal, afterRevision: 10, onClose: (x) => closed.push(x), ...extra });
  return { w, ac, closed };
}

async function take(w: CacheWatcher, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for (let i = 0; i < n; i++) {
    const r = await w.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe('CacheWatcher', () => {
  test('initialEventsPending: true until the last initial event is taken (a watch seat is held that long), false without any', () => {
    const initial: WatchEvent[] = [1, 2, 3].map((i) => ({ type: 'ADDED', object: obj(`i${i}`, i), revision: i }));
    const { w } = watcher({ initialEvents: initial });
    w.dispatch(added('live', 11));
    expect(w.initialEventsPending).toBe(true);
    expect(w.takeReady(2).map((e) => e.object.metadata.name)).toEqual(['i1', 'i2']);
    expect(w.initialEventsPending).toBe(true);
    expect(w.takeReady(10).map((e) => e.object.metadata.name)).toEqual(['i3', 'live']);
    expect(w.initialEventsPending).toBe(false);
    expect(watcher().w.initialEventsPending).toBe(false);
    // Set later (a start state read from etcd): pending again until taken; an aborted watcher has none.
    const later = watcher();
    later.w.setInitial(initial.slice(0, 1));
    expect(later.w.initialEventsPending).toBe(true);
    later.ac.abort();
    expect(later.w.initialEventsPending).toBe(false);
  });

  test('delivers initial events first, then live events after its start revision and in its prefix', async () => {
    const { w } = watcher({ initialEvents: [{ type: 'ADDED', object: obj('i', 5), revision: 5 }] });
    w.dispatch(added('old', 10)); // not after the start revision
    w.dispatch(added('other', 11, 'other-ns'));
    w.dispatch(added('new', 11));
    const got = await take(w, 2);
    expect(got.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'i'],
      ['ADDED', 'new'],
    ]);
  });

  test('an exact-key watcher only sees that key', async () => {
    const { w } = watcher({ prefix: `${P}ns/a` });
    w.dispatch(added('ab', 11));
    w.dispatch(added('a', 12));
    expect((await take(w, 1))[0]?.object.metadata.name).toBe('a');
  });

  test('bookmarks only when allowed, idle and newer than what was sent', async () => {
    const quiet = watcher().w;
    quiet.bookmark(bookmark(20));
    expect(quiet.pending).toBe(0);

    const { w } = watcher({ allowBookmarks: true });
    w.bookmark(bookmark(10)); // not newer than the start revision
    expect(w.pending).toBe(0);
    w.dispatch(added('a', 12));
    w.bookmark(bookmark(13)); // events are waiting
    expect(w.pending).toBe(1);
    await take(w, 1);
    w.bookmark(bookmark(12)); // not newer than the event sent
    expect(w.pending).toBe(0);
    w.bookmark(bookmark(14));
    w.bookmark(bookmark(14));
    expect((await take(w, 1)).map((e) => [e.type, e.revision])).toEqual([['BOOKMARK', 14]]);
    expect(w.pending).toBe(0);
  });

  test('ends at once when the signal aborts, dropping what is buffered', async () => {
    const { w, ac, closed } = watcher();
    w.dispatch(added('a', 11));
    const pending = take(w, 5);
    ac.abort();
    expect(await pending).toHaveLength(1); // the event read before the abort
    expect(await w.next()).toEqual({ value: undefined, done: true });
    expect(closed).toEqual([w]);
    w.dispatch(added('b', 12));
    expect(w.pending).toBe(0);
  });

  test('an already aborted signal gives an ended watcher', async () => {
    const ac = new AbortController();
    ac.abort();
    const w = new CacheWatcher({ prefix: P, signal: ac.signal, afterRevision: 0 });
    expect(w.isOpen).toBe(false);
    expect(await w.next()).toEqual({ value: undefined, done: true });
  });

  test('a reader that keeps up is never closed', async () => {
    const { w } = watcher({ bufferSize: 2, slowBudgetMs: 20 });
    for (let r = 11; r < 41; r++) {
      w.dispatch(added(`o${r}`, r));
      await take(w, 1);
    }
    expect(w.isOpen).toBe(true);
  });

  test('a short burst over the buffer is tolerated when drained within the budget', async () => {
    const { w } = watcher({ bufferSize: 4, slowBudgetMs: 50 });
    for (let r = 11; r <= 16; r++) w.dispatch(added(`o${r}`, r));
    expect(w.pending).toBe(6);
    await take(w, 3);
    await new Promise((r) => setTimeout(r, 80));
    expect(w.isOpen).toBe(true);
    expect((await take(w, 3)).map((e) => e.revision)).toEqual([14, 15, 16]);
  });

  test('a buffer over its size for longer than the budget closes the watcher with 410', async () => {
    const { w, closed } = watcher({ bufferSize: 4, slowBudgetMs: 30 });
    for (let r = 11; r <= 15; r++) w.dispatch(added(`o${r}`, r));
    expect(w.isOpen).toBe(true);
    await new Promise((r) => setTimeout(r, 60));
    expect(w.isOpen).toBe(false);
    expect(closed).toEqual([w]);
    const events = await take(w, 10);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Gone' },
    });
    expect(await w.next()).toEqual({ value: undefined, done: true });
  });

  test('reaching twice the buffer closes the watcher at once', () => {
    const { w } = watcher({ bufferSize: 3, slowBudgetMs: 10_000 });
    for (let r = 11; r <= 16; r++) w.dispatch(added(`o${r}`, r));
    expect(w.isOpen).toBe(false);
  });

  test('terminate without a final event ends after what is queued', async () => {
    const { w } = watcher();
    w.dispatch(added('a', 11));
    w.terminate();
    expect((await take(w, 5)).map((e) => e.revision)).toEqual([11]);
  });

  test('break in for-await unregisters the watcher', async () => {
    const { w, closed } = watcher();
    w.dispatch(added('a', 11));
    w.dispatch(added('b', 12));
    for await (const _ev of w) break;
    expect(closed).toEqual([w]);
    expect(w.isOpen).toBe(false);
  });

  test('push mode: the listener hears of ready events and of the end; finished once all are taken', () => {
    const { w, ac } = watcher({ initialEvents: [{ type: 'ADDED', object: obj('i', 5), revision: 5 }] });
    let calls = 0;
    w.onReady(() => calls++);
    expect(calls).toBe(1); // the initial event is already waiting
    w.dispatch(added('a', 11));
    expect(calls).toBe(2);
    expect(w.takeReady(10).map((e) => e.object.metadata.name)).toEqual(['i', 'a']);
    expect(w.finished).toBe(false);
    ac.abort();
    expect(calls).toBe(3);
    expect(w.finished).toBe(true);
  });

  test('push mode: a terminated watcher is finished only after its final event is taken', () => {
    const { w } = watcher();
    w.onReady(() => undefined);
    w.terminate({ type: 'ERROR', object: { metadata: {} }, revision: 0 });
    expect(w.finished).toBe(false);
    expect(w.takeReady(10).map((e) => e.type)).toEqual(['ERROR']);
    expect(w.finished).toBe(true);
  });

  test('wants() says whether a live revision is still to be delivered', () => {
    const { w, ac } = watcher();
    expect(w.wants(10)).toBe(false);
    expect(w.wants(11)).toBe(true);
    ac.abort();
    expect(w.wants(11)).toBe(false);
  });

  test('takeNext hands out events one at a time, in order, across drains and refills of the queue', () => {
    const { w } = watcher({ initialEvents: [{ type: 'ADDED', object: obj('i', 1), revision: 1 }] });
    expect(w.takeNext()?.object.metadata.name).toBe('i');
    expect(w.takeNext()).toBeUndefined();
    const names: string[] = [];
    let rv = 11;
    // Bursts of different lengths, each drained: slots are reused, nothing is lost or repeated.
    for (const burst of [1, 3, 100, 2, 1]) {
      for (let i = 0; i < burst; i++, rv++) w.dispatch(added(`o${rv}`, rv));
      expect(w.pending).toBe(burst);
      for (let e = w.takeNext(); e; e = w.takeNext()) names.push(e.object.metadata.name!);
      expect(w.pending).toBe(0);
    }
    expect(names).toEqual(Array.from({ length: rv - 11 }, (_, i) => `o${11 + i}`));
    // Partly drained, then more: the order holds.
    w.dispatch(added('p1', 200));
    w.dispatch(added('p2', 201));
    expect(w.takeNext()?.object.metadata.name).toBe('p1');
    w.dispatch(added('p3', 202));
    expect(w.takeReady(10).map((e) => e.object.metadata.name)).toEqual(['p2', 'p3']);
    w.terminate();
    expect(w.takeNext()).toBeUndefined();
    expect(w.finished).toBe(true);
  });

  test('a long queue drained halfway keeps its order (compaction) and the slow bound still counts only waiting events', () => {
    const { w } = watcher({ bufferSize: 3000 });
    for (let i = 0; i < 2000; i++) w.dispatch(added(`o${i}`, 11 + i));
    for (let i = 0; i < 1500; i++) expect(w.takeNext()?.object.metadata.name).toBe(`o${i}`);
    expect(w.pending).toBe(500);
    for (let i = 2000; i < 2100; i++) w.dispatch(added(`o${i}`, 11 + i));
    const rest = w.takeReady(1000).map((e) => e.object.metadata.name);
    expect(rest).toEqual(Array.from({ length: 600 }, (_, i) => `o${1500 + i}`));
    expect(w.isOpen).toBe(true);
  });
});
