import type { JsonValue } from '../meta/types.js';
import { EMPTY_PATCH_SCHEMA, patchMetaFromOpenApi } from './patch-meta.js';
import { testDefinitions } from './smp-test-schema.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { frozen, statusErrorOf } from './test-helpers.js';

const pod = patchMetaFromOpenApi(testDefinitions, 'Pod');
const smp = (original: JsonValue, patch: JsonValue): JsonValue =>
  applyStrategicMergePatch(frozen(original), frozen(patch), pod);

const c = (name: string, image: string, extra: Record<string, JsonValue> = {}): JsonValue => ({ name, image, ...extra });

describe('applyStrategicMergePatch: maps', () => {
  test.each<[string, JsonValue, JsonValue, JsonValue]>([
    ['maps merge', { metadata: { labels: { a: '1' } } }, { metadata: { labels: { b: '2' } } }, { metadata: { labels: { a: '1', b: '2' } } }],
    ['null deletes', { metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { a: null } } }, { metadata: { labels: { b: '2' } } }],
    ['null for a missing field is dropped', { metadata: {} }, { metadata: { labels: null } }, { metadata: {} }],
    ['scalars replace', { metadata: { name: 'a' } }, { metadata: { name: 'b' } }, { metadata: { name: 'b' } }],
    ['type change replaces', { metadata: { labels: { a: '1' } } }, { metadata: { labels: 'x' } }, { metadata: { labels: 'x' } }],
    ['new subtree loses its nulls', {}, { spec: { nodeSelector: { a: null, b: '1' } } }, { spec: { nodeSelector: { b: '1' } } }],
    ['$patch: replace replaces the map', { spec: { nodeSelector: { a: '1' } } }, { spec: { nodeSelector: { $patch: 'replace', x: '2' } } }, { spec: { nodeSelector: { x: '2' } } }],
    ['$patch: delete empties the map', { spec: { nodeSelector: { a: '1' } } }, { spec: { nodeSelector: { $patch: 'delete' } } }, { spec: { nodeSelector: {} } }],
    ['a directive map for a missing field is dropped', { spec: {} }, { spec: { nodeSelector: { $patch: 'replace', a: '1' } } }, { spec: {} }],
    ['$patch: delete at the root empties the object', { metadata: { name: 'a' } }, { $patch: 'delete' }, {}],
    ['replace strategy on a map replaces it', { spec: { replaced: { a: '1' } } }, { spec: { replaced: { b: '2' } } }, { spec: { replaced: { b: '2' } } }],
    ['unknown $-keys are ordinary fields', { metadata: {} }, { metadata: { $foo: 'bar' } }, { metadata: { $foo: 'bar' } }],
    ['null patch is a no-op', { metadata: { name: 'a' } }, null, { metadata: { name: 'a' } }],
  ])('%s', (_name, original, patch, expected) => {
    expect(smp(original, patch)).toEqual(expected);
  });
});

