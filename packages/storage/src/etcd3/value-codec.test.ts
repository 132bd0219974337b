import { decodeHeldValue, decodeValue, encodeValue } from './value-codec.js';

describe('decodeValue', () => {
  test.each([
    ['metadata with fields', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n"},"data":{"k":"v"}}', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n', resourceVersion: '7' }, data: { k: 'v' } }],
    ['empty metadata', '{"metadata":{}}', { metadata: { resourceVersion: '7' } }],
    ['metadata not first, nested metadata key before it', '{"data":{"metadata":{"x":1}},"metadata":{"name":"a"}}', { data: { metadata: { x: 1 } }, metadata: { resourceVersion: '7', name: 'a' } }],
    ['stored resourceVersion is replaced', '{"metadata":{"name":"a","resourceVersion":"3"}}', { metadata: { resourceVersion: '7', name: 'a' } }],
    ['whitespace around metadata', '{ "metadata" : { "name" : "a" } }', { metadata: { resourceVersion: '7', name: 'a' } }],
    ['non-ASCII text', '{"metadata":{"name":"a"},"data":{"k":"ü€😀"}}', { metadata: { resourceVersion: '7', name: 'a' }, data: { k: 'ü€😀' } }],
  ])('%s', (_name, stored, want) => {
    for (const decode of [decodeValue, decodeHeldValue]) {
      const got = decode('/registry/x/y/n/a', Buffer.from(stored), '7');
      expect(got).toEqual(want);
      expect(got.metadata.resourceVersion).toBe('7');
    }
  });

  test.each([
    ['not JSON', '{"metadata":{'],
    ['no metadata', '{"kind":"X"}'],
    ['metadata not an object', '{"metadata":"x"}'],
    ['not an object', '[1]'],
  ])('%s is InvalidObj', (_name, stored) => {
    expect(() => decodeValue('k', Buffer.from(stored), '1')).toThrow(expect.objectContaining({ code: 'InvalidObj' }));
    expect(() => decodeHeldValue('k', Buffer.from(stored), '1')).toThrow(expect.objectContaining({ code: 'InvalidObj' }));
  });

  // decodeHeldValue puts resourceVersion into the text before parsing (so the parsed metadata has
  // it in-object): the object must be exactly what decodeValue gives, key order included.
  const parsedThenStamped = (stored: string, rv: string): unknown => {
    const obj = JSON.parse(stored) as { metadata: Record<string, unknown> };
    obj.metadata['resourceVersion'] = rv;
    return obj;
  };
  test.each([
    '{"apiVersion":"v1","kind":"X","metadata":{"name":"a","labels":{"x":"}{"},"managedFields":[{"a":"\\"}]"}]},"data":{"metadata":{}}}',
    '{"metadata":{}}',
    '{"metadata": { } , "x":1}',
    '{"kind":"a","metadata":{"name":"b","resourceVersion":"5","uid":"u"}}',
    '{"metadata":{"a":1},"metadata":{"b":2}}',
    ' { "metadata" : {"name":"\u00e9é"} }',
    '{"a":{"metadata":{}},"metadata":{"z":[1,{"q":"}"}],"y":null}}',
    // Metadata too long to scan for its end: parsed, then stamped.
    `{"metadata":{"annotations":{"big":"${'x'.repeat(5000)}"},"name":"n"},"data":{}}`,
  ])('same object and key order as parse-then-stamp: %s', (stored) => {
    const want = JSON.stringify(parsedThenStamped(stored, '42'));
    expect(JSON.stringify(decodeHeldValue('k', Buffer.from(stored), '42'))).toBe(want);
    expect(JSON.stringify(decodeValue('k', Buffer.from(stored), '42'))).toBe(want);
  });

  test.each(['{"metadata":{"a":}', '{"metadata":{}} x', '{"metadata":{"a":1}', '{"metadata":{"a":"}'])('the parse error names the stored bytes: %s', (stored) => {
    let want = '';
    try {
      JSON.parse(stored);
    } catch (e) {
      want = (e as Error).message;
    }
    expect(() => decodeHeldValue('k', Buffer.from(stored), '1')).toThrow(`stored object is not valid JSON: ${want}`);
  });

  test('round trip through encodeValue', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '3' }, data: { k: 'v' } };
    expect(decodeValue('k', encodeValue(obj), '9')).toEqual({ ...obj, metadata: { name: 'a', resourceVersion: '9' } });
  });
});
