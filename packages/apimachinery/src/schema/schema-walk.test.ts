import type { JsonValue } from '../meta/types.js';
import { parseJsonStrict } from './parse-json-strict.js';
import type { Definitions } from './schema-node.js';
import { checkAgainstSchema } from './schema-walk.js';
import { CONFIG_MAP, loadTestDefinitions, NAMESPACE, SECRET, SERVICE_ACCOUNT, THING, THING_DEFINITIONS } from './test-schemas.js';

let defs: Definitions;
beforeAll(async () => {
  defs = { ...(await loadTestDefinitions()), ...THING_DEFINITIONS };
});

/** Parses like the request path does, then checks. */
const check = (text: string, root: string) => {
  const p = parseJsonStrict(text);
  return checkAgainstSchema(p.value, defs, root, { numberText: p.numberText, duplicates: p.duplicates });
};

describe('checkAgainstSchema unknown fields', () => {
  test.each([
    [CONFIG_MAP, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"x":"1"}}', []],
    [CONFIG_MAP, '{"spec":{"x":1},"metadata":{"foo":1,"labels":{"a":"b"}},"datta":{}}', ['spec', 'metadata.foo', 'datta']],
    [NAMESPACE, '{"spec":{"x":1,"finalizers":["kubernetes"]},"status":{"conditions":[{"type":"A","status":"True","bogus":1}]}}', ['spec.x', 'status.conditions[0].bogus']],
    [SERVICE_ACCOUNT, '{"secrets":[{"name":"a"},{"name":"b","extra":{"deep":1}}],"imagePullSecrets":[{"nam":"x"}]}', ['secrets[1].extra', 'imagePullSecrets[0].nam']],
    [THING, '{"byName":{"k":{"name":"n","color":"red"}},"wrapped":{"name":"w","zz":1}}', ['byName.k.color', 'wrapped.zz']],
    [THING, '{"extra":{"anything":{"goes":[1,{"x":null}]}}}', []],
  ])('%s %s', (root, text, unknown) => {
    expect(check(text, root).unknownFields).toEqual(unknown);
  });

  test('prunes unknown fields and nulls, keeping free-form and opaque content', () => {
    const r = check(
      '{"kind":"ConfigMap","metadata":{"name":"a","foo":{"b":1},"labels":null,"managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}]},"data":{"k":"v"},"immutable":null,"x":1}',
      CONFIG_MAP,
    );
    expect(r.value).toEqual({
      kind: 'ConfigMap',
      metadata: { name: 'a', managedFields: [{ manager: 'm', fieldsV1: { 'f:data': {} } }] },
      data: { k: 'v' },
    });
    expect(r.typeErrors).toEqual([]);
  });

  test('null map entries and list items become the zero value, as Go decodes them', () => {
    const r = check('{"data":{"a":null},"metadata":{"finalizers":[null,"x"]}}', CONFIG_MAP);
    expect(r.value).toEqual({ data: { a: '' }, metadata: { finalizers: ['', 'x'] } });
    const t = check('{"parts":[null],"byName":{"a":null},"matrix":[[null]]}', THING);
    expect(t.value).toEqual({ parts: [{}], byName: { a: {} }, matrix: [[0]] });
  });

  test('apiVersion and kind are always known at the top, never below', () => {
    const r = check('{"apiVersion":"t/v1","kind":"Part","color":"x"}', 't.v1.Part');
    expect(r.unknownFields).toEqual(['color']);
    expect(check('{"wrapped":{"kind":"x"}}', THING).unknownFields).toEqual(['wrapped.kind']);
  });

  test('sortKeys visits keys in sorted order (YAML bodies)', () => {
    const p = parseJsonStrict('{"zeta":1,"alpha":2,"metadata":{"b":1,"a":2}}');
    expect(checkAgainstSchema(p.value, defs, CONFIG_MAP, { sortKeys: true }).unknownFields).toEqual(['alpha', 'metadata.a', 'metadata.b', 'zeta']);
  });
});