describe('applyStrategicMergePatch: lists of maps', () => {
  const spec = (containers: JsonValue): JsonValue => ({ spec: { containers } });
  test.each<[string, JsonValue, JsonValue, JsonValue]>([
    ['merge by key', [c('a', 'x'), c('b', 'y')], [c('b', 'z')], [c('a', 'x'), c('b', 'z')]],
    ['merged fields keep the rest', [c('a', 'x', { args: ['1'] })], [{ name: 'a', image: 'z' }], [c('a', 'z', { args: ['1'] })]],
    // Items new to the list go before the live items the patch does not name.
    ['new items come first', [c('a', 'x'), c('b', 'y')], [c('c', 'w')], [c('c', 'w'), c('a', 'x'), c('b', 'y')]],
    ['patch order wins among named items', [c('a', 'x'), c('b', 'y')], [c('b', 'y'), c('a', 'x')], [c('b', 'y'), c('a', 'x')]],
    ['new item after a named one', [c('a', 'x'), c('b', 'y')], [c('a', 'x'), c('c', 'w')], [c('a', 'x'), c('c', 'w'), c('b', 'y')]],
    ['$patch: delete removes by key', [c('a', 'x'), c('b', 'y')], [{ name: 'a', $patch: 'delete' }], [c('b', 'y')]],
    ['$patch: delete of an absent key is a no-op', [c('a', 'x')], [{ name: 'q', $patch: 'delete' }], [c('a', 'x')]],
    ['$patch: replace replaces the list', [c('a', 'x'), c('b', 'y')], [c('c', 'w'), { $patch: 'replace' }], [c('c', 'w')]],
    ['nested lists merge too', [c('a', 'x', { env: [{ name: 'X', value: '1' }] })], [{ name: 'a', env: [{ name: 'Y', value: '2' }] }], [c('a', 'x', { env: [{ name: 'Y', value: '2' }, { name: 'X', value: '1' }] })]],
    ['null inside an element deletes the field', [c('a', 'x', { args: ['1'] })], [{ name: 'a', args: null }], [c('a', 'x')]],
    ['appended items lose nulls', [], [{ name: 'a', image: null }], [{ name: 'a' }]],
    ['empty patch list keeps the list', [c('a', 'x')], [], [c('a', 'x')]],
  ])('%s', (_name, original, patch, expected) => {
    expect(smp(spec(original), spec(patch))).toEqual(spec(expected));
  });

  test('ownerReferences merge by uid', () => {
    const meta = (refs: JsonValue): JsonValue => ({ metadata: { ownerReferences: refs } });
    expect(smp(meta([{ uid: '1', name: 'a' }]), meta([{ uid: '1', controller: true }, { uid: '2', name: 'b' }]))).toEqual(
      meta([{ uid: '1', name: 'a', controller: true }, { uid: '2', name: 'b' }]),
    );
  });

  test('lists without a strategy replace, dropping directive elements', () => {
    const tol = (t: JsonValue): JsonValue => ({ spec: { tolerations: t } });
    expect(smp(tol([{ key: 'a' }, { key: 'b' }]), tol([{ key: 'c', effect: null }, { key: 'a', $patch: 'delete' }]))).toEqual(
      tol([{ key: 'c' }]),
    );
  });

  test('without a schema lists replace and maps merge', () => {
    const original = { spec: { containers: [c('a', 'x')], nodeSelector: { a: '1' } } };
    const patch = { spec: { containers: [c('b', 'y')], nodeSelector: { b: '2' } } };
    expect(applyStrategicMergePatch(frozen(original), frozen(patch), EMPTY_PATCH_SCHEMA)).toEqual({
      spec: { containers: [c('b', 'y')], nodeSelector: { a: '1', b: '2' } },
    });
    expect(applyStrategicMergePatch(original, patch)).toEqual(applyStrategicMergePatch(original, patch, EMPTY_PATCH_SCHEMA));
  });
});

