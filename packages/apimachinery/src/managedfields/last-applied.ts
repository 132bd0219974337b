import type { JsonObject, JsonValue } from '../meta/types.js';
import { compareObjects } from './compare.js';
import type { FieldSet } from './field-set.js';
import { goJson } from './go-json.js';
import { isObject } from './list-items.js';
import type { StructuredType } from './structured-type.js';
import { fieldSetFromObject } from './to-field-set.js';

/** The annotation client-side `kubectl apply` keeps its last configuration in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** Manager name for which the annotation is kept in sync (upstream hard-codes kubectl). */
export const KUBECTL_MANAGER = 'kubectl';
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
const utf8 = new TextEncoder();

const annotationsOf = (obj: JsonValue | undefined): JsonObject | undefined => {
  const meta = isObject(obj) ? obj['metadata'] : undefined;
  const ann = isObject(meta) ? meta['annotations'] : undefined;
  return isObject(ann) ? ann : undefined;
};

/** The client-side annotation value of `obj`, undefined when absent or empty. */
export function lastAppliedOf(obj: JsonValue | undefined): string | undefined {
  const v = annotationsOf(obj)?.[LAST_APPLIED_ANNOTATION];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Fields of the client-side last-applied configuration that still hold their applied value in
 * `live`: server-side apply by kubectl may take those over from client-side owners without a
 * conflict (upstream lastAppliedManager). Undefined when there is no usable annotation.
 */
export function allowedConflictsFromLastApplied(live: JsonValue, schema: StructuredType): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined) return undefined;
  try {
    const last = JSON.parse(text) as JsonValue;
    const set = fieldSetFromObject(last, schema, false);
    return set.difference(compareObjects(last, live, schema).modified);
  } catch {
    return undefined;
  }
}

/**
 * Sets the client-side annotation of `obj` (mutated) to the JSON of `applied` as Go encodes it
 * (sorted keys, trailing newline), without the annotation itself, when `obj` already carries one
 * (upstream lastAppliedUpdater). An annotation that would push the total annotation size over
 * 256 KiB is removed instead.
 */
export function syncLastApplied(obj: JsonObject, applied: JsonObject): void {
  if (lastAppliedOf(obj) === undefined) return;
  const copy = JSON.parse(JSON.stringify(applied)) as JsonObject;
  const meta = copy['metadata'];
  if (isObject(meta) && isObject(meta['annotations'])) {
    const ann = meta['annotations'];
    delete ann[LAST_APPLIED_ANNOTATION];
    if (Object.keys(ann).length === 0) delete meta['annotations'];
  }
  const annotations = annotationsOf(obj) as JsonObject;
  annotations[LAST_APPLIED_ANNOTATION] = `${goJson(copy)}\n`;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) total += utf8.encode(k).length + utf8.encode(typeof v === 'string' ? v : '').length;
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) delete annotations[LAST_APPLIED_ANNOTATION];
}
