import { checkAgainstSchema } from '../schema/schema-walk.js';
import { metaDefinitions } from '../openapi/meta-definitions.js';
import type { JsonObject, JsonValue } from '../meta/types.js';
import { applyDefaults, customResourceDefinitionName, decodeDefinition, publishedDefinition } from './schema-shapes.js';
import type { JSONSchemaProps } from './types.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        image: { type: 'string' },
        opaque: { type: 'object' },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        mixed: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
        port: { 'x-kubernetes-int-or-string': true },
        maybe: { type: 'string', nullable: true },
        labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string', default: 'x' } } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } },
      },
    },
  },
};

/** Decodes `value` as a request body of the custom resource would be: unknown fields pruned. */
function prune(value: JsonValue) {
  const defs = { ...metaDefinitions('k8s.io'), cr: decodeDefinition(schema) };
  return checkAgainstSchema(value, defs, 'cr');
}

describe('decodeDefinition (pruning)', () => {
  test.each<[string, JsonObject, JsonObject, string[]]>([
    ['unknown top-level field', { spec: {}, extra: 1 }, { spec: {} }, ['extra']],
    ['unknown nested field', { spec: { image: 'a', nope: true } }, { spec: { image: 'a' } }, ['spec.nope']],
    ['wrong types pass to validation', { spec: { image: 5, replicas: 'x' } }, { spec: { image: 5, replicas: 'x' } }, []],
    ['object without properties keeps nothing', { spec: { opaque: { a: 1 } } }, { spec: { opaque: {} } }, ['spec.opaque.a']],
    ['preserve-unknown-fields keeps everything', { spec: { free: { a: { b: 1 } } } }, { spec: { free: { a: { b: 1 } } } }, []],
    ['preserve-unknown-fields beside properties', { spec: { mixed: { known: 'k', other: 1 } } }, { spec: { mixed: { known: 'k', other: 1 } } }, []],
    ['int-or-string kept as is', { spec: { port: 'http' } }, { spec: { port: 'http' } }, []],
    ['nulls of nullable fields kept, others dropped', { spec: { maybe: null, image: null } }, { spec: { maybe: null } }, []],
    ['map values pruned', { spec: { labels: { a: { v: 'x', w: 'y' } } } }, { spec: { labels: { a: { v: 'x' } } } }, ['spec.labels.a.w']],
    ['list items pruned', { spec: { items: [{ name: 'a', z: 1 }] } }, { spec: { items: [{ name: 'a' }] } }, ['spec.items[0].z']],
    [
      'embedded resources keep apiVersion, kind and metadata',
      { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'b', c: 'd' } } } },
      { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'b' } } } },
      ['spec.template.spec.c'],
    ],
  ])('%s', (_name, input, expected, unknown) => {
    const r = prune({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'n' }, ...input });
    expect(r.decodeError).toBeUndefined();
    expect(r.value).toEqual({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'n' }, ...expected });
    expect(r.unknownFields).toEqual(unknown);
  });

  test('metadata is still decoded as ObjectMeta', () => {
    const r = prune({ metadata: { name: 'n', bogus: 1 }, spec: {} });
    expect(r.unknownFields).toEqual(['metadata.bogus']);
  });
});

describe('applyDefaults', () => {
  test.each<[string, JsonValue, JsonValue]>([
    ['absent field', { spec: {} }, { spec: { replicas: 1 } }],
    ['present field kept', { spec: { replicas: 3 } }, { spec: { replicas: 3 } }],
    ['null replaced', { spec: { replicas: null } }, { spec: { replicas: 1 } }],
    ['list items', { spec: { replicas: 2, items: [{}, { name: 'b' }] } }, { spec: { replicas: 2, items: [{ name: 'x' }, { name: 'b' }] } }],
    ['absent parent not created', {}, {}],
  ])('%s', (_name, input, expected) => {
    expect(applyDefaults(input, schema)).toEqual(expected);
  });

  test('does not change its input', () => {
    const input = { spec: {} };
    applyDefaults(input, schema);
    expect(input).toEqual({ spec: {} });
  });
});

describe('publishedDefinition', () => {
  test('adds apiVersion, kind, ObjectMeta and the GVK', () => {
    const def = publishedDefinition(schema, { group: 'stable.example.com', version: 'v1', kind: 'CronTab' });
    expect(def['x-kubernetes-group-version-kind']).toEqual([{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
    expect(Object.keys(def['properties'] as JsonObject).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect((def['properties'] as JsonObject)['metadata']).toMatchObject({ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
  });

  test('names definitions with the reversed group', () => {
    expect(customResourceDefinitionName({ group: 'stable.example.com', version: 'v1', kind: 'CronTab' })).toBe('com.example.stable.v1.CronTab');
  });
});