describe('applyStrategicMergePatch: scalar lists and list directives', () => {
  const fin = (f: JsonValue, extra: Record<string, JsonValue> = {}): JsonValue => ({ metadata: { finalizers: f, ...extra } });
  test.each<[string, JsonValue, JsonValue, JsonValue]>([
    ['merge as a set', fin(['a', 'b']), fin(['b', 'c']), fin(['a', 'b', 'c'])],
    ['new values come first', fin(['a', 'b']), fin(['c']), fin(['c', 'a', 'b'])],
    ['duplicates collapse', fin(['a', 'a']), fin(['a']), fin(['a'])],
    ['$deleteFromPrimitiveList removes values', fin(['a', 'b', 'c']), { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'x'] } }, fin(['a', 'c'])],
    ['$deleteFromPrimitiveList on a missing list is a no-op', { metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } }, { metadata: {} }],
    ['$deleteFromPrimitiveList works on replace lists too', { spec: { containers: [c('a', 'x', { args: ['1', '2'] })] } }, { spec: { containers: [{ name: 'a', '$deleteFromPrimitiveList/args': ['1'] }] } }, { spec: { containers: [c('a', 'x', { args: ['2'] })] } }],
    ['$setElementOrder orders merged scalars', fin(['a', 'b']), { metadata: { finalizers: ['c'], '$setElementOrder/finalizers': ['b', 'c', 'a'] } }, fin(['b', 'c', 'a'])],
    ['$setElementOrder alone reorders maps', { spec: { containers: [c('a', 'x'), c('b', 'y')] } }, { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] } }, { spec: { containers: [c('b', 'y'), c('a', 'x')] } }],
    ['$setElementOrder with a delete', { spec: { containers: [c('a', 'x'), c('b', 'y'), c('d', 'v')] } }, { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }], containers: [c('c', 'w'), { name: 'b', $patch: 'delete' }] } }, { spec: { containers: [c('c', 'w'), c('a', 'x'), c('d', 'v')] } }],
    ['$setElementOrder for a list the original lacks', { spec: {} }, { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [c('b', 'y'), { name: 'q', $patch: 'delete' }, c('a', 'x')] } }, { spec: { containers: [c('b', 'y'), c('a', 'x')] } }],
    ['$setElementOrder puts new items where it says', { spec: { containers: [c('a', 'x')] } }, { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'c' }], containers: [c('c', 'w')] } }, { spec: { containers: [c('a', 'x'), c('c', 'w')] } }],
    ['$retainKeys clears unlisted fields', { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } }, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, { spec: { strategy: { type: 'Recreate' } } }],
    ['$retainKeys inside merged list elements', { spec: { volumes: [{ name: 'v', emptyDir: {} }] } }, { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/x' } }] } }, { spec: { volumes: [{ name: 'v', hostPath: { path: '/x' } }] } }],
    ['directive keys do not leak into new subtrees', {}, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, { spec: { strategy: { type: 'Recreate' } } }],
  ])('%s', (_name, original, patch, expected) => {
    expect(smp(original, patch)).toEqual(expected);
  });
});

