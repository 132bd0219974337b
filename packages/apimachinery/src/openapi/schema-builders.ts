import type { JsonObject, JsonValue } from '../meta/types.js';

/** Definition-name prefix of the shared meta/v1 types, as upstream names them. */
export const META_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** A `$ref` to a v2-style definition (`#/definitions/<name>`). */
export function definitionRef(name: string): string {
  return `#/definitions/${name}`;
}

/** Extra keywords merged into a built schema (extensions, `default`, `enum`, ...). */
export type SchemaExtras = Record<string, JsonValue>;

/** A string property. */
export function stringProp(description: string, extras: SchemaExtras = {}): JsonObject {
  return { description, type: 'string', ...extras };
}

/** An integer property with an explicit `format` (`int32` or `int64`, as upstream). */
export function integerProp(description: string, format: 'int32' | 'int64', extras: SchemaExtras = {}): JsonObject {
  return { description, type: 'integer', format, ...extras };
}

/** A boolean property. */
export function booleanProp(description: string, extras: SchemaExtras = {}): JsonObject {
  return { description, type: 'boolean', ...extras };
}

/** A property that refers to another definition; the description sits beside the `$ref`. */
export function refProp(definition: string, description: string, extras: SchemaExtras = {}): JsonObject {
  return { $ref: definitionRef(definition), description, ...extras };
}

/** An array whose items are the given schema. */
export function arrayProp(description: string, items: JsonObject, extras: SchemaExtras = {}): JsonObject {
  return { description, type: 'array', items, ...extras };
}

/** An array of strings (items default to "" as upstream's generator writes). */
export function stringArrayProp(description: string, extras: SchemaExtras = {}): JsonObject {
  return arrayProp(description, { type: 'string', default: '' }, extras);
}

/** An array of another definition. */
export function refArrayProp(description: string, definition: string, extras: SchemaExtras = {}): JsonObject {
  return arrayProp(description, { $ref: definitionRef(definition), default: {} }, extras);
}

/** A map from string keys to the given value schema. */
export function mapProp(description: string, values: JsonObject, extras: SchemaExtras = {}): JsonObject {
  return { description, type: 'object', additionalProperties: values, ...extras };
}

/** A map of string to string (labels, annotations, ConfigMap data...). */
export function stringMapProp(description: string, extras: SchemaExtras = {}): JsonObject {
  return mapProp(description, { type: 'string', default: '' }, extras);
}

/** One entry of `x-kubernetes-group-version-kind`. */
export interface GvkMarker {
  group: string;
  version: string;
  kind: string;
}

/** Options of {@link objectSchema}. */
export interface ObjectSchemaOptions {
  required?: readonly string[];
  /** Sets `x-kubernetes-group-version-kind` (an array on definitions, as upstream). */
  gvk?: readonly GvkMarker[];
  extras?: SchemaExtras;
}

/** An object definition; properties are emitted in key order for stable output and hashes. */
export function objectSchema(
  description: string,
  properties: Record<string, JsonObject>,
  options: ObjectSchemaOptions = {},
): JsonObject {
  const sorted: JsonObject = {};
  for (const key of Object.keys(properties).sort()) sorted[key] = properties[key];
  const schema: JsonObject = { description, type: 'object', properties: sorted };
  if (options.required && options.required.length > 0) schema['required'] = [...options.required];
  if (options.gvk && options.gvk.length > 0) {
    schema['x-kubernetes-group-version-kind'] = options.gvk.map((g) => ({
      group: g.group,
      kind: g.kind,
      version: g.version,
    }));
  }
  return { ...schema, ...(options.extras ?? {}) };
}

/** The `apiVersion` property every top-level kind carries. */
export function apiVersionProp(): JsonObject {
  return stringProp(
    'Versioned schema of this representation of an object, as group/version. Servers convert known schemas to their latest internal form and may reject unknown values.',
  );
}

/** The `kind` property every top-level kind carries. */
export function kindProp(): JsonObject {
  return stringProp('Name of the REST kind this object represents, in CamelCase. Servers may infer it from the endpoint. Cannot be updated.');
}

/** `apiVersion`, `kind` and `metadata` (ObjectMeta) of a top-level object kind. */
export function objectTypeMeta(): Record<string, JsonObject> {
  return {
    apiVersion: apiVersionProp(),
    kind: kindProp(),
    metadata: refProp(`${META_V1}.ObjectMeta`, "Standard object's metadata.", { default: {} }),
  };
}

/**
 * The list definition of a kind: `apiVersion`, `kind`, `metadata` (ListMeta) and required `items`.
 */
export function listSchema(itemDefinition: string, gvk: GvkMarker, itemsDescription: string): JsonObject {
  return objectSchema(
    `${gvk.kind} is a list of ${gvk.kind.replace(/List$/, '')} objects.`,
    {
      apiVersion: apiVersionProp(),
      kind: kindProp(),
      metadata: refProp(`${META_V1}.ListMeta`, 'Standard list metadata.', { default: {} }),
      items: refArrayProp(itemsDescription, itemDefinition),
    },
    { required: ['items'], gvk: [gvk] },
  );
}
