import type { JsonObject } from '../meta/types.js';
import { metaDefinitions } from '../openapi/meta-definitions.js';
import { compareObjects } from './compare.js';
import { toFieldsV1 } from './fields-v1.js';
import { TypedValueError } from './list-items.js';
import { structuredTypeFromOpenApi, type StructuredType } from './structured-type.js';
import { widgetType } from './test-schema.js';
import { fieldSetFromObject } from './to-field-set.js';

const widget = widgetType();

describe('fieldSetFromObject (SMD ToFieldSet)', () => {
  test.each<[string, JsonObject, JsonObject]>([
    ['scalars of structs are leaves; struct fields are not members', { spec: { replicas: 1 } }, { 'f:spec': { 'f:replicas': {} } }],
    ['map keys are members', { data: { a: '1', b: '2' } }, { 'f:data': { 'f:a': {}, 'f:b': {} } }],
    ['empty map and null fields are members', { data: {}, spec: { settings: null } }, { 'f:data': {}, 'f:spec': { 'f:settings': {} } }],
    [
      'map list items are members keyed by all key fields, defaults filling missing keys',
      { spec: { ports: [{ port: 80, name: 'http' }, { port: 53, protocol: 'UDP' }] } },
      {
        'f:spec': {
          'f:ports': {
            'k:{"port":53,"protocol":"UDP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} },
            'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} },
          },
        },
      },
    ],
    [
      'patch merge key without list type makes a map list',
      { spec: { containers: [{ name: 'c', image: 'i', env: ['A=1'] }] } },
      { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:env': {}, 'f:image': {}, 'f:name': {} } } } },
    ],
    ['set items', { spec: { tags: ['b', 'a'] } }, { 'f:spec': { 'f:tags': { 'v:"a"': {}, 'v:"b"': {} } } }],
    ['lists without markers are atomic', { spec: { args: ['x', 'y'] } }, { 'f:spec': { 'f:args': {} } }],
    ['atomic maps and atomic structs are leaves', { spec: { selector: { a: 'b' }, ref: { kind: 'K', name: 'n' } } }, { 'f:spec': { 'f:ref': {}, 'f:selector': {} } }],
    ['granular maps', { spec: { settings: { a: 'b' } } }, { 'f:spec': { 'f:settings': { 'f:a': {} } } }],
    [
      'metadata: labels granular, finalizers set, ownerReferences map by uid',
      { metadata: { name: 'n', labels: { x: 'y' }, finalizers: ['f'], ownerReferences: [{ uid: 'u', name: 'o', kind: 'K', apiVersion: 'v1' }] } },
      {
        'f:metadata': {
          'f:finalizers': { 'v:"f"': {} },
          'f:labels': { 'f:x': {} },
          'f:name': {},
          'f:ownerReferences': { 'k:{"uid":"u"}': {} },
        },
      },
    ],
    ['unknown fields are untyped members', { extra: { deep: [1, 2] } }, { 'f:extra': { '.': {}, 'f:deep': {} } }],
  ])('%s', (_name, obj, fields) => {
    expect(toFieldsV1(fieldSetFromObject(obj, widget))).toEqual(fields);
  });

  test.each<[string, JsonObject, string]>([
    [
      'missing key without default',
      { spec: { ports: [{ name: 'x' }] } },
      '.spec.ports: element 0: associative list with keys has an element that omits key field "port" (and doesn\'t have default value)',
    ],
    ['duplicate map-list keys', { spec: { ports: [{ port: 1 }, { port: 1 }] } }, '.spec.ports: duplicate entries for key [port=1,protocol="TCP"]'],
    ['duplicate set items', { spec: { tags: ['a', 'a'] } }, '.spec.tags: duplicate entries for key [="a"]'],
    ['map in a set', { spec: { tags: [{}] } }, ".spec.tags: element 0: associative list without keys has an element that's a map type"],
    ['null in a set', { spec: { tags: [null] } }, ".spec.tags: element 0: associative list without keys has an element that's an explicit null"],
    ['scalar in a map list', { spec: { containers: ['c'] } }, '.spec.containers: element 0: associative list with keys may not have non-map elements'],
  ])('rejects %s', (_name, obj, message) => {
    expect(() => fieldSetFromObject(obj, widget)).toThrow(TypedValueError);
    expect(() => fieldSetFromObject(obj, widget)).toThrow(message);
  });

  test('duplicates are tolerated in stored objects (first wins)', () => {
    const set = fieldSetFromObject({ spec: { tags: ['a', 'a'] } }, widget, false);
    expect(toFieldsV1(set)).toEqual({ 'f:spec': { 'f:tags': { 'v:"a"': {} } } });
  });
});

describe('the ConfigMap schema of the apiserver', () => {
  let configMap: StructuredType;
  beforeAll(async () => {
    // Loaded at run time: the apiserver package builds after this one.
    const modulePath = '../../../apiserver/src/resources/core/schemas.js';
    const mod = (await import(modulePath)) as { coreDefinitions: (domain: string) => Record<string, JsonObject> };
    configMap = structuredTypeFromOpenApi({ ...metaDefinitions('k8s.io'), ...mod.coreDefinitions('k8s.io') }, 'io.k8s.api.core.v1.ConfigMap');
  });

  test('an Update of a new ConfigMap owns data and labels with their "." members', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { x: 'y' } }, data: { a: '1' } };
    const { added } = compareObjects(undefined, cm, configMap);
    expect(toFieldsV1(added)).toEqual({
      'f:apiVersion': {},
      'f:data': { '.': {}, 'f:a': {} },
      'f:kind': {},
      'f:metadata': { '.': {}, 'f:labels': { '.': {}, 'f:x': {} }, 'f:name': {} },
    });
  });

  test('binaryData and immutable are fields', () => {
    const set = fieldSetFromObject({ binaryData: { b: 'AA==' }, immutable: true }, configMap);
    expect(toFieldsV1(set)).toEqual({ 'f:binaryData': { 'f:b': {} }, 'f:immutable': {} });
  });
});
