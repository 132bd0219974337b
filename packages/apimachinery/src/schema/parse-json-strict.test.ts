import { JsonSyntaxError, parseJsonStrict } from './parse-json-strict.js';

const syntaxError = (text: string): string => {
  try {
    parseJsonStrict(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return e.message;
    throw e;
  }
  throw new Error('parsed');
};

describe('parseJsonStrict values', () => {
  test.each([
    '{}',
    '[]',
    '{"a":1,"b":[true,false,null,"x"],"c":{"d":-12.5e3}}',
    ' \t\r\n{"s":"esc \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00"} ',
    '"top"',
    '123456789012345678',
    '[0,-0,1.5,1e400,-1E-2]',
    '{"__proto__":{"x":1},"constructor":2}',
    '{"a":"\\u0041\\u00e9"}',
  ])('%s decodes like JSON.parse', (text) => {
    expect(parseJsonStrict(text).value).toEqual(JSON.parse(text));
  });

  test('__proto__ stays an own property', () => {
    const v = parseJsonStrict('{"__proto__":{"polluted":true}}').value as Record<string, unknown>;
    expect(Object.hasOwn(v, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  test.each([
    ['"\\ud800"', '\ufffd'],
    ['"\\udc00x"', '\ufffdx'],
    ['"\\ud800\\u0041"', '\ufffdA'],
  ])('lone surrogate escape %s becomes U+FFFD as in Go', (text, want) => {
    expect(parseJsonStrict(text).value).toBe(want);
  });

  test('records literal text of numbers whose value hides it', () => {
    const r = parseJsonStrict('{"a":1.0,"b":2,"c":[1e3,7,12345678901234567890],"d":-0}');
    const obj = r.value as Record<string, unknown>;
    expect(r.numberText.get(obj)?.get('a')).toBe('1.0');
    expect(r.numberText.get(obj)?.get('b')).toBeUndefined();
    expect(r.numberText.get(obj)?.get('d')).toBe('-0');
    const arr = obj['c'] as object;
    expect([...(r.numberText.get(arr) ?? new Map()).entries()]).toEqual([
      ['0', '1e3'],
      ['2', '12345678901234567890'],
    ]);
  });
});

describe('parseJsonStrict duplicates', () => {
  test.each([
    ['{"a":1,"a":2}', { a: 2 }, ['a']],
    ['{"metadata":{"labels":{"a":"1","b":"2","a":"3"}}}', { metadata: { labels: { a: '3', b: '2' } } }, ['metadata.labels.a']],
    ['{"items":[{"name":"x","name":"y"},{"name":"z"}]}', { items: [{ name: 'y' }, { name: 'z' }] }, ['items[0].name']],
    ['[{"x":1},{"x":1,"x":2}]', [{ x: 1 }, { x: 2 }], ['[1].x']],
    ['{"a":{"b":[[{"c":1,"c":1,"c":2}]]},"a":{}}', { a: {} }, ['a.b[0][0].c', 'a.b[0][0].c', 'a']],
    ['{"a.b":1,"a.b":2}', { 'a.b': 2 }, ['a.b']],
  ])('%s', (text, value, paths) => {
    const r = parseJsonStrict(text);
    expect(r.value).toEqual(value);
    expect(r.duplicates.map((d) => d.path)).toEqual(paths);
  });

  test('keeps the replaced value, the container and the key offset', () => {
    const text = '{"data":{"k":"v"},"data":{"j":"w"}}';
    const r = parseJsonStrict(text);
    const d = r.duplicates[0];
    expect(d?.previous).toEqual({ k: 'v' });
    expect(d?.container).toBe(r.value);
    expect(d?.offset).toBe(text.lastIndexOf('"data"'));
  });

  test('locate records the first offset of every key path', () => {
    const text = '{"a":{"b":1},"c":[{"d":2}],"a":{"e":3}}';
    const offsets = parseJsonStrict(text, { locate: true }).keyOffsets;
    expect(offsets?.get('a')).toBe(1);
    expect(offsets?.get('a.b')).toBe(6);
    expect(offsets?.get('c[0].d')).toBe(text.indexOf('"d"'));
    expect(offsets?.get('a.e')).toBe(text.indexOf('"e"'));
  });
});

describe('parseJsonStrict syntax errors (Go encoding/json texts)', () => {
  test.each([
    ['', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['{"a":"x', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    ['{"a":01}', "invalid character '1' after object key:value pair"],
    ['-', 'unexpected end of JSON input'],
    ['-a', "invalid character 'a' in numeric literal"],
    ['1.', 'unexpected end of JSON input'],
    ['[1.x]', "invalid character 'x' after decimal point in numeric literal"],
    ['[1ex]', "invalid character 'x' in exponent of numeric literal"],
    ['tru', 'unexpected end of JSON input'],
    ['[trux]', "invalid character 'x' in literal true (expecting 'e')"],
    ['[nul]', "invalid character ']' in literal null (expecting 'l')"],
    ['"a\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['\ufeff{}', "invalid character 'ï' looking for beginning of value"],
  ])('%j', (text, message) => {
    expect(syntaxError(text)).toBe(message);
  });

  test('nesting deeper than Go allows fails with its depth error, not a stack overflow', () => {
    expect(syntaxError('['.repeat(10001))).toBe("invalid character '[' exceeded max depth");
    expect(parseJsonStrict(`${'['.repeat(10000)}${']'.repeat(10000)}`).value).toBeDefined();
  });
});
