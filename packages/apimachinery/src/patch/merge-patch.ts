import { newBadRequest } from '../errors/status-error.js';
import type { JsonObject, JsonValue } from '../meta/types.js';
import { deepClone, isObject, setOwn } from './json-value.js';

/**
 * Drops null members from objects and null elements from arrays, recursively: what upstream's
 * json-patch library (v4) does to any patch value that it stores rather than merges.
 */
function pruneNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.filter((e) => e !== null).map(pruneNulls);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, e] of Object.entries(v)) if (e !== undefined && e !== null) setOwn(out, k, pruneNulls(e));
    return out;
  }
  return v;
}

/** Merges `patch` into `target` in place; `target` is already a private copy. */
function mergeInto(target: JsonObject, patch: JsonObject): void {
  for (const [k, p] of Object.entries(patch)) {
    if (p === undefined) continue;
    if (p === null) {
      delete target[k];
      continue;
    }
    const cur = Object.hasOwn(target, k) ? target[k] : undefined;
    if (cur === undefined || cur === null || !isObject(cur)) {
      setOwn(target, k, pruneNulls(p));
    } else if (isObject(p)) {
      mergeInto(cur, p);
    } else {
      // An array patched onto an object is stored as is, without pruning, as upstream does.
      setOwn(target, k, deepClone(p));
    }
  }
}

/**
 * Applies an RFC 7386 JSON merge patch the way the apiserver's json-patch library does: objects
 * merge recursively, null deletes, anything else replaces. Values stored from the patch lose their
 * nulls (also inside arrays), and a patch that is null or a scalar is a 400 `Invalid JSON Patch`.
 * Never mutates its inputs.
 */
export function applyMergePatch(original: JsonValue, patch: JsonValue): JsonValue {
  if (patch === null || (!isObject(patch) && !Array.isArray(patch))) throw newBadRequest('Invalid JSON Patch');
  if (Array.isArray(patch)) return pruneNulls(patch);
  if (!isObject(original)) return pruneNulls(patch);
  const result = deepClone(original);
  mergeInto(result, patch);
  return result;
}
