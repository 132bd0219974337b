import type { JsonObject } from '../meta/types.js';
import { metaDefinitions } from '../openapi/meta-definitions.js';
import { definitionRef, META_V1 } from '../openapi/schema-builders.js';
import { structuredTypeFromOpenApi, type StructuredType } from './structured-type.js';

/** Definition name of the test kind used by the managedfields tests. */
export const WIDGET = 'io.example.v1.Widget';

const str = { type: 'string' };

/**
 * A small kind exercising every merge marker: map lists (by list-type and by patch merge key, with a
 * defaulted key), a set, an atomic list, atomic and granular maps, an atomic struct, nested structs.
 */
export function widgetDefinitions(): Record<string, JsonObject> {
  return {
    ...metaDefinitions('k8s.io'),
    [WIDGET]: {
      type: 'object',
      properties: {
        apiVersion: str,
        kind: str,
        metadata: { $ref: definitionRef(`${META_V1}.ObjectMeta`), default: {} },
        data: { type: 'object', additionalProperties: str },
        spec: { $ref: definitionRef('io.example.v1.WidgetSpec') },
      },
    },
    'io.example.v1.WidgetSpec': {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        paused: { type: 'boolean' },
        ports: {
          type: 'array',
          items: { $ref: definitionRef('io.example.v1.Port') },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
        },
        containers: {
          type: 'array',
          items: { $ref: definitionRef('io.example.v1.Container') },
          'x-kubernetes-patch-merge-key': 'name',
          'x-kubernetes-patch-strategy': 'merge',
        },
        tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
        args: { type: 'array', items: str },
        selector: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
        settings: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'granular' },
        ref: { $ref: definitionRef('io.example.v1.Ref') },
      },
    },
    'io.example.v1.Port': {
      type: 'object',
      properties: {
        port: { type: 'integer' },
        protocol: { type: 'string', default: 'TCP' },
        name: str,
      },
    },
    'io.example.v1.Container': {
      type: 'object',
      properties: { name: str, image: str, env: { type: 'array', items: str } },
    },
    'io.example.v1.Ref': {
      type: 'object',
      properties: { kind: str, name: str },
      'x-kubernetes-map-type': 'atomic',
    },
  };
}

/** The structured type of the test kind. */
export function widgetType(): StructuredType {
  return structuredTypeFromOpenApi(widgetDefinitions(), WIDGET);
}
