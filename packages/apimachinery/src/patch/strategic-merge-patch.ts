import { newBadRequest } from '../errors/status-error.js';
import type { JsonObject, JsonValue } from '../meta/types.js';
import { deepClone, goTypeName, isObject, setOwn } from './json-value.js';
import { EMPTY_PATCH_SCHEMA, type PatchSchema } from './patch-meta.js';
import {
  findMapByKey,
  normalizeElementOrder,
  partitionMaps,
  partitionPrimitives,
  validatePatchWithSetOrderList,
} from './smp-order.js';
import {
  DELETE_DIRECTIVE,
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  DIRECTIVE_MARKER,
  MERGE_DIRECTIVE,
  REPLACE_DIRECTIVE,
  RETAIN_KEYS_DIRECTIVE,
  SET_ELEMENT_ORDER_PREFIX,
  SmpError,
  errBadArgType,
  errBadPrimitiveList,
  errBadSetElementOrder,
  errBadPatchType,
  errBadRetainKeys,
  errMalformed,
  errNoMergeKey,
  extractKey,
  mainStrategy,
  sanitize,
  scalarKey,
  sliceElementType,
} from './smp-support.js';

// The functions below work on private deep copies and mutate them freely, as upstream does.

/** Stores a value taken from the patch, or drops the field when the value is a directive map. */
function storePatchValue(target: JsonObject, key: string, value: JsonValue): void {
  const clean = sanitize(value);
  if (clean === undefined) delete target[key];
  else setOwn(target, key, clean);
}

/** `$patch` on a map: replace keeps only the patch, delete empties the map. */
function handleDirectiveInMergeMap(directive: JsonValue | undefined, patch: JsonObject): JsonObject {
  if (directive === REPLACE_DIRECTIVE) {
    delete patch[DIRECTIVE_MARKER];
    return (sanitize(patch) ?? {}) as JsonObject;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  throw errBadPatchType(directive, patch);
}

/**
 * `$retainKeys`: every non-null patch field must be listed, and fields of the original that are
 * not listed are cleared.
 */
function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const list = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  // Upstream accepts any list here; only field names can name fields, so anything else is refused.
  if (!Array.isArray(list) || !list.every((k) => typeof k === 'string')) throw errBadRetainKeys();
  const retained = new Set(list.map(scalarKey));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!retained.has(scalarKey(k))) throw errBadRetainKeys();
  }
  for (const k of Object.keys(original)) if (!retained.has(scalarKey(k))) delete original[k];
}

/**
 * `$setElementOrder/<field>`: merges the field's list (if patched) and orders the result by the
 * directive, then removes both from the patch so the main loop skips them.
 */
function mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, schema: PatchSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const setOrder = patch[key];
    delete patch[key];
    if (!Array.isArray(setOrder)) throw errBadArgType('[]interface {}', setOrder);
    const field = extractKey(key, SET_ELEMENT_ORDER_PREFIX);
    const foundOriginal = Object.hasOwn(original, field) && original[field] !== undefined;
    const foundPatch = Object.hasOwn(patch, field) && patch[field] !== undefined;
    const originalList = foundOriginal ? original[field] : [];
    const patchList = foundPatch ? patch[field] : [];
    if (!Array.isArray(originalList)) throw errBadArgType('[]interface {}', originalList);
    if (!Array.isArray(patchList)) throw errBadArgType('[]interface {}', patchList);
    const { meta, schema: elements } = schema.lookup(field);
    const strategy = mainStrategy(meta.patchStrategy);
    const mergeKey = meta.patchMergeKey ?? '';
    // The order list names elements the way the list holds them: maps carrying the merge key, or
    // scalars for a list of scalars.
    const wellFormed = mergeKey ? setOrder.every((v) => isObject(v) && Object.hasOwn(v, mergeKey)) : setOrder.every((v) => v === null || typeof v !== 'object');
    if (!wellFormed) throw errBadSetElementOrder();
    validatePatchWithSetOrderList(patchList, setOrder, mergeKey);

    let merged: JsonValue[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = sanitize(patchList) as JsonValue[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList, patchList, elements, strategy, mergeKey, false);
    else continue;

    const [patchItems, serverOnly] = mergeKey
      ? partitionMaps(merged, setOrder, mergeKey)
      : partitionPrimitives(merged, setOrder);
    const kind = sliceElementType(originalList, patchList);
    setOwn(original, field, normalizeElementOrder(patchItems, serverOnly, setOrder, originalList, mergeKey, kind));
    delete patch[field];
  }
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema): JsonObject {
  if (Object.hasOwn(patch, DIRECTIVE_MARKER)) return handleDirectiveInMergeMap(patch[DIRECTIVE_MARKER], patch);
  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, schema);

  for (const [patchKey, patchV] of Object.entries(patch)) {
    if (patchV === undefined) continue;
    const isDeleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX);
    const k = isDeleteList ? extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX) : patchKey;

    // Upstream skips a malformed deletion list when the field is absent or of another type; it is
    // a malformed patch whatever the object holds.
    if (isDeleteList && (!Array.isArray(patchV) || patchV.some((v) => v !== null && typeof v === 'object'))) throw errBadPrimitiveList();
    if (patchV === null) {
      delete original[k];
      continue;
    }
    const origV = Object.hasOwn(original, k) ? original[k] : undefined;
    if (origV === undefined || goTypeName(origV) !== goTypeName(patchV)) {
      if (!isDeleteList) storePatchValue(original, k, patchV);
      continue;
    }
    if (isObject(origV) && isObject(patchV)) {
      const { meta, schema: sub } = schema.lookup(k);
      if (mainStrategy(meta.patchStrategy) === REPLACE_DIRECTIVE) storePatchValue(original, k, patchV);
      else setOwn(original, k, mergeMap(origV, patchV, sub));
    } else if (Array.isArray(origV) && Array.isArray(patchV)) {
      const { meta, schema: elements } = schema.lookup(k);
      const strategy = mainStrategy(meta.patchStrategy);
      setOwn(original, k, mergeSliceHandler(origV, patchV, elements, strategy, meta.patchMergeKey ?? '', isDeleteList));
    } else {
      storePatchValue(original, k, patchV);
    }
  }
  return original;
}

function mergeSliceHandler(
  original: JsonValue[],
  patch: JsonValue[],
  elements: PatchSchema,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
): JsonValue[] {
  // Deletion lists apply whatever the field's strategy is.
  if (strategy === MERGE_DIRECTIVE || isDeleteList) return mergeSlice(original, patch, elements, mergeKey, isDeleteList);
  return sanitize(patch) as JsonValue[];
}

