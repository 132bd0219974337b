import type { KubeObject } from '@cluster/apimachinery';
import { decodeContinue } from '../etcd3/continue-token.js';
import { pageOfSnapshot, SnapshotStore, type ListSnapshot } from './list-snapshot.js';

const P = '/registry/core/configmaps/ns/';
const obj = (name: string, tier: string): KubeObject => ({ metadata: { name, resourceVersion: '3', labels: { tier } } });
const snap: ListSnapshot = {
  prefix: P,
  revision: 42,
  keys: ['a', 'b', 'c', 'd', 'e'].map((n) => P + n),
  objects: [obj('a', 'x'), obj('b', 'y'), obj('c', 'x'), obj('d', 'y'), obj('e', 'x')],
};
const isX = (o: KubeObject): boolean => o.metadata.labels?.['tier'] === 'x';
const names = (items: KubeObject[]): string => items.map((o) => o.metadata.name).join('');

describe('pageOfSnapshot', () => {
  test.each([
    // [case, options, names, next start (relative) or undefined, remainingItemCount]
    ['no limit: everything', {}, 'abcde', undefined, undefined],
    ['limit 2 from the start', { limit: 2 }, 'ab', 'b\u0000', 3],
    ['limit 2 after b', { limit: 2, startKey: `${P}b\u0000` }, 'cd', 'd\u0000', 1],
    ['the last page', { limit: 2, startKey: `${P}d\u0000` }, 'e', undefined, undefined],
    ['a limit ending exactly on the last key', { limit: 5 }, 'abcde', undefined, undefined],
    ['a start key that no longer exists', { limit: 1, startKey: `${P}bb` }, 'c', 'c\u0000', 2],
    ['a selector fills up to the limit', { limit: 2, predicate: isX, hasSelector: true }, 'ac', 'c\u0000', undefined],
    ['a selector whose last match is the last key', { limit: 3, predicate: isX, hasSelector: true }, 'ace', undefined, undefined],
    ['a selector that runs out before the limit', { limit: 2, predicate: isX, hasSelector: true, startKey: `${P}d` }, 'e', undefined, undefined],
    ['the limit reached on the last key', { limit: 1, predicate: isX, hasSelector: true, startKey: `${P}d` }, 'e', undefined, undefined],
    ['past the end', { limit: 2, startKey: `${P}z` }, '', undefined, undefined],
  ])('%s', (_name, opts, want, next, remaining) => {
    const page = pageOfSnapshot(snap, opts);
    expect(names(page.items)).toBe(want);
    expect(page.resourceVersion).toBe('42');
    expect(page.remainingItemCount).toBe(remaining);
    if (next === undefined) {
      expect(page.continueToken).toBeUndefined();
    } else {
      expect(decodeContinue(page.continueToken!)).toEqual({ revision: 42, startRelative: next });
    }
  });

  test('a selector stopping at the limit before the end continues after the last match', () => {
    const page = pageOfSnapshot(snap, { limit: 1, predicate: isX, hasSelector: true });
    expect(names(page.items)).toBe('a');
    expect(decodeContinue(page.continueToken!)).toEqual({ revision: 42, startRelative: 'a\u0000' });
    expect(page.remainingItemCount).toBeUndefined();
  });
});

describe('SnapshotStore', () => {
  const at = (revision: number, prefix = P): ListSnapshot => ({ prefix, revision, keys: [], objects: [] });

  test('finds by prefix and exact revision', () => {
    const s = new SnapshotStore();
    s.add(at(5));
    expect(s.get(P, 5)?.revision).toBe(5);
    expect(s.get(P, 6)).toBeUndefined();
    expect(s.get('/registry/core/configmaps/other/', 5)).toBeUndefined();
  });

  test('drops the least recently used beyond the bound', () => {
    const s = new SnapshotStore(2);
    s.add(at(1));
    s.add(at(2));
    s.get(P, 1);
    s.add(at(3));
    expect(s.get(P, 2)).toBeUndefined();
    expect(s.get(P, 1)).toBeDefined();
    expect(s.get(P, 3)).toBeDefined();
  });

  test('expires after the TTL without use; use extends it', () => {
    let now = 0;
    const s = new SnapshotStore(16, 100, () => now);
    s.add(at(1));
    s.add(at(2));
    now = 90;
    expect(s.get(P, 1)).toBeDefined();
    now = 150;
    expect(s.get(P, 1)).toBeDefined();
    expect(s.get(P, 2)).toBeUndefined();
    now = 1_000;
    s.sweep();
    expect(s.size).toBe(0);
  });
});
