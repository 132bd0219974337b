import { FieldSet } from './field-set.js';
import { fieldsV1ToSet, toFieldsV1 } from './fields-v1.js';
import { pathString, type FieldPath } from './path-element.js';

const f = (...names: string[]): FieldPath => names.map((field) => ({ field }));
const show = (s: FieldSet): string[] => s.paths().map(pathString);

describe('FieldSet', () => {
  const a = FieldSet.of(f('data'), f('data', 'a'), f('data', 'b'), f('metadata', 'labels', 'x'));
  const b = FieldSet.of(f('data', 'b'), f('data', 'c'), f('metadata', 'labels', 'x'), f('spec'));

  test.each([
    ['union', a.union(b), ['.data', '.spec', '.data.a', '.data.b', '.data.c', '.metadata.labels.x']],
    ['intersection', a.intersection(b), ['.data.b', '.metadata.labels.x']],
    ['difference a-b', a.difference(b), ['.data', '.data.a']],
    ['difference b-a', b.difference(a), ['.spec', '.data.c']],
  ])('%s', (_n, set, paths) => {
    expect(show(set)).toEqual(paths);
  });

  test('operations do not modify their operands', () => {
    expect(show(a)).toEqual(['.data', '.data.a', '.data.b', '.metadata.labels.x']);
    expect(a.size()).toBe(4);
  });

  test('a member does not cover its children (exact paths)', () => {
    expect(FieldSet.of(f('data')).intersection(FieldSet.of(f('data', 'a'))).isEmpty()).toBe(true);
    expect(show(FieldSet.of(f('data'), f('data', 'a')).difference(FieldSet.of(f('data'))))).toEqual(['.data.a']);
  });

  test('empty sets and empty paths', () => {
    expect(new FieldSet().isEmpty()).toBe(true);
    expect(FieldSet.of([]).isEmpty()).toBe(true);
    expect(a.difference(a).isEmpty()).toBe(true);
    expect(toFieldsV1(a.difference(a))).toEqual({});
    expect(a.has(f('data', 'a'))).toBe(true);
    expect(a.has(f('metadata', 'labels'))).toBe(false);
    expect(a.equals(fieldsV1ToSet(toFieldsV1(a)))).toBe(true);
  });

  test('path elements of all kinds are distinct', () => {
    const s = FieldSet.of([{ value: 1 }], [{ value: '1' }], [{ index: 1 }], [{ field: '1' }], [{ key: [['k', 1]] }], [{ key: [['k', '1']] }]);
    expect(s.size()).toBe(6);
    expect(show(s)).toEqual(['.1', '[k=1]', '[k="1"]', '[=1]', '[="1"]', '[1]']);
  });
});
