import { openApiV2Definition } from './openapi-v2.js';
import { publishedDefinition } from './schema-shapes.js';
import type { JSONSchemaProps } from './types.js';

// After upstream's CRD OpenAPI builder (V2) and ToStructuralOpenAPIV2 (conversion_test.go).
const gvk = { group: 'example.com', version: 'v1', kind: 'Waldo' };
const GVK_EXT = [{ group: 'example.com', kind: 'Waldo', version: 'v1' }];
const v2 = (schema: JSONSchemaProps | undefined) => openApiV2Definition(publishedDefinition(schema, gvk));

describe('openApiV2Definition', () => {
  test('unknown fields kept at the root (or no schema): a bare object with its group-version-kind', () => {
    expect(v2({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true })).toEqual({ type: 'object', 'x-kubernetes-group-version-kind': GVK_EXT });
    expect(v2(undefined)).toEqual({ type: 'object', 'x-kubernetes-group-version-kind': GVK_EXT });
    expect(v2({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'string' } } })).toEqual({
      type: 'object',
      'x-kubernetes-group-version-kind': GVK_EXT,
    });
  });

  test('a structural schema keeps its properties, type meta and metadata', () => {
    const def = v2({ type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string', pattern: '^a' } } } } });
    expect(def['x-kubernetes-group-version-kind']).toEqual(GVK_EXT);
    expect(Object.keys(def['properties'] as object).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect((def['properties'] as Record<string, unknown>)['spec']).toEqual({ type: 'object', properties: { a: { type: 'string', pattern: '^a' } } });
  });

  test('nested nodes: preserved objects and nullable values lose type and structure, junctors go', () => {
    const def = v2({
      type: 'object',
      required: ['spec'],
      properties: {
        spec: {
          type: 'object',
          required: ['maybe', 'embedded'],
          properties: {
            embedded: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
            list: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
            maybe: { type: 'object', nullable: true, properties: { b: { type: 'string' } } },
            either: { type: 'string', anyOf: [{ pattern: 'a' }, { pattern: 'b' }], not: { pattern: 'c' } },
          },
        },
        extra: { type: 'object', additionalProperties: { type: 'string', nullable: true }, required: ['x'] },
      },
    });
    const props = def['properties'] as Record<string, Record<string, unknown>>;
    expect(def['required']).toEqual(['spec']);
    expect(props['spec']).toEqual({
      type: 'object',
      required: ['embedded'],
      properties: {
        embedded: { 'x-kubernetes-preserve-unknown-fields': true },
        list: { 'x-kubernetes-preserve-unknown-fields': true },
        maybe: {},
        either: { type: 'string' },
      },
    });
    expect(props['extra']).toEqual({ type: 'object', additionalProperties: {} });
  });

  test('list definitions are unchanged', () => {
    const list = { type: 'object', properties: { items: { type: 'array', items: { $ref: '#/definitions/com.example.v1.Waldo' } } } };
    expect(openApiV2Definition(list)).toEqual(list);
  });
});
