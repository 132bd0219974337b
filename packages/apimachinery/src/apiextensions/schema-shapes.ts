import type { JsonObject, JsonValue } from '../meta/types.js';
import { isJsonObject } from '../meta/types.js';
import { META_V1, definitionRef } from '../openapi/schema-builders.js';
import type { JSONSchemaProps } from './types.js';

/** Group, version and kind a custom resource schema is published under. */
export interface CustomResourceGvk {
  group: string;
  version: string;
  kind: string;
}

/** `stable.example.com` + `v1` + `CronTab` -> `com.example.stable.v1.CronTab`, upstream's naming. */
export function customResourceDefinitionName(gvk: CustomResourceGvk): string {
  return `${gvk.group.split('.').reverse().join('.')}.${gvk.version}.${gvk.kind}`;
}

const TYPE_META_PROPS = (): Record<string, JsonObject> => ({
  apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
  kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
});

/**
 * The OpenAPI definition a custom resource version is published under (discovery of its fields by
 * `kubectl explain`, list-type markers for server-side apply): the CRD's schema with apiVersion,
 * kind and metadata (ObjectMeta) filled in at the root, and the GVK extension.
 */
export function publishedDefinition(schema: JSONSchemaProps | undefined, gvk: CustomResourceGvk): JsonObject {
  const root = deepCopy((schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) as unknown as JsonObject);
  const properties: JsonObject = isJsonObject(root['properties']) ? root['properties'] : {};
  root['type'] = 'object';
  root['properties'] = {
    ...properties,
    ...TYPE_META_PROPS(),
    metadata: { $ref: definitionRef(`${META_V1}.ObjectMeta`), description: "Standard object's metadata." },
  };
  root['x-kubernetes-group-version-kind'] = [{ group: gvk.group, kind: gvk.kind, version: gvk.version }];
  return root;
}

/**
 * The shape a custom resource body is decoded with: only structure (objects, maps, lists, where
 * unknown fields are kept), no scalar types. Decoding with it prunes the fields the schema does
 * not know (reported by field validation as unknown fields), while wrong value types pass on to
 * {@link validateAgainstSchema}, which reports them as 422 causes as upstream does for custom
 * resources.
 */
export function decodeDefinition(schema: JSONSchemaProps | undefined): JsonObject {
  const root = schema ? decodeShape(schema) : { 'x-kubernetes-preserve-unknown-fields': true };
  const properties: JsonObject = isJsonObject(root['properties']) ? root['properties'] : {};
  const out: JsonObject = {
    type: 'object',
    properties: {
      ...properties,
      ...TYPE_META_PROPS(),
      metadata: { $ref: definitionRef(`${META_V1}.ObjectMeta`) },
    },
  };
  if (root['x-kubernetes-preserve-unknown-fields'] === true) out['x-kubernetes-preserve-unknown-fields'] = true;
  return out;
}

function decodeShape(s: JSONSchemaProps): JsonObject {
  const shape = structureOf(s);
  if (s.nullable) shape['nullable'] = true;
  return shape;
}

function structureOf(s: JSONSchemaProps): JsonObject {
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (s['x-kubernetes-int-or-string']) return {};
  if (s.properties || s['x-kubernetes-embedded-resource'] || (s.type === 'object' && s.additionalProperties === undefined && !preserve)) {
    const properties: JsonObject = {};
    for (const [k, v] of Object.entries(s.properties ?? {})) properties[k] = decodeShape(v);
    if (s['x-kubernetes-embedded-resource']) {
      properties['apiVersion'] ??= {};
      properties['kind'] ??= {};
      properties['metadata'] ??= { 'x-kubernetes-preserve-unknown-fields': true };
    }
    const out: JsonObject = { type: 'object', properties };
    if (preserve) out['x-kubernetes-preserve-unknown-fields'] = true;
    return out;
  }
  if (preserve) return { 'x-kubernetes-preserve-unknown-fields': true };
  if (s.type === 'object') {
    const ap = s.additionalProperties;
    return { type: 'object', additionalProperties: typeof ap === 'object' ? decodeShape(ap) : {} };
  }
  if (s.type === 'array') return { type: 'array', items: s.items ? decodeShape(s.items) : {} };
  return {};
}

/**
 * Fills in `default`s of the schema where the value lacks the field (objects, map values and list
 * items are walked), as upstream's structural defaulting does. Returns a new value; `value` is
 * not changed.
 */
export function applyDefaults(value: JsonValue, schema: JSONSchemaProps): JsonValue {
  if (Array.isArray(value)) return schema.items ? value.map((v) => applyDefaults(v, schema.items!)) : value;
  if (!isJsonObject(value)) return value;
  const out: JsonObject = { ...value };
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if ((out[key] === undefined || (out[key] === null && !prop.nullable)) && prop.default !== undefined) out[key] = deepCopy(prop.default);
    if (out[key] !== undefined) out[key] = applyDefaults(out[key]!, prop);
  }
  if (typeof schema.additionalProperties === 'object') {
    const values = schema.additionalProperties;
    for (const key of Object.keys(out)) {
      if (!schema.properties || !Object.hasOwn(schema.properties, key)) out[key] = applyDefaults(out[key]!, values);
    }
  }
  return out;
}

function deepCopy<T extends JsonValue>(v: T): T {
  return structuredClone(v);
}