/** Handles `$patch` elements of a merging list of maps; returns the new original and the plain patch items. */
function mergeSliceWithSpecialElements(
  original: JsonValue[],
  patch: JsonValue[],
  mergeKey: string,
): [JsonValue[], JsonValue[]] {
  const plain: JsonValue[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!Object.hasOwn(m, DIRECTIVE_MARKER)) {
      plain.push(v);
      continue;
    }
    const directive = m[DIRECTIVE_MARKER];
    if (directive === DELETE_DIRECTIVE) {
      if (!Object.hasOwn(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      for (let i = findMapByKey(original, mergeKey, m[mergeKey]); i >= 0; i = findMapByKey(original, mergeKey, m[mergeKey])) {
        original.splice(i, 1);
      }
    } else if (directive === REPLACE_DIRECTIVE) {
      // Keep scanning so that the other `$patch` elements are pruned too.
      replace = true;
    } else if (directive === MERGE_DIRECTIVE) {
      throw errMalformed('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, m);
    }
  }
  return replace ? [plain.map((e) => sanitize(e) ?? {}), []] : [original, plain];
}

function mergeSlice(
  original: JsonValue[],
  patch: JsonValue[],
  elements: PatchSchema,
  mergeKey: string,
  isDeleteList: boolean,
): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);

  let merged: JsonValue[];
  if (kind !== 'map') {
    if (isDeleteList) {
      const doomed = new Set(patch.map(scalarKey));
      return original.filter((v) => !doomed.has(scalarKey(v)));
    }
    const seen = new Set<string>();
    merged = [...original, ...patch].filter((v) => !seen.has(scalarKey(v)) && seen.add(scalarKey(v)));
  } else {
    if (!mergeKey) throw errMalformed(`cannot merge lists without merge key for ${elements.name}`);
    [original, patch] = mergeSliceWithSpecialElements(original, patch, mergeKey);
    merged = [...original];
    for (const v of patch) {
      const m = v as JsonObject;
      if (!Object.hasOwn(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      const i = findMapByKey(merged, mergeKey, m[mergeKey]);
      if (i >= 0) merged[i] = mergeMap(merged[i] as JsonObject, m, elements);
      else merged.push(sanitize(m) ?? {});
    }
  }

  const [patchItems, serverOnly] = mergeKey ? partitionMaps(merged, patch, mergeKey) : partitionPrimitives(merged, patch);
  return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, kind);
}

/**
 * Applies a strategic merge patch (`application/strategic-merge-patch+json`) as upstream's
 * StrategicMergeMapPatch does for built-in kinds. `schema` supplies the patch strategies and merge
 * keys (see {@link patchMetaFromOpenApi}); without it maps merge and lists replace.
 *
 * Maps merge recursively and null deletes; lists replace unless their strategy is `merge`, then
 * lists of maps merge by merge key and scalar lists merge as sets. Directives: `$patch`
 * (replace/delete on maps, replace/delete on list elements), `$retainKeys`,
 * `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`. New list items come before the
 * untouched live ones unless `$setElementOrder` says otherwise, as upstream. Never mutates inputs.
 *
 * @throws StatusError 400 for a patch that is not an object and for malformed
 *   `$retainKeys`/`$deleteFromPrimitiveList`/`$setElementOrder` directives; 422 for lists of lists;
 *   500 without a reason (upstream's handling of plain errors) for anything else, such as a
 *   missing merge key or an unknown `$patch` value.
 */
const DIRECTIVE_VALUES: ReadonlySet<JsonValue> = new Set([REPLACE_DIRECTIVE, DELETE_DIRECTIVE, MERGE_DIRECTIVE]);

/**
 * Checks the shape of every directive in the patch before merging. Upstream checks a directive
 * only where the merge reaches it, so a malformed one under a field the object lacks is silently
 * dropped; a malformed patch is refused here wherever it sits.
 */
function checkDirectives(patch: JsonValue): void {
  if (Array.isArray(patch)) {
    for (const item of patch) checkDirectives(item);
    return;
  }
  if (!isObject(patch)) return;
  for (const [key, entry] of Object.entries(patch)) {
    const value = entry ?? null;
    if (key === DIRECTIVE_MARKER) {
      if (!DIRECTIVE_VALUES.has(value)) throw errBadPatchType(value, patch);
    } else if (key === RETAIN_KEYS_DIRECTIVE) {
      if (!Array.isArray(value) || !value.every((k) => typeof k === 'string')) throw errBadRetainKeys();
    } else if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      if (!Array.isArray(value) || value.some((v) => v !== null && typeof v === 'object')) throw errBadPrimitiveList();
    } else if (key.startsWith(SET_ELEMENT_ORDER_PREFIX)) {
      if (!Array.isArray(value)) throw errBadArgType('[]interface {}', value);
    } else {
      checkDirectives(value);
    }
  }
}

export function applyStrategicMergePatch(
  original: JsonValue,
  patch: JsonValue,
  schema: PatchSchema = EMPTY_PATCH_SCHEMA,
): JsonValue {
  if (patch === null) return deepClone(original);
  if (!isObject(patch)) {
    const type = Array.isArray(patch) ? 'array' : typeof patch === 'boolean' ? 'bool' : typeof patch;
    throw newBadRequest(`json: cannot unmarshal ${type} into Go value of type map[string]interface {}`);
  }
  try {
    checkDirectives(patch);
    return mergeMap(isObject(original) ? deepClone(original) : {}, deepClone(patch), schema);
  } catch (e) {
    if (e instanceof SmpError) throw e.toStatusError();
    throw e;
  }
}
