import { StatusError } from '../errors/status-error.js';
import { SelectorParseError } from '../labels/requirement.js';
import {
  checkFieldSelectorFields,
  escapeFieldValue,
  parseFieldSelector,
  parseFieldSelectorParam,
  unescapeFieldValue,
  type FieldRequirement,
} from './selector.js';

const statusOf = (fn: () => unknown): { code: number; reason?: string; message?: string } => {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e.status;
    throw e;
  }
  throw new Error('expected a StatusError');
};

describe('parseFieldSelector', () => {
  test.each<[string, FieldRequirement[]]>([
    ['', []],
    [',', []],
    ['a=b', [{ field: 'a', op: '=', value: 'b' }]],
    ['a==b', [{ field: 'a', op: '=', value: 'b' }]],
    ['a!=b', [{ field: 'a', op: '!=', value: 'b' }]],
    ['a=', [{ field: 'a', op: '=', value: '' }]],
    ['=b', [{ field: '', op: '=', value: 'b' }]],
    ['metadata.name=x,metadata.namespace=y', [
      { field: 'metadata.name', op: '=', value: 'x' },
      { field: 'metadata.namespace', op: '=', value: 'y' },
    ]],
    // Terms are ordered by their text, as upstream sorts them.
    ['z=1,a=2', [{ field: 'a', op: '=', value: '2' }, { field: 'z', op: '=', value: '1' }]],
    ['x=a\\,b', [{ field: 'x', op: '=', value: 'a,b' }]],
    ['x=a\\=b', [{ field: 'x', op: '=', value: 'a=b' }]],
    ['x=a\\\\b', [{ field: 'x', op: '=', value: 'a\\b' }]],
    ['x=a\\\\,y=b', [{ field: 'x', op: '=', value: 'a\\' }, { field: 'y', op: '=', value: 'b' }]],
    ['x=!b', [{ field: 'x', op: '=', value: '!b' }]],
    ['a b=c d', [{ field: 'a b', op: '=', value: 'c d' }]],
  ])('%j', (s, want) => {
    expect(parseFieldSelector(s).requirements).toEqual(want);
  });

  test.each<[string, string]>([
    ['a', "invalid selector: 'a'; can't understand 'a'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['x=a==b', 'invalid field selector: unescaped character in value: 61'],
    ['x=a,b', "invalid selector: 'x=a,b'; can't understand 'b'"],
    ['x=a\\b', 'invalid field selector: invalid escape sequence: \\b'],
    ['x=a\\', 'invalid field selector: invalid escape sequence: \\'],
    ['x==a,b', "invalid selector: 'x==a,b'; can't understand 'b'"],
  ])('%j fails', (s, msg) => {
    expect(() => parseFieldSelector(s)).toThrow(SelectorParseError);
    expect(() => parseFieldSelector(s)).toThrow(msg);
  });
});

describe('FieldSelector', () => {
  test.each<[string, Record<string, string>, boolean]>([
    ['', { a: 'b' }, true],
    ['a=b', { a: 'b' }, true],
    ['a==b', { a: 'b' }, true],
    ['a=b', { a: 'c' }, false],
    ['a=b', {}, false],
    ['a=', {}, true],
    ['a!=b', {}, true],
    ['a!=b', { a: 'b' }, false],
    ['a=b,c=d', { a: 'b', c: 'd' }, true],
    ['a=b,c=d', { a: 'b', c: 'e' }, false],
    ['x=a\\,b', { x: 'a,b' }, true],
    ['constructor=', {}, true],
  ])('%j on %j is %s', (s, fields, want) => {
    expect(parseFieldSelector(s).matches(fields)).toBe(want);
  });

  test('empty', () => {
    expect(parseFieldSelector('').empty).toBe(true);
    expect(parseFieldSelector('a=b').empty).toBe(false);
  });

  test.each<[string, string, string | undefined]>([
    ['metadata.name=foo', 'metadata.name', 'foo'],
    ['metadata.name==foo', 'metadata.name', 'foo'],
    ['metadata.name!=foo', 'metadata.name', undefined],
    ['metadata.namespace=ns,metadata.name=foo', 'metadata.namespace', 'ns'],
    ['metadata.name=', 'metadata.name', ''],
    ['a=b', 'metadata.name', undefined],
  ])('exactMatch(%j, %j)', (s, field, want) => {
    expect(parseFieldSelector(s).exactMatch(field)).toBe(want);
  });

  test.each<[string, string]>([
    ['a=b', 'a=b'],
    ['a==b', 'a=b'],
    ['b!=x,a=y', 'a=y,b!=x'],
    ['x=a\\,b\\=c\\\\', 'x=a\\,b\\=c\\\\'],
  ])('toString %j', (s, want) => {
    expect(parseFieldSelector(s).toString()).toBe(want);
    expect(parseFieldSelector(parseFieldSelector(s).toString()).requirements).toEqual(parseFieldSelector(s).requirements);
  });
});

describe('escaping', () => {
  test.each(['', 'plain', 'a,b', 'a=b', 'a\\b', '\\,=', 'x==,,\\\\'])('round trip %j', (v) => {
    expect(unescapeFieldValue(escapeFieldValue(v))).toBe(v);
  });
});

describe('query parameter and field checks', () => {
  test('absent selects everything', () => {
    expect(parseFieldSelectorParam(undefined).empty).toBe(true);
    expect(parseFieldSelectorParam(null).empty).toBe(true);
  });

  test('parseFieldSelector errors are 400 BadRequest too', () => {
    expect(statusOf(() => parseFieldSelector('x=a\\q'))).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'invalid field selector: invalid escape sequence: \\q',
    });
  });

  test('parse error is 400 BadRequest', () => {
    expect(statusOf(() => parseFieldSelectorParam('nope'))).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: "invalid selector: 'nope'; can't understand 'nope'",
    });
  });

  test('allowed fields pass', () => {
    const sel = parseFieldSelector('metadata.name=a,metadata.namespace!=b');
    expect(() => checkFieldSelectorFields(sel, ['metadata.name', 'metadata.namespace'])).not.toThrow();
  });

  test('an unknown field is 400 field label not supported', () => {
    const sel = parseFieldSelector('metadata.name=a,spec.foo=b');
    expect(statusOf(() => checkFieldSelectorFields(sel, ['metadata.name', 'metadata.namespace']))).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'field label not supported: spec.foo',
    });
  });

  test('spaces around the field name are not trimmed', () => {
    const sel = parseFieldSelector('metadata.name = a');
    expect(statusOf(() => checkFieldSelectorFields(sel, ['metadata.name']))).toMatchObject({
      message: 'field label not supported: metadata.name ',
    });
  });
});
