import type { Field, Type } from 'protobufjs';
import { META_V1 } from './proto-root.js';

/**
 * How a field looks in the JSON form. Upstream keeps this in Go struct tags (pointer or value,
 * omitempty or not); our .proto files carry it as the custom options of cluster-options.proto.
 */

/**
 * True when the Go field is a pointer: written only when set, and kept in the JSON form when read
 * back even if zero. Byte fields behave the same way (upstream writes them only when non-nil).
 */
export function isNullable(field: Field): boolean {
  return field.options?.['(cluster.nullable)'] === true || field.type === 'bytes';
}

/** True when the Go JSON tag has no omitempty, so a zero value is still shown. */
export function isJsonAlways(field: Field): boolean {
  return field.options?.['(cluster.json_always)'] === true;
}

/** True when the field is a Go struct embedded inline: its fields sit directly in the parent's JSON. */
export function isInline(field: Field): boolean {
  return field.options?.['(cluster.inline)'] === true;
}

/** The field's key in the JSON form: its (cluster.json_name) when it has one (`$ref`), else its name. */
export function jsonNameOf(field: Field): string {
  const name: unknown = field.options?.['(cluster.json_name)'];
  return typeof name === 'string' && name !== '' ? name : field.name;
}

/**
 * The JSON keys of a message: its own fields' JSON names, with inline fields replaced by the keys
 * of the message they embed.
 */
export function jsonKeysOf(type: Type): Set<string> {
  const keys = new Set<string>();
  for (const field of type.fieldsArray) {
    const nested = messageTypeOf(field);
    if (nested && isInline(field)) for (const k of jsonKeysOf(nested)) keys.add(k);
    else keys.add(jsonNameOf(field));
  }
  return keys;
}

/** Message types whose JSON form is not an object of their fields. */
export type SpecialShape =
  | 'time'
  | 'microTime'
  | 'fieldsV1'
  | 'extraValue'
  | 'rawExtension'
  | 'intOrString'
  | 'quantity'
  /** apiextensions JSON: any JSON value, carried as its text. */
  | 'json'
  /** JSONSchemaPropsOrArray: a schema, or a list of schemas. */
  | 'schemaOrArray'
  /** JSONSchemaPropsOrBool: a schema, or a boolean. */
  | 'schemaOrBool'
  /** JSONSchemaPropsOrStringArray: a schema, or a list of property names. */
  | 'schemaOrStringArray';

const APIEXTENSIONS_V1 = '.k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

const SPECIAL: ReadonlyMap<string, SpecialShape> = new Map([
  [`.${META_V1}.Time`, 'time'],
  [`.${META_V1}.MicroTime`, 'microTime'],
  [`.${META_V1}.FieldsV1`, 'fieldsV1'],
  ['.k8s.io.apimachinery.pkg.runtime.RawExtension', 'rawExtension'],
  ['.k8s.io.apimachinery.pkg.util.intstr.IntOrString', 'intOrString'],
  ['.k8s.io.apimachinery.pkg.api.resource.Quantity', 'quantity'],
  [`${APIEXTENSIONS_V1}.JSON`, 'json'],
  [`${APIEXTENSIONS_V1}.JSONSchemaPropsOrArray`, 'schemaOrArray'],
  [`${APIEXTENSIONS_V1}.JSONSchemaPropsOrBool`, 'schemaOrBool'],
  [`${APIEXTENSIONS_V1}.JSONSchemaPropsOrStringArray`, 'schemaOrStringArray'],
]);

/** The special JSON shape of a message type, if it has one. */
export function specialShape(type: Type): SpecialShape | undefined {
  const known = SPECIAL.get(type.fullName);
  if (known) return known;
  // ExtraValue is declared once per API package (authorization, authentication, certificates):
  // a Go `[]string` wrapped in a message so that it can be a map value.
  return type.name === 'ExtraValue' ? 'extraValue' : undefined;
}

/** The message type of a field, or undefined for scalars. */
export function messageTypeOf(field: Field): Type | undefined {
  const t = field.resolvedType;
  return t && 'fieldsArray' in t ? t : undefined;
}

/** Keys of a JSON object that are never fields of the message (type information). */
export const TYPE_META_KEYS: ReadonlySet<string> = new Set(['apiVersion', 'kind']);