describe('checkAgainstSchema repeated keys', () => {
  test('reports repeated known fields and map keys, not repeated unknown ones or opaque content', () => {
    const r = check(
      '{"metadata":{"name":"a","name":"b","zz":1,"zz":2,"labels":{"x":"1","x":"2"},"managedFields":[{"fieldsV1":{"f:a":{},"f:a":{}}}]},"data":{"k":"v"},"data":{"j":"w"}}',
      CONFIG_MAP,
    );
    // Visiting order; decodeWithFieldValidation re-sorts mixed findings by text position.
    expect(r.strict.map((f) => `${f.kind} ${f.path}`)).toEqual([
      'duplicate metadata.name',
      'unknown metadata.zz',
      'duplicate metadata.labels.x',
      'duplicate data',
    ]);
  });

  test('repeated struct fields merge like Go decoding into the same field; map entries are replaced', () => {
    const r = check('{"metadata":{"name":"a","labels":{"x":"1"}},"metadata":{"namespace":"n","labels":{"y":"2"}},"data":{"a":"1"},"data":{"b":"2"}}', CONFIG_MAP);
    expect(r.value).toEqual({ metadata: { name: 'a', namespace: 'n', labels: { x: '1', y: '2' } }, data: { a: '1', b: '2' } });
    const t = check('{"byName":{"k":{"name":"a"},"k":{"size":2}},"parts":[{"name":"x"}],"parts":[{"size":1}]}', THING);
    expect(t.value).toEqual({ byName: { k: { size: 2 } }, parts: [{ size: 1 }] });
  });

  test('repeated keys inside free-form values are reported', () => {
    expect(check('{"extra":{"a":{"b":1,"b":2}}}', THING).strict).toEqual([{ kind: 'duplicate', path: 'extra.a.b', offset: 21 }]);
  });
});

describe('checkAgainstSchema type errors (Go json decoder texts)', () => {
  const CM = 'json: cannot unmarshal';
  test.each([
    [CONFIG_MAP, '{"data":{"a":1}}', `${CM} number into Go struct field ConfigMap.data of type string`],
    [CONFIG_MAP, '{"data":[]}', `${CM} array into Go struct field ConfigMap.data of type map[string]string`],
    [CONFIG_MAP, '{"immutable":"yes"}', `${CM} string into Go struct field ConfigMap.immutable of type bool`],
    [CONFIG_MAP, '{"metadata":"x"}', `${CM} string into Go struct field ConfigMap.metadata of type v1.ObjectMeta`],
    [CONFIG_MAP, '{"metadata":{"labels":{"a":true}}}', `${CM} bool into Go struct field ObjectMeta.metadata.labels of type string`],
    [CONFIG_MAP, '{"metadata":{"generation":1.5}}', `${CM} number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64`],
    [CONFIG_MAP, '{"metadata":{"generation":1e3}}', `${CM} number 1e3 into Go struct field ObjectMeta.metadata.generation of type int64`],
    [CONFIG_MAP, '{"metadata":{"generation":9223372036854775808}}', `${CM} number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64`],
    [CONFIG_MAP, '{"metadata":{"finalizers":[1]}}', `${CM} number into Go struct field ObjectMeta.metadata.finalizers of type string`],
    [CONFIG_MAP, '{"metadata":{"ownerReferences":{}}}', `${CM} object into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference`],
    [CONFIG_MAP, '{"metadata":{"creationTimestamp":5}}', `${CM} number into Go struct field ObjectMeta.metadata.creationTimestamp of type string`],
    [CONFIG_MAP, '{"metadata":{"creationTimestamp":"2024-01-02"}}', 'parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'],
    [CONFIG_MAP, '{"binaryData":{"a":"abc"}}', 'illegal base64 data at input byte 0'],
    [CONFIG_MAP, '[]', `${CM} array into Go value of type v1.ConfigMap`],
    [NAMESPACE, '{"spec":{"finalizers":"x"}}', `${CM} string into Go struct field NamespaceSpec.spec.finalizers of type []string`],
    [SERVICE_ACCOUNT, '{"secrets":[{"name":1}]}', `${CM} number into Go struct field ObjectReference.secrets.name of type string`],
    [SECRET, '{"data":{"k":5}}', `${CM} number into Go struct field Secret.data of type []uint8`],
    [THING, '{"port":2147483648}', `${CM} number 2147483648 into Go struct field Thing.port of type int32`],
    [THING, '{"port":-2147483649}', `${CM} number -2147483649 into Go struct field Thing.port of type int32`],
    [THING, '{"ratio":1e39}', `${CM} number 1e39 into Go struct field Thing.ratio of type float32`],
    [THING, '{"weight":1e400}', `${CM} number 1e400 into Go struct field Thing.weight of type float64`],
    [THING, '{"target":true}', `${CM} bool into Go struct field Thing.target of type int32`],
    [THING, '{"target":1.5}', `${CM} number 1.5 into Go struct field Thing.target of type int32`],
    [THING, '{"byName":{"k":{"size":"1"}}}', `${CM} string into Go struct field Part.byName.size of type int64`],
    [THING, '{"matrix":[[1],[true]]}', `${CM} bool into Go struct field Thing.matrix of type int32`],
  ])('%s %s', (root, text, message) => {
    expect(check(text, root).decodeError?.goMessage).toBe(message);
  });

  test.each([
    ['{"port":2147483647,"count":-9223372036854775808,"ratio":1.5,"weight":-0.25,"target":"50%"}'],
    ['{"target":8080,"port":-0,"count":100000000000000}'],
  ])('accepts in-range values %s', (text) => {
    const r = check(text, THING);
    expect(r.typeErrors).toEqual([]);
    expect(r.value).toEqual(JSON.parse(text));
  });

  test('Go keeps the first error, unless a type with its own decoder fails (that stops decoding)', () => {
    const r = check('{"data":{"a":1,"b":true},"immutable":"x"}', CONFIG_MAP);
    expect(r.typeErrors.map((e) => e.path)).toEqual(['data.a', 'data.b', 'immutable']);
    expect(r.decodeError?.path).toBe('data.a');
    const f = check('{"data":{"a":1},"metadata":{"creationTimestamp":"bad","name":2}}', CONFIG_MAP);
    expect(f.decodeError).toMatchObject({ path: 'metadata.creationTimestamp', fatal: true });
    expect(f.typeErrors).toHaveLength(2);
  });

  test('normalizes what Go re-encodes: times in UTC to the second, base64 without line breaks', () => {
    const r = check('{"metadata":{"creationTimestamp":"2024-01-02T03:04:05.5+02:00"},"binaryData":{"a":"aGVs\\nbG8="}}', CONFIG_MAP);
    expect(r.value).toEqual({ metadata: { creationTimestamp: '2024-01-02T01:04:05Z' }, binaryData: { a: 'aGVsbG8=' } });
  });

  test('numbers from YAML (no literal text) are judged by their value', () => {
    const value: JsonValue = { port: 1.5, count: 3 };
    expect(checkAgainstSchema(value, defs, THING).decodeError?.goMessage).toBe(
      'json: cannot unmarshal number 1.5 into Go struct field Thing.port of type int32',
    );
  });

  test('converter wording for strategic merge patches', () => {
    const c = (value: JsonValue) => checkAgainstSchema(value, defs, THING, { converterMessages: true }).decodeError?.goMessage;
    expect(c({ parts: [{ name: 1 }] })).toBe('cannot convert int64 to string');
    expect(c({ parts: [{ name: 1.5 }] })).toBe('unrecognized type: string');
    expect(c({ port: 'x' })).toBe('unrecognized type: int32');
    expect(c({ port: 1.5 })).toBe('cannot convert float64 to int32');
    expect(c({ wrapped: 'x' })).toBe('cannot restore struct from: string');
    expect(c({ byName: [] })).toBe('cannot restore map from slice');
    expect(c({ parts: {} })).toBe('cannot restore slice from map');
  });

  test('an unknown definition is a programming error', () => {
    expect(() => checkAgainstSchema({}, defs, 'nope')).toThrow('schema: unknown definition "nope"');
  });
});

