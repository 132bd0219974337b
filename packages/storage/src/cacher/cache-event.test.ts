import type { KubeObject } from '@cluster/apimachinery';
import type { Predicate } from '../interfaces.js';
import { bookmarkEvent, transitionType, watchEventFor, type CacheEvent } from './cache-event.js';

const obj = (rv: number, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns', resourceVersion: String(rv), labels },
});
const blue: Predicate = (o) => o.metadata.labels?.['color'] === 'blue';

describe('transitionType (upstream cacheWatcher.convertToWatchEvent)', () => {
  test.each([
    ['create matching', 'ADDED', { color: 'blue' }, undefined, 'ADDED'],
    ['create not matching', 'ADDED', { color: 'red' }, undefined, undefined],
    ['update both matching', 'MODIFIED', { color: 'blue' }, { color: 'blue' }, 'MODIFIED'],
    ['update starts matching', 'MODIFIED', { color: 'blue' }, { color: 'red' }, 'ADDED'],
    ['update stops matching', 'MODIFIED', { color: 'red' }, { color: 'blue' }, 'DELETED'],
    ['update never matching', 'MODIFIED', { color: 'red' }, { color: 'green' }, undefined],
    ['delete of matching', 'DELETED', { color: 'blue' }, { color: 'blue' }, 'DELETED'],
    ['delete of not matching', 'DELETED', { color: 'red' }, { color: 'red' }, undefined],
  ] as const)('%s', (_name, type, cur, prev, expected) => {
    const ev = { type, object: obj(5, cur), ...(prev ? { prevObject: obj(4, prev) } : {}) };
    expect(transitionType(ev, blue)).toBe(expected);
  });

  test('without a predicate every event keeps its type', () => {
    expect(transitionType({ type: 'MODIFIED', object: obj(2), prevObject: obj(1) }, undefined)).toBe('MODIFIED');
    expect(transitionType({ type: 'DELETED', object: obj(2), prevObject: obj(1) }, undefined)).toBe('DELETED');
  });
});

describe('watchEventFor', () => {
  const change = (): CacheEvent => ({
    type: 'MODIFIED',
    key: '/registry/core/configmaps/ns/a',
    revision: 9,
    object: obj(9, { color: 'red' }),
    prevObject: obj(7, { color: 'blue' }),
    time: 0,
  });

  test('an object leaving the selection is DELETED with its old state at the new revision', () => {
    const ev = change();
    const out = watchEventFor(ev, blue);
    expect(out).toEqual({ type: 'DELETED', revision: 9, object: obj(9, { color: 'blue' }) });
    expect(out?.object.metadata.resourceVersion).toBe('9');
    // The old state itself is untouched.
    expect(ev.prevObject?.metadata.resourceVersion).toBe('7');
  });

  test('watchers seeing the same variant share one event object', () => {
    const ev = change();
    const a = watchEventFor(ev, blue);
    const b = watchEventFor(ev, (o) => o.metadata.labels?.['color'] === 'blue');
    expect(a).toBe(b);
    const m1 = watchEventFor(ev, undefined);
    const m2 = watchEventFor(ev, () => true);
    expect(m1).toBe(m2);
    expect(m1?.type).toBe('MODIFIED');
    expect(m1?.object).toBe(ev.object);
  });

  test('a change seen as it happened is the cache event itself: nothing allocated or memoized per event', () => {
    const ev = change();
    expect(watchEventFor(ev, undefined)).toBe(ev);
    expect(watchEventFor(ev, () => true)).toBe(ev);
    expect(ev.variants).toBeUndefined();
    expect(ev.transitions).toBeUndefined();
    const added: CacheEvent = { type: 'ADDED', key: 'k', revision: 3, object: obj(3, {}), time: 0 };
    expect(watchEventFor(added, undefined)).toBe(added);
    expect(added.variants).toBeUndefined();
  });

  test('returns undefined when the watcher sees nothing', () => {
    expect(watchEventFor(change(), () => false)).toBeUndefined();
  });
});

test('bookmark events carry only metadata.resourceVersion', () => {
  expect(bookmarkEvent(42)).toEqual({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '42' } }, revision: 42 });
});
