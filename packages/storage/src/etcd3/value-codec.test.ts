import { decodeValue, encodeValue } from './value-codec.js';

describe('decodeValue', () => {
  test.each([
    ['metadata with fields', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n"},"data":{"k":"v"}}', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n', resourceVersion: '7' }, data: { k: 'v' } }],
    ['empty metadata', '{"metadata":{}}', { metadata: { resourceVersion: '7' } }],
    ['metadata not first, nested metadata key before it', '{"data":{"metadata":{"x":1}},"metadata":{"name":"a"}}', { data: { metadata: { x: 1 } }, metadata: { resourceVersion: '7', name: 'a' } }],
    ['stored resourceVersion is replaced', '{"metadata":{"name":"a","resourceVersion":"3"}}', { metadata: { resourceVersion: '7', name: 'a' } }],
    ['whitespace around metadata', '{ "metadata" : { "name" : "a" } }', { metadata: { resourceVersion: '7', name: 'a' } }],
    ['non-ASCII text', '{"metadata":{"name":"a"},"data":{"k":"ü€😀"}}', { metadata: { resourceVersion: '7', name: 'a' }, data: { k: 'ü€😀' } }],
  ])('%s', (_name, stored, want) => {
    const got = decodeValue('/registry/x/y/n/a', Buffer.from(stored), '7');
    expect(got).toEqual(want);
    expect(got.metadata.resourceVersion).toBe('7');
  });

  test.each([
    ['not JSON', '{"metadata":{'],
    ['no metadata', '{"kind":"X"}'],
    ['metadata not an object', '{"metadata":"x"}'],
    ['not an object', '[1]'],
  ])('%s is InvalidObj', (_name, stored) => {
    expect(() => decodeValue('k', Buffer.from(stored), '1')).toThrow(expect.objectContaining({ code: 'InvalidObj' }));
  });

  test('round trip through encodeValue', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '3' }, data: { k: 'v' } };
    expect(decodeValue('k', encodeValue(obj), '9')).toEqual({ ...obj, metadata: { name: 'a', resourceVersion: '9' } });
  });
});
