import type { JsonObject, JsonValue } from '../meta/types.js';
import { compareObjects } from './compare.js';
import { fieldsOfNewObject } from './created-fields.js';
import { toFieldsV1 } from './fields-v1.js';
import { TypedValueError } from './list-items.js';
import { structuredTypeFromOpenApi } from './structured-type.js';
import { widgetDefinitions, widgetType, WIDGET } from './test-schema.js';

const schema = widgetType();

const widget = (body: JsonObject = {}, meta: JsonObject = {}): JsonObject => ({
  apiVersion: 'example.io/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', ...meta },
  ...body,
});

// Objects covering every marker of the test kind, empty and null containers, keys named like
// Object.prototype members, kinds that do not fit the schema, and untyped parts.
const objects: Array<[string, JsonValue]> = [
  ['identity only', widget()],
  ['data and labels', widget({ data: { a: '1', b: '' } }, { labels: { x: 'y' }, annotations: { 'k8s.io/a': 'b' } })],
  ['prototype-named keys', widget({ data: { constructor: 'x', toString: 'y', hasOwnProperty: 'z' } })],
  ['empty and null containers', widget({ data: {}, spec: { ports: [], tags: null, settings: {} } }, { labels: {} })],
  [
    'every list and map marker',
    widget({
      spec: {
        replicas: 2,
        paused: false,
        ports: [{ port: 80 }, { port: 80, protocol: 'UDP', name: 'dns' }],
        containers: [{ name: 'a', image: 'i', env: ['X=1'] }, { name: 'b' }],
        tags: ['t1', 't2'],
        args: ['--v', '2'],
        selector: { app: 'x' },
        settings: { s: '1' },
        ref: { kind: 'K', name: 'n' },
      },
    }),
  ],
  ['duplicate list keys (first wins)', widget({ spec: { containers: [{ name: 'a', image: '1' }, { name: 'a', image: '2' }], tags: ['t', 't'] } })],
  ['values that do not fit the schema', widget({ data: 'not a map', spec: { ports: { port: 1 }, replicas: { a: 1 }, tags: 'x' } })],
  ['undeclared and untyped fields', widget({ extra: { nested: { deep: [1, { a: 2 }] } }, spec: { unknown: [1, 2] } })],
  ['owner references and finalizers', widget({}, { ownerReferences: [{ uid: 'u1', kind: 'K', name: 'n', apiVersion: 'v1' }], finalizers: ['a/b'] })],
];

describe('fieldsOfNewObject', () => {
  test.each(objects)('%s: the fields a comparison with nothing finds added', (_name, obj) => {
    const expected = compareObjects(undefined, obj, schema).added;
    const got = fieldsOfNewObject(obj, schema);
    expect(toFieldsV1(got)).toEqual(toFieldsV1(expected));
    expect(got.equals(expected)).toBe(true);
  });

  test('keys named like Object.prototype members are fields like any other', () => {
    expect(toFieldsV1(fieldsOfNewObject({ data: { constructor: 'x', toString: 'y' } }, schema))).toEqual({
      'f:data': { '.': {}, 'f:constructor': {}, 'f:toString': {} },
    });
  });

  test('an item without its list-map key throws with its path, as the comparison does', () => {
    const obj = widget({ spec: { containers: [{ image: 'no name' }] } });
    const messageOf = (fn: () => unknown): string => {
      try {
        fn();
      } catch (e) {
        expect(e).toBeInstanceOf(TypedValueError);
        return (e as Error).message;
      }
      throw new Error('expected a TypedValueError');
    };
    expect(messageOf(() => fieldsOfNewObject(obj, schema))).toBe(messageOf(() => compareObjects(undefined, obj, schema)));
  });

  test('an atomic or unknown root owns nothing', () => {
    const atomicRoot = structuredTypeFromOpenApi(widgetDefinitions(), 'io.example.v1.Ref');
    expect(fieldsOfNewObject({ kind: 'K', name: 'n' }, atomicRoot).isEmpty()).toBe(true);
    expect(toFieldsV1(fieldsOfNewObject({ a: { b: 1 } }, structuredTypeFromOpenApi(widgetDefinitions(), `${WIDGET}.missing`)))).toEqual(
      toFieldsV1(compareObjects(undefined, { a: { b: 1 } }, structuredTypeFromOpenApi(widgetDefinitions(), `${WIDGET}.missing`)).added),
    );
  });
});
