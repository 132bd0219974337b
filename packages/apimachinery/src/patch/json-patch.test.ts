import type { JsonValue } from '../meta/types.js';
import { applyJsonPatch } from './json-patch.js';
import { frozen, statusErrorOf } from './test-helpers.js';

const doc = (): JsonValue => ({
  metadata: { name: 'c', labels: { a: '1', 'x/y': '2', 't~n': '3' } },
  data: { k: 'v' },
  list: [1, 2, 3],
});

describe('applyJsonPatch', () => {
  test.each<[string, JsonValue, JsonValue]>([
    ['add a member', [{ op: 'add', path: '/data/n', value: 'w' }], { k: 'v', n: 'w' }],
    ['add replaces an existing member', [{ op: 'add', path: '/data/k', value: 1 }], { k: 1 }],
    ['add without value stores null', [{ op: 'add', path: '/data/n' }], { k: 'v', n: null }],
    ['remove a member', [{ op: 'remove', path: '/data/k' }], {}],
    ['replace a member', [{ op: 'replace', path: '/data/k', value: { deep: [1] } }], { k: { deep: [1] } }],
    // The v4 json-patch library the apiserver uses sets a missing object member on replace.
    ['replace of a missing member sets it', [{ op: 'replace', path: '/data/n', value: 1 }], { k: 'v', n: 1 }],
    ['move a member', [{ op: 'move', from: '/data/k', path: '/data/m' }], { m: 'v' }],
    ['copy a member', [{ op: 'copy', from: '/data/k', path: '/data/c' }], { k: 'v', c: 'v' }],
    ['copy of a missing member copies null', [{ op: 'copy', from: '/data/zz', path: '/data/c' }], { k: 'v', c: null }],
    ['test then replace', [{ op: 'test', path: '/data/k', value: 'v' }, { op: 'replace', path: '/data/k', value: 'w' }], { k: 'w' }],
    ['test of a missing member against null passes', [{ op: 'test', path: '/data/zz', value: null }], { k: 'v' }],
    ['test compares structurally', [{ op: 'test', path: '/data', value: { k: 'v' } }], { k: 'v' }],
    ['later ops see earlier ones', [{ op: 'add', path: '/data/a', value: {} }, { op: 'add', path: '/data/a/b', value: 1 }], { k: 'v', a: { b: 1 } }],
    ['null patch is a no-op', null, { k: 'v' }],
    ['empty patch is a no-op', [], { k: 'v' }],
  ])('%s', (_name, ops, expectedData) => {
    const out = applyJsonPatch(frozen(doc()), frozen(ops)) as { data: JsonValue };
    expect(out.data).toEqual(expectedData);
  });

  test.each<[string, JsonValue, JsonValue]>([
    ['append with -', [{ op: 'add', path: '/list/-', value: 4 }], [1, 2, 3, 4]],
    ['insert at index', [{ op: 'add', path: '/list/0', value: 0 }], [0, 1, 2, 3]],
    ['insert at end index', [{ op: 'add', path: '/list/3', value: 4 }], [1, 2, 3, 4]],
    ['negative add index counts from the end', [{ op: 'add', path: '/list/-1', value: 9 }], [1, 2, 3, 9]],
    ['remove by index', [{ op: 'remove', path: '/list/1' }], [1, 3]],
    ['remove by negative index', [{ op: 'remove', path: '/list/-1' }], [1, 2]],
    ['replace by index', [{ op: 'replace', path: '/list/2', value: 'x' }], [1, 2, 'x']],
    ['move within a list', [{ op: 'move', from: '/list/0', path: '/list/-' }], [2, 3, 1]],
    ['copy within a list', [{ op: 'copy', from: '/list/0', path: '/list/1' }], [1, 1, 2, 3]],
    ['test by index', [{ op: 'test', path: '/list/-3', value: 1 }], [1, 2, 3]],
  ])('list: %s', (_name, ops, expectedList) => {
    expect((applyJsonPatch(frozen(doc()), frozen(ops)) as { list: JsonValue }).list).toEqual(expectedList);
  });

  test('pointer escapes ~1 and ~0 are decoded', () => {
    const out = applyJsonPatch(doc(), [
      { op: 'remove', path: '/metadata/labels/x~1y' },
      { op: 'replace', path: '/metadata/labels/t~0n', value: 'z' },
    ]) as { metadata: { labels: JsonValue } };
    expect(out.metadata.labels).toEqual({ a: '1', 't~n': 'z' });
  });

  test('replace with an empty path swaps the whole document', () => {
    expect(applyJsonPatch(doc(), [{ op: 'replace', path: '', value: { a: 1 } }])).toEqual({ a: 1 });
  });

  test('does not share structure with its inputs', () => {
    const value = { nested: [1] };
    const original = doc();
    const out = applyJsonPatch(original, [{ op: 'add', path: '/v', value }]) as { v: { nested: number[] }; list: number[] };
    out.v.nested.push(2);
    out.list.push(4);
    expect(value).toEqual({ nested: [1] });
    expect(original).toEqual(doc());
  });

  // Upstream answers any failure of Apply with NewGenericServerResponse(422): reason Invalid and a
  // fixed message; the library's error text is not shown.
  test.each<[string, JsonValue]>([
    ['failed test', [{ op: 'test', path: '/data/k', value: 'other' }]],
    ['test of a missing member against a value', [{ op: 'test', path: '/data/zz', value: 'v' }]],
    ['test without value', [{ op: 'test', path: '/data/k' }]],
    ['remove of a missing member', [{ op: 'remove', path: '/data/zz' }]],
    ['remove under a missing parent', [{ op: 'remove', path: '/nope/zz' }]],
    ['replace under a missing parent', [{ op: 'replace', path: '/nope/zz', value: 1 }]],
    ['add under a missing parent', [{ op: 'add', path: '/nope/zz', value: 1 }]],
    ['add through a scalar', [{ op: 'add', path: '/metadata/name/x', value: 1 }]],
    ['add to the whole document', [{ op: 'add', path: '', value: {} }]],
    ['remove the whole document', [{ op: 'remove', path: '' }]],
    ['replace whole document with a scalar', [{ op: 'replace', path: '', value: 1 }]],
    ['add past the end of a list', [{ op: 'add', path: '/list/4', value: 1 }]],
    ['add before the start of a list', [{ op: 'add', path: '/list/-5', value: 1 }]],
    ['replace past the end of a list', [{ op: 'replace', path: '/list/3', value: 1 }]],
    ['remove past the end of a list', [{ op: 'remove', path: '/list/3' }]],
    ['non-numeric list index', [{ op: 'replace', path: '/list/x', value: 1 }]],
    ['move from a missing member', [{ op: 'move', from: '/data/zz', path: '/data/y' }]],
    ['move into its own child', [{ op: 'move', from: '/data', path: '/data/x' }]],
    ['copy to a missing parent', [{ op: 'copy', from: '/data/k', path: '/nope/k' }]],
    ['missing path', [{ op: 'add', value: 1 }]],
    ['non-string path', [{ op: 'add', path: 5, value: 1 }]],
    ['missing from', [{ op: 'move', path: '/data/k' }]],
    ['unknown op', [{ op: 'frobnicate', path: '/data/k' }]],
    ['missing op', [{ path: '/data/k' }]],
    ['null operation', [null]],
  ])('%s is 422 Invalid', (_name, ops) => {
    const err = statusErrorOf(() => applyJsonPatch(frozen(doc()), frozen(ops)));
    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
  });

  test('a failing op after successful ones leaves no partial result behind', () => {
    const original = doc();
    expect(() =>
      applyJsonPatch(original, [
        { op: 'add', path: '/data/n', value: 1 },
        { op: 'test', path: '/data/k', value: 'nope' },
      ]),
    ).toThrow();
    expect(original).toEqual(doc());
  });

  // DecodePatch failures are 400 with Go's unmarshal error text.
  test.each<[string, JsonValue, string]>([
    ['an object', { op: 'add' }, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
    ['a string', 'add', 'json: cannot unmarshal string into Go value of type jsonpatch.Patch'],
    ['a list of numbers', [1], 'json: cannot unmarshal number into Go value of type jsonpatch.Operation'],
    ['a list of lists', [[]], 'json: cannot unmarshal array into Go value of type jsonpatch.Operation'],
  ])('a patch that is %s is 400', (_name, ops, message) => {
    const err = statusErrorOf(() => applyJsonPatch(doc(), ops));
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.status.message).toBe(message);
  });

  test('more than 10000 operations is 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/data/k', value: 'v' }));
    const err = statusErrorOf(() => applyJsonPatch(doc(), ops));
    expect(err.code).toBe(413);
    expect(err.reason).toBe('RequestEntityTooLarge');
    expect(err.status.message).toBe(
      'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    );
  });

  test('copies beyond the accumulated copy limit are 422', () => {
    const ops = [
      { op: 'copy', from: '/data', path: '/a' },
      { op: 'copy', from: '/data', path: '/b' },
    ];
    expect(applyJsonPatch(doc(), ops, { maxCopyBytes: 20 })).toMatchObject({ a: { k: 'v' }, b: { k: 'v' } });
    expect(statusErrorOf(() => applyJsonPatch(doc(), ops, { maxCopyBytes: 15 })).code).toBe(422);
  });
});
