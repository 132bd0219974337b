import type { JsonValue } from '../meta/types.js';
import { applyMergePatch } from './merge-patch.js';
import { frozen, statusErrorOf } from './test-helpers.js';

describe('applyMergePatch', () => {
  // RFC 7386 appendix A, except where the apiserver's json-patch library differs (see below).
  test.each<[string, JsonValue, JsonValue, JsonValue]>([
    ['replaces a member', { a: 'b' }, { a: 'c' }, { a: 'c' }],
    ['adds a member', { a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    ['null deletes', { a: 'b' }, { a: null }, {}],
    ['null deletes only its member', { a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    ['scalar replaces array', { a: ['b'] }, { a: 'c' }, { a: 'c' }],
    ['array replaces scalar', { a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    ['objects merge recursively', { a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    ['arrays replace wholesale', { a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    ['array patch replaces array document', ['a', 'b'], ['c', 'd'], ['c', 'd']],
    ['array patch replaces object document', { a: 'b' }, ['c'], ['c']],
    ['untouched nulls in the document stay', { e: null }, { a: 1 }, { e: null, a: 1 }],
    ['object patch on array document', [1, 2], { a: 'b', c: null }, { a: 'b' }],
    ['nulls vanish from new objects', {}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ['missing member deleted is a no-op', { a: 1 }, { b: null }, { a: 1 }],
    ['empty patch is a no-op', { a: { b: 1 } }, {}, { a: { b: 1 } }],
    ['null member of the document is replaced', { a: null }, { a: { b: null, c: 1 } }, { a: { c: 1 } }],
    // json-patch v4 prunes nulls from values it stores, inside arrays too.
    ['stored arrays lose null elements and members', {}, { a: [1, null, { x: null, y: 2 }] }, { a: [1, { y: 2 }] }],
    ['array over scalar is pruned', { a: 1 }, { a: [null, 2] }, { a: [2] }],
    ['top-level array patch is pruned', { a: 1 }, [null, { b: null }], [{}]],
    // ... but an array patched onto an object is stored as sent.
    ['array over object is kept verbatim', { a: { k: 1 } }, { a: [null] }, { a: [null] }],
    ['scalar over object', { a: { k: 1 } }, { a: 'x' }, { a: 'x' }],
  ])('%s', (_name, original, patch, expected) => {
    expect(applyMergePatch(frozen(original), frozen(patch))).toEqual(expected);
  });

  test('does not share structure with its inputs', () => {
    const original = { a: { b: [1] }, c: { d: 1 } };
    const patch = { c: { e: [2] } };
    const out = applyMergePatch(original, patch) as { a: { b: number[] }; c: { e: number[] } };
    out.a.b.push(9);
    out.c.e.push(9);
    expect(original).toEqual({ a: { b: [1] }, c: { d: 1 } });
    expect(patch).toEqual({ c: { e: [2] } });
  });

  test('a __proto__ member is data, not a prototype', () => {
    const patch = JSON.parse('{"__proto__":{"polluted":true}}') as JsonValue;
    const out = applyMergePatch({}, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  // Upstream's MergePatch rejects a null or scalar patch with errBadJSONPatch, mapped to 400.
  test.each<[string, JsonValue]>([
    ['null', null],
    ['string', 'bar'],
    ['number', 5],
    ['boolean', true],
  ])('a %s patch is 400 Invalid JSON Patch', (_name, patch) => {
    const err = statusErrorOf(() => applyMergePatch({ a: 'foo' }, patch));
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.status.message).toBe('Invalid JSON Patch');
  });
});
