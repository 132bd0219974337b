import type { KubeObject } from '@cluster/apimachinery';
import type { Predicate, SelectionAttrs } from '../interfaces.js';
import { Held, objectOf, type CacheEntry } from './held.js';

/**
 * Selection on a shared store's entries without decoding them every time (issue 33). A handle
 * (Held) keeps what selectors read of its version, its labels and one field set, from the first
 * time a selector looks at it on: a version never changes, so neither do they. A list or watch
 * with a selector then decodes only the versions it serves (and each version once per thread to
 * learn its attributes), as a cache of decoded objects does.
 *
 * Equal label sets are shared (most objects of one workload carry the same labels), so a kept
 * label set costs a pointer; a field set is the kind's few strings (metadata.name, and for some
 * kinds a spec or status value).
 */

/** Empty label set, shared by every version without labels. */
const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});
/** Bound on the JSON characters of the label sets remembered for sharing; it starts again when full. */
const MAX_LABEL_CHARS = 1 << 20;
/** Label sets longer than this (as JSON) are not shared: unlikely to repeat. */
const MAX_SHARED_LABELS_CHARS = 2048;

const labelSets = new Map<string, Readonly<Record<string, string>>>();
let labelChars = 0;

/** One instance per equal label set (by JSON, key order included: equal JSON, equal selection). */
function sharedLabels(labels: Record<string, string> | undefined): Readonly<Record<string, string>> {
  if (labels === undefined || labels === null || typeof labels !== 'object') return NO_LABELS;
  const json = JSON.stringify(labels);
  if (json === '{}') return NO_LABELS;
  if (json.length > MAX_SHARED_LABELS_CHARS) return labels;
  const found = labelSets.get(json);
  if (found !== undefined) return found;
  if (labelChars + json.length > MAX_LABEL_CHARS) {
    labelSets.clear();
    labelChars = 0;
  }
  labelSets.set(json, labels);
  labelChars += json.length;
  return labels;
}

/** Bound on the field values shared (namespaces, node names, types...); the set starts again when full. */
const MAX_SHARED_VALUES = 16_384;
const fieldValues = new Map<string, string>();

/**
 * `fields` with its values shared with equal ones of other versions (a field set is made from a
 * freshly decoded object, whose strings are its own), except metadata.name's, which every object
 * has its own of.
 */
function sharedFields(fields: Record<string, string>): Record<string, string> {
  for (const name in fields) {
    if (name === 'metadata.name') continue;
    const v = fields[name]!;
    const found = fieldValues.get(v);
    if (found !== undefined) fields[name] = found;
    else {
      if (fieldValues.size >= MAX_SHARED_VALUES) fieldValues.clear();
      fieldValues.set(v, v);
    }
  }
  return fields;
}

/** Whether the object of `entry` passes `predicate`; a handle is decoded only when it must be. */
export function entryPasses(entry: CacheEntry, predicate: Predicate): boolean {
  const attrs = predicate.attrs;
  if (attrs === undefined || !(entry instanceof Held)) return predicate(objectOf(entry));
  return heldPasses(entry, attrs);
}

function heldPasses(held: Held, attrs: SelectionAttrs): boolean {
  let obj: KubeObject | undefined;
  let labels = held.labels;
  if (labels === undefined) {
    obj = held.peek();
    labels = held.labels = sharedLabels(obj.metadata.labels);
  }
  if (attrs.labels !== undefined && !attrs.labels(labels)) return false;
  if (attrs.fields === undefined) return true;
  if (held.fieldsOf !== attrs.fieldsOf) {
    obj ??= held.peek();
    held.fields = sharedFields(attrs.fieldsOf(obj));
    held.fieldsOf = attrs.fieldsOf;
  }
  return attrs.fields(held.fields!);
}
