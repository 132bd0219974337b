import type { JsonObject } from '../meta/types.js';
import { FieldSet } from './field-set.js';
import { fieldsV1ToSet, FieldsV1Error, toFieldsV1 } from './fields-v1.js';
import { deserializePathElement, PathElementError, pathString, serializePathElement } from './path-element.js';

// FieldsV1 as upstream writes it: ConfigMap entries of `kubectl create` (Update) and of
// server-side apply, a Deployment-like map list with a multi-field key, and a set.
const canonical: Array<[string, JsonObject]> = [
  [
    'configmap created by kubectl (Update)',
    { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } },
  ],
  [
    'configmap applied server-side',
    {
      'f:data': { 'f:key': {} },
      'f:metadata': {
        'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
        'f:labels': { 'f:test-label': {} },
      },
    },
  ],
  [
    'map list items with multi-field keys, sorted by key name',
    {
      'f:spec': {
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"nginx"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': {
                  '.': {},
                  'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
                },
              },
            },
          },
        },
      },
    },
  ],
  ['set items', { 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"example.com/a"': {}, 'v:"example.com/b"': {} } } }],
  ['atomic list index, numeric order', { 'f:args': { 'i:0': {}, 'i:2': {}, 'i:10': {} } }],
];

describe('FieldsV1 round trip', () => {
  test.each(canonical)('%s', (_name, fields) => {
    const set = fieldsV1ToSet(fields);
    expect(JSON.stringify(toFieldsV1(set))).toBe(JSON.stringify(fields));
  });

  test('keys are re-ordered as upstream: fields, then keys, then values, then indexes; "." first', () => {
    const set = fieldsV1ToSet({ 'f:metadata': { 'f:labels': { 'f:z': {}, 'f:a': {}, '.': {} } }, 'f:data': {} });
    expect(JSON.stringify(toFieldsV1(set))).toBe('{"f:data":{},"f:metadata":{"f:labels":{".":{},"f:a":{},"f:z":{}}}}');
    const mixed = FieldSet.of([{ index: 1 }], [{ value: 'x' }], [{ key: [['name', 'a']] }], [{ field: 'b' }], [{ value: 3 }]);
    expect(Object.keys(toFieldsV1(mixed))).toEqual(['f:b', 'k:{"name":"a"}', 'v:3', 'v:"x"', 'i:1']);
  });

  test('members and paths', () => {
    const set = fieldsV1ToSet(canonical[0]?.[1]);
    expect(set.paths().map(pathString)).toEqual(['.data', '.data.a', '.metadata.labels', '.metadata.labels.x']);
  });

  test('unknown prefixes are dropped, malformed keys rejected', () => {
    expect(toFieldsV1(fieldsV1ToSet({ 'x:future': {}, 'f:a': {} }))).toEqual({ 'f:a': {} });
    expect(fieldsV1ToSet(undefined).isEmpty()).toBe(true);
    expect(fieldsV1ToSet(null).isEmpty()).toBe(true);
    for (const bad of [{ f: {} }, { 'fx': {} }, { 'i:one': {} }, { 'k:{': {} }, { 'k:[1]': {} }, { 'f:a': 'x' }]) {
      expect(() => fieldsV1ToSet(bad as JsonObject)).toThrow(FieldsV1Error);
    }
    expect(() => fieldsV1ToSet('x')).toThrow(FieldsV1Error);
  });
});

describe('path element serialization (SMD serialize-pe_test)', () => {
  test.each([
    'f:',
    'f:spec',
    'f:kubectl.kubernetes.io/last-applied-configuration',
    'k:{"name":"my-container"}',
    'k:{"port":"8080","protocol":"TCP"}',
    'k:{"optionalField":null}',
    'k:{"jsonField":{"A":1,"B":null,"C":"D","E":{"F":"G"}}}',
    'k:{"listField":["1","2","3"]}',
    'v:null',
    'v:"some-string"',
    'v:1234',
    'v:{"some":"json"}',
    'v:"a<b&c>"',
    'i:1',
    'i:1234',
  ])('%s round-trips', (s) => {
    const pe = deserializePathElement(s);
    expect(pe).toBeDefined();
    const out = serializePathElement(pe!);
    expect(out).toBe(s === 'v:"a<b&c>"' ? 'v:"a\\u003cb\\u0026c\\u003e"' : s);
  });

  test('key fields are sorted by name', () => {
    expect(serializePathElement(deserializePathElement('k:{"protocol":"TCP","port":80}')!)).toBe('k:{"port":80,"protocol":"TCP"}');
  });

  test.each(['', 'a', 'no-colon', 'i:hello', 'k:{"a":', 'v:'])('%j is rejected', (s) => {
    expect(() => deserializePathElement(s)).toThrow(PathElementError);
  });

  test('unknown type is skipped', () => {
    expect(deserializePathElement('z:whatever')).toBeUndefined();
  });

  test('human form', () => {
    expect(pathString([{ field: 'spec' }, { key: [['name', 'c'], ['port', 80]] }, { field: 'tags' }, { value: 'x' }, { index: 2 }])).toBe(
      '.spec[name="c",port=80].tags[="x"][2]',
    );
  });
});
