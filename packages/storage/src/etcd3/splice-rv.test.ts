import { spliceResourceVersion } from './splice-rv.js';

const splice = (json: string, rv = '42') => spliceResourceVersion(Buffer.from(json), rv)?.toString();

describe('spliceResourceVersion', () => {
  test.each([
    ['{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}'],
    ['{"metadata":{},"data":{}}'],
    ['{"data":{"metadata":"x"},"metadata":{"name":"a"}}'],
    ['{"spec":{"template":{"metadata":{"labels":{"a":"b"}}}},"metadata":{"name":"a"}}'],
    ['{"kind":"X\\"metadata\\":{","metadata":{"name":"a"}}'],
    ['{ "metadata" : { "name" : "a" } }'],
  ])('inserts the resourceVersion into the top-level metadata of %s', (json) => {
    const out = splice(json);
    expect(out).toBeDefined();
    const parsed = JSON.parse(out!);
    expect(parsed.metadata.resourceVersion).toBe('42');
    const { resourceVersion: _rv, ...rest } = parsed.metadata;
    expect({ ...parsed, metadata: rest }).toEqual(JSON.parse(json));
  });
  test.each([['{"data":{}}'], ['{"metadata":null}'], ['[]'], [''], ['{"kind":"X"}'], ['{"a":""}']])('gives up on %s', (json) => {
    expect(splice(json)).toBeUndefined();
  });
});
