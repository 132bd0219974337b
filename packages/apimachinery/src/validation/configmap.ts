import type { ObjectMeta } from '../meta/types.js';
import { forbidden, invalid, key, tooLong, type FieldErrorList } from './field-error.js';
import { byteLength, isConfigMapKey } from './name-rules.js';
import { validateObjectMeta, type ObjectMetaOptions } from './object-meta.js';
import { validateObjectMetaUpdate } from './object-meta-update.js';

/** Upstream's MaxSecretSize, which also bounds a ConfigMap's data plus binaryData. */
export const MAX_CONFIG_MAP_SIZE_BYTES = 1024 * 1024;

const immutableMsg = 'field is immutable when `immutable` is set';

/** The fields of a ConfigMap that validation reads, in their JSON form (binaryData values are base64). */
export interface ConfigMapFields {
  metadata: ObjectMeta;
  data?: Record<string, string> | null;
  binaryData?: Record<string, string> | null;
  immutable?: boolean | null;
}

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain', coreFinalizers: true };

/** Decoded size of a base64 value; the decoder has already rejected malformed base64. */
function decodedLength(b64: string): number {
  return Buffer.from(b64, 'base64').length;
}

/**
 * Keys of data and binaryData, the overlap of the two, and their total size. Data values are not
 * checked for UTF-8: a JSON string is always text, and lone surrogates (the only JSON-decodable
 * non-UTF-8) should be replaced with U+FFFD when decoding, as Go's encoding/json does; upstream
 * validation likewise has no such check.
 */
function validateConfigMapContent(cm: ConfigMapFields): FieldErrorList {
  const errs: FieldErrorList = [];
  const data = cm.data ?? {};
  const binary = cm.binaryData ?? {};
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(key('data', k), k, msg));
    if (Object.hasOwn(binary, k)) errs.push(invalid(key('data', k), k, 'duplicate of key present in binaryData'));
    total += byteLength(v);
  }
  for (const [k, v] of Object.entries(binary)) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(key('binaryData', k), k, msg));
    total += decodedLength(v);
  }
  // Upstream reports this at field.NewPath(""), meaning the whole object, which Go prints as `[]`.
  if (total > MAX_CONFIG_MAP_SIZE_BYTES) errs.push(tooLong('[]', MAX_CONFIG_MAP_SIZE_BYTES));
  return errs;
}

/** Validates a ConfigMap on create (upstream ValidateConfigMap). */
export function validateConfigMap(cm: ConfigMapFields): FieldErrorList {
  return [...validateObjectMeta(cm.metadata, metaOptions), ...validateConfigMapContent(cm)];
}

/** reflect.DeepEqual over two string maps: an absent map differs from an empty one. */
function sameMap(a: Record<string, string> | null | undefined, b: Record<string, string> | null | undefined): boolean {
  if (a == null || b == null) return a == null && b == null;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/**
 * Validates a ConfigMap update (upstream ValidateConfigMapUpdate): metadata create and update rules,
 * then, when the old object is immutable, `immutable` cannot be unset and data/binaryData cannot change.
 */
export function validateConfigMapUpdate(newCm: ConfigMapFields, oldCm: ConfigMapFields): FieldErrorList {
  const errs = validateObjectMetaUpdate(newCm.metadata, oldCm.metadata, metaOptions);
  if (oldCm.immutable === true) {
    if (newCm.immutable !== true) errs.push(forbidden('immutable', immutableMsg));
    if (!sameMap(newCm.data, oldCm.data)) errs.push(forbidden('data', immutableMsg));
    if (!sameMap(newCm.binaryData, oldCm.binaryData)) errs.push(forbidden('binaryData', immutableMsg));
  }
  errs.push(...validateConfigMapContent(newCm));
  return errs;
}
