import type { KubeObject } from '@cluster/apimachinery';
import { RecentWrites } from './recent-writes.js';

const obj = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });
const stored = (o: KubeObject, rv: string): KubeObject => ({ ...o, metadata: { ...o.metadata, resourceVersion: rv } });
const bytes = (s: string): Buffer => Buffer.from(s);

describe('RecentWrites', () => {
  test("the event of an answered write gets the object the store returned, once, when its revision and bytes are the write's", () => {
    const w = new RecentWrites();
    const a = obj('a');
    const v = bytes('{"a":1}');
    w.begin('/k/a', v, a);
    const s = stored(a, '5');
    w.done('/k/a', v, '5', s);
    expect(w.take('/k/a', '5', bytes('{"a":1}'))).toBe(s);
    expect(w.take('/k/a', '5', bytes('{"a":1}'))).toBeUndefined();
    expect(w.size).toBe(0);
  });

  test("an event that comes before the write's answer gets the written object with the event's revision", () => {
    const w = new RecentWrites();
    const a = obj('a');
    const v = bytes('{"a":1}');
    w.begin('/k/a', v, a);
    const got = w.take('/k/a', '9', bytes('{"a":1}'));
    expect(got).toEqual(stored(a, '9'));
    expect(Object.keys(got!.metadata)).toEqual(['name', 'resourceVersion']);
    // The answer afterwards changes nothing.
    w.done('/k/a', v, '9', stored(a, '9'));
    expect(w.size).toBe(0);
  });

  test('other bytes or another revision are parsed as usual', () => {
    const w = new RecentWrites();
    const va = bytes('{"a":1}');
    w.begin('/k/a', va, obj('a'));
    // Another writer's bytes: ours is still to come.
    expect(w.take('/k/a', '4', bytes('{"a":2}'))).toBeUndefined();
    expect(w.size).toBe(1);
    w.done('/k/a', va, '5', stored(obj('a'), '5'));
    // An event older than the write keeps the entry for the write's own event...
    expect(w.take('/k/a', '4', va)).toBeUndefined();
    expect(w.size).toBe(1);
    // ...a later one drops it (its event went by).
    expect(w.take('/k/a', '6', va)).toBeUndefined();
    expect(w.size).toBe(0);
  });

  test('a failed write is forgotten; a later write of the key replaces an earlier one', () => {
    const w = new RecentWrites();
    const v1 = bytes('{"v":1}');
    w.begin('/k/a', v1, obj('a'));
    w.forget('/k/a', v1);
    expect(w.size).toBe(0);
    w.begin('/k/a', v1, obj('a'));
    const v2 = bytes('{"v":2}');
    w.begin('/k/a', v2, obj('a'));
    // The first write's answer and failure no longer touch the entry of the second.
    w.done('/k/a', v1, '5', stored(obj('a'), '5'));
    w.forget('/k/a', v1);
    expect(w.take('/k/a', '6', v2)).toEqual(stored(obj('a'), '6'));
  });

  test('objects whose key order is not the stored one are not remembered', () => {
    const w = new RecentWrites();
    w.begin('/k/a', bytes('x'), { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' } });
    w.begin('/k/b', bytes('x'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', resourceVersion: '3' } });
    expect(w.size).toBe(0);
  });

  test('is bounded: the oldest writes are forgotten first', () => {
    const w = new RecentWrites(2);
    for (const n of ['a', 'b', 'c']) w.begin(`/k/${n}`, bytes(n), obj(n));
    expect(w.size).toBe(2);
    expect(w.take('/k/a', '1', bytes('a'))).toBeUndefined();
    expect(w.take('/k/c', '3', bytes('c'))).toBeDefined();
  });
});
