import type { JsonObject, JsonValue } from '../meta/types.js';

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A custom resource's published definition (publishedDefinition) as /openapi/v2 shows it, after
 * upstream's CRD OpenAPI builder for V2: a schema keeping unknown fields at its root becomes a bare
 * object with its group-version-kind (kubectl's v2 validation would refuse the unknown fields);
 * otherwise ToStructuralOpenAPIV2 runs on every node: junctors (allOf, anyOf, oneOf, not) go,
 * nullable nodes lose type, items and properties, nodes keeping unknown fields lose items,
 * properties and an `object` type, arrays without items lose their type, and nullable properties
 * (or nullable additionalProperties) are no longer required. Definitions of other shapes (lists)
 * come out unchanged. Pure.
 */
export function openApiV2Definition(def: JsonObject): JsonObject {
  if (def['x-kubernetes-preserve-unknown-fields'] === true && def['x-kubernetes-group-version-kind'] !== undefined) {
    return { type: 'object', 'x-kubernetes-group-version-kind': def['x-kubernetes-group-version-kind'] };
  }
  return toV2(def);
}

function toV2(node: JsonObject): JsonObject {
  const s: JsonObject = { ...node };
  for (const junctor of ['allOf', 'anyOf', 'oneOf', 'not']) delete s[junctor];
  if (s['nullable'] === true) {
    delete s['type'];
    delete s['nullable'];
    delete s['items'];
    delete s['properties'];
  }
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (preserve) {
    delete s['items'];
    delete s['properties'];
  }
  if (s['items'] === undefined && s['type'] === 'array') delete s['type'];
  if (preserve && s['type'] === 'object') delete s['type'];
  const properties = s['properties'];
  if (isObject(properties)) {
    const nullable = Object.keys(properties).filter((k) => isObject(properties[k]) && (properties[k] as JsonObject)['nullable'] === true);
    if (Array.isArray(s['required']) && nullable.length > 0) {
      const required = s['required'].filter((r) => !nullable.includes(r as string));
      if (required.length > 0) s['required'] = required;
      else delete s['required'];
    }
  }
  const additional = s['additionalProperties'];
  if (isObject(additional) && additional['nullable'] === true) delete s['required'];
  if (isObject(s['items'])) s['items'] = toV2(s['items']);
  if (isObject(properties)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(properties)) out[k] = isObject(v) ? toV2(v) : v;
    s['properties'] = out;
  }
  if (isObject(additional)) s['additionalProperties'] = toV2(additional);
  return s;
}