describe('applyStrategicMergePatch: errors', () => {
  // interpretStrategicMergePatchError: these sentinel errors are 400.
  test.each<[string, JsonValue, JsonValue, string]>([
    ['$retainKeys not a list', { spec: { strategy: {} } }, { spec: { strategy: { $retainKeys: 'type' } } }, 'invalid patch format of retainKeys'],
    ['patch field missing from $retainKeys', { spec: { strategy: {} } }, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, 'invalid patch format of retainKeys'],
    ['malformed $deleteFromPrimitiveList', { metadata: {} }, { metadata: { $deleteFromPrimitiveList: ['a'] } }, 'invalid patch format of primitive list'],
    ['misspelled $deleteFromPrimitiveList', { metadata: {} }, { metadata: { '$deleteFromPrimitiveLists/finalizers': ['a'] } }, 'invalid patch format of primitive list'],
    ['malformed $setElementOrder', { metadata: {} }, { metadata: { $setElementOrder: [] } }, 'invalid patch format of setElementOrder list'],
    // Stricter than upstream, which skips these when the field is absent or of another type.
    ['$deleteFromPrimitiveList not a list', { metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }, 'invalid patch format of primitive list'],
    ['$deleteFromPrimitiveList of maps', { metadata: { finalizers: ['a'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': [{}] } }, 'invalid patch format of primitive list'],
    ['$retainKeys holding a number', { spec: { strategy: {} } }, { spec: { strategy: { $retainKeys: [1] } } }, 'invalid patch format of retainKeys'],
    ['$setElementOrder of maps for a list of scalars', { metadata: {} }, { metadata: { '$setElementOrder/finalizers': [{}] } }, 'invalid patch format of setElementOrder list'],
    ['$setElementOrder without the merge key', { spec: { containers: [] } }, { spec: { '$setElementOrder/containers': [{ image: 'x' }] } }, 'invalid patch format of setElementOrder list'],
  ])('%s is 400', (_name, original, patch, message) => {
    const err = statusErrorOf(() => smp(original, patch));
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.status.message).toBe(message);
  });

  test.each<[string, JsonValue]>([
    ['an array', []],
    ['a string', 'x'],
    ['a number', 1],
    ['a bool', true],
  ])('a patch that is %s is 400', (_name, patch) => {
    const err = statusErrorOf(() => smp({}, patch));
    expect(err.code).toBe(400);
    const type = Array.isArray(patch) ? 'array' : typeof patch === 'boolean' ? 'bool' : typeof patch;
    expect(err.status.message).toBe(`json: cannot unmarshal ${type} into Go value of type map[string]interface {}`);
  });

  test('lists of lists are 422 with the generic message', () => {
    const err = statusErrorOf(() => smp({ spec: { matrix: [[1]] } }, { spec: { matrix: [[2]] } }));
    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.status.message).toBe('the server rejected our request due to an error in our request');
  });

  // Everything else is a plain Go error upstream (a 500 there); here a 400 BadRequest with the same text.
  test.each<[string, JsonValue, JsonValue, string]>([
    ['unknown $patch on a map', { spec: { nodeSelector: {} } }, { spec: { nodeSelector: { $patch: 'bogus' } } }, 'unknown patch type: bogus in map: map[$patch:bogus]'],
    ['non-string $patch on a map', { spec: {} }, { spec: { $patch: 1 } }, 'unknown patch type: %!s(int64=1) in map: map[$patch:1]'],
    ['unknown $patch in a list element', { spec: { containers: [] } }, { spec: { containers: [{ name: 'a', $patch: 'bogus' }] } }, 'unknown patch type: bogus in map: map[$patch:bogus name:a]'],
    ['$patch: merge in a list element', { spec: { containers: [] } }, { spec: { containers: [{ $patch: 'merge' }] } }, 'merging lists cannot yet be specified in the patch'],
    ['missing merge key in the patch', { spec: { containers: [c('a', 'x')] } }, { spec: { containers: [{ image: 'z' }] } }, 'map: map[image:z] does not contain declared merge key: name'],
    ['missing merge key on a delete', { spec: { containers: [c('a', 'x')] } }, { spec: { containers: [{ $patch: 'delete' }] } }, 'map: map[$patch:delete] does not contain declared merge key: name'],
    ['missing merge key in the original', { spec: { containers: [{ image: 'x' }] } }, { spec: { containers: [c('a', 'y')] } }, 'map: map[image:x] does not contain declared merge key: name'],
    ['mixed element types', { metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [1] } }, 'list element types are not identical: [[a] [1]]'],
    ['merge strategy without merge key', { spec: { keyless: [{ key: 'a' }] } }, { spec: { keyless: [{ key: 'b' }] } }, 'cannot merge lists without merge key for struct'],
    ['bad strategy list', { spec: { odd: ['a'] } }, { spec: { odd: ['b'] } }, 'unexpected patch strategy: [merge replace]'],
    ['$setElementOrder not a list', { metadata: {} }, { metadata: { '$setElementOrder/finalizers': 'a' } }, 'expected a []interface {}, but received a string'],
    ['$setElementOrder out of order', { spec: { containers: [c('a', 'x'), c('b', 'y')] } }, { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [c('b', 'z')] } }, "the order in patch list:\n[map[image:z name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]"],
  ])('%s is 400', (_name, original, patch, message) => {
    const err = statusErrorOf(() => smp(original, patch));
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.status.message).toBe(message);
  });
});

