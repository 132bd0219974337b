import { StatusError } from '../errors/status-error.js';
import { parsePatchJson } from './parse.js';

function badRequestMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    const err = e as StatusError;
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    return err.status.message ?? '';
  }
  throw new Error('expected a StatusError');
}

describe('parsePatchJson', () => {
  test.each([
    ['{"a":1}', { a: 1 }],
    [' [ {"op":"add"} , null ] ', [{ op: 'add' }, null]],
    ['null', null],
    ['-0.5e+3', -500],
    ['"\\u00e9\\n"', 'é\n'],
    ['{"__proto__":{"x":1}}', JSON.parse('{"__proto__":{"x":1}}')],
  ])('accepts %s', (text, value) => {
    expect(parsePatchJson(text)).toEqual(value);
  });

  // Messages are Go encoding/json SyntaxError texts, which the apiserver returns verbatim.
  test.each([
    ['', 'unexpected end of JSON input'],
    ['{', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['"abc', 'unexpected end of JSON input'],
    ['tru', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', 'invalid character \'"\' after object key:value pair'],
    ['[1 2]', "invalid character '2' after array element"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['nul!', "invalid character '!' in literal null (expecting 'l')"],
    ['fals', 'unexpected end of JSON input'],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['"a\\qb"', "invalid character 'q' in string escape code"],
    ['"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['\u00e9', "invalid character 'Ã' looking for beginning of value"],
    ['{"a":\\}', "invalid character '\\\\' looking for beginning of value"],
  ])('rejects %j with Go text', (text, message) => {
    expect(badRequestMessage(() => parsePatchJson(text))).toBe(message);
  });

  test('nesting deeper than Go allows is rejected without overflowing the stack', () => {
    expect(badRequestMessage(() => parsePatchJson('['.repeat(10001)))).toBe("invalid character '[' exceeded max depth");
    expect(badRequestMessage(() => parsePatchJson('['.repeat(10000)))).toBe('unexpected end of JSON input');
  });

  test.each(['{', 'nope', '[1,]'])('merge patch bodies report Invalid JSON Patch (%s)', (text) => {
    expect(badRequestMessage(() => parsePatchJson(text, 'application/merge-patch+json'))).toBe('Invalid JSON Patch');
  });

  test('strategic merge patch bodies report Go text', () => {
    expect(badRequestMessage(() => parsePatchJson('{', 'application/strategic-merge-patch+json'))).toBe(
      'unexpected end of JSON input',
    );
  });
});