describe('checkAgainstSchema resource.Quantity', () => {
  const quantityDefs: Definitions = {
    'q.v1.Limits': {
      type: 'object',
      properties: {
        cpu: { $ref: '#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity' },
        byName: { type: 'object', additionalProperties: { $ref: '#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity' } },
      },
    },
    'io.k8s.apimachinery.pkg.api.resource.Quantity': { type: 'string' },
  };
  const checkLimits = (text: string) => {
    const p = parseJsonStrict(text);
    return checkAgainstSchema(p.value, quantityDefs, 'q.v1.Limits', { numberText: p.numberText, duplicates: p.duplicates });
  };

  test.each([
    ['{"cpu":"0.5"}', { cpu: '500m' }],
    ['{"cpu":0.25}', { cpu: '250m' }],
    ['{"cpu":1000,"byName":{"memory":"1024Mi"}}', { cpu: '1k', byName: { memory: '1Gi' } }],
  ])('%s is stored canonical', (text, expected) => {
    const r = checkLimits(text);
    expect(r.typeErrors).toEqual([]);
    expect(r.value).toEqual(expected);
  });

  test.each([['{"cpu":"lots"}'], ['{"cpu":true}'], ['{"byName":{"memory":{"a":1}}}']])('%s is a decode error', (text) => {
    const r = checkLimits(text);
    expect(r.typeErrors.map((e) => e.goMessage)).toEqual([expect.stringContaining('quantities must match')]);
  });
});