// Apply cases from upstream's customStrategicMergePatchTestCaseData / customStrategicMergePatchRawTestCases
// (original + twoWay patch = modified), on a schema mirroring upstream's MergeItem.
describe('applyStrategicMergePatch: upstream MergeItem fixtures', () => {
  const mergeItem = patchMetaFromOpenApi(testDefinitions, 'MergeItem');
  const n = (name: number, extra: Record<string, JsonValue> = {}): JsonValue => ({ name, ...extra });
  test.each<[string, JsonValue, JsonValue, JsonValue]>([
    ['unique scalars when merging lists', { mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }, { mergingIntList: [1, 2, 3] }],
    ['delete map from nested map', { simpleMap: { key1: '1', key2: '1' } }, { simpleMap: { $patch: 'delete' } }, { simpleMap: {} }],
    ['delete all items from merging list', { mergingList: [n(1), n(2)] }, { mergingList: [{ $patch: 'replace' }] }, { mergingList: [] }],
    ['merge empty merging lists', { mergingList: [] }, { mergingList: [] }, { mergingList: [] }],
    ['delete all keys from map', { name: '1', value: '1' }, { $patch: 'replace' }, {}],
    ['add key and delete all keys from map', { name: '1', value: '1' }, { other: 'a', $patch: 'replace' }, { other: 'a' }],
    ['delete all duplicate entries in a merging list', { mergingList: [n(1), n(1), n(2, { value: 'a' }), n(3), n(3)] }, { mergingList: [n(1, { $patch: 'delete' }), n(3, { $patch: 'delete' })] }, { mergingList: [n(2, { value: 'a' })] }],
    ['retainKeys map can add a field without the directive', { retainKeysMap: { name: 'foo' } }, { retainKeysMap: { value: 'bar' } }, { retainKeysMap: { name: 'foo', value: 'bar' } }],
    ['retainKeys map can delete a field without the directive', { retainKeysMap: { name: 'foo', value: 'a' } }, { retainKeysMap: { value: null } }, { retainKeysMap: { name: 'foo' } }],
    ['retainKeys list can change a field without the directive', { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] }, { retainKeysMergingList: [{ name: 'foo', value: 'b' }] }, { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'b' }] }],
    ['preserve the order from the patch in a merging list', { mergingList: [n(1), n(2, { value: 'b' }), n(3)] }, { mergingList: [n(3, { value: 'c' }), n(1, { value: 'a' }), n(2, { other: 'x' })] }, { mergingList: [n(3, { value: 'c' }), n(1, { value: 'a' }), n(2, { value: 'b', other: 'x' })] }],
    ['preserve the order from the patch in a merging list 2', { mergingList: [n(1), n(2, { value: 'b' }), n(3)] }, { mergingList: [n(3, { value: 'c' }), n(1, { value: 'a' })] }, { mergingList: [n(2, { value: 'b' }), n(3, { value: 'c' }), n(1, { value: 'a' })] }],
    ['preserve the order from the patch in a merging int list', { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1, 2] }, { mergingIntList: [3, 1, 2] }],
    ['preserve the order from the patch in a merging int list 2', { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] }, { mergingIntList: [2, 3, 1] }],
    ['$setElementOrder names an item the list lacks', { mergingList: [n(1), n(3)] }, { '$setElementOrder/mergingList': [n(3), n(2), n(1)], mergingList: [n(3, { value: '3' }), n(1, { value: '1' })] }, { mergingList: [n(3, { value: '3' }), n(1, { value: '1' })] }],
    ['$setElementOrder names an int the list lacks', { mergingIntList: [1, 3] }, { '$setElementOrder/mergingIntList': [3, 2, 1] }, { mergingIntList: [3, 1] }],
    ['delete all duplicate items in lists of scalars', { mergingIntList: [1, 2, 3, 3] }, { '$deleteFromPrimitiveList/mergingIntList': [3] }, { mergingIntList: [1, 2] }],
    ['nested patch merge with empty list', { name: 'hi' }, { mergingList: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }] }, { name: 'hi', mergingList: [{ name: 'hello' }] }],
  ])('%s', (_name, original, patch, expected) => {
    expect(applyStrategicMergePatch(frozen(original), frozen(patch), mergeItem)).toEqual(expected);
  });

  test('should check if order in $setElementOrder and patch list match', () => {
    const err = statusErrorOf(() =>
      applyStrategicMergePatch(
        { mergingList: [n(1), n(3), n(2)] },
        { '$setElementOrder/mergingList': [n(1), n(2), n(3)], mergingList: [n(3, { value: '3' }), n(1, { value: '1' })] },
        mergeItem,
      ),
    );
    expect(err.code).toBe(400);
    expect(err.status.message).toContain("doesn't match");
  });
});

describe('applyStrategicMergePatch: purity', () => {
  test('does not share structure with its inputs', () => {
    const original = { spec: { containers: [c('a', 'x', { args: ['1'] })] } };
    const patch = { spec: { containers: [c('b', 'y', { args: ['2'] })] } };
    const out = smp(original, patch) as { spec: { containers: { args: string[] }[] } };
    for (const ct of out.spec.containers) ct.args.push('mutated');
    expect(original).toEqual({ spec: { containers: [c('a', 'x', { args: ['1'] })] } });
    expect(patch).toEqual({ spec: { containers: [c('b', 'y', { args: ['2'] })] } });
  });
});
