import { newBadRequest, newRequestEntityTooLarge } from '../errors/status-error.js';
import type { JsonObject, JsonValue } from '../meta/types.js';
import { deepClone, deepEqual, isObject, setOwn } from './json-value.js';
import { newPatchUnprocessable } from './patch-errors.js';

/** Upstream's maxJSONPatchOperations: longer patches are 413. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;
/** Upstream's default JSONPatchMaxCopyBytes: total bytes `copy` ops may add. */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

type Container = JsonObject | JsonValue[];

/** Why an operation failed; becomes the (hidden) cause of the 422. */
class OpError extends Error {}

function goJsonTypeName(v: JsonValue): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (isObject(v)) return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

function isContainer(v: JsonValue | undefined): v is Container {
  return Array.isArray(v) || isObject(v);
}

/** Go's strconv.Atoi: optional sign, decimal digits, int64 range. */
function atoi(key: string): number {
  if (!/^[+-]?[0-9]+$/.test(key)) throw new OpError(`strconv.Atoi: parsing "${key}": invalid syntax`);
  const n = Number(key);
  if (!Number.isSafeInteger(n)) throw new OpError(`strconv.Atoi: parsing "${key}": value out of range`);
  return n;
}

/** Resolves a possibly negative index (upstream enables negative indices) within `size`. */
function resolveIndex(idx: number, size: number): number {
  if (idx < 0) {
    if (idx < -size) throw new OpError(`Unable to access invalid index: ${idx}`);
    return idx + size;
  }
  if (idx >= size) throw new OpError(`Unable to access invalid index: ${idx}`);
  return idx;
}

function get(con: Container, key: string): JsonValue | undefined {
  if (Array.isArray(con)) return con[resolveIndex(atoi(key), con.length)];
  return Object.hasOwn(con, key) ? con[key] : undefined;
}

function add(con: Container, key: string, val: JsonValue): void {
  if (!Array.isArray(con)) return setOwn(con, key, val);
  if (key === '-') {
    con.push(val);
    return;
  }
  con.splice(resolveIndex(atoi(key), con.length + 1), 0, val);
}

function remove(con: Container, key: string): void {
  if (Array.isArray(con)) {
    con.splice(resolveIndex(atoi(key), con.length), 1);
  } else {
    if (!Object.hasOwn(con, key)) throw new OpError(`Unable to remove nonexistent key: ${key}`);
    delete con[key];
  }
}

function decodeKey(part: string): string {
  return part.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * The container holding the last token of `path` and that token, or undefined when the path does
 * not resolve. Like upstream, the token before the first `/` is ignored and only the parent chain
 * has to exist.
 */
function findObject(doc: JsonValue, path: string): { con: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2 || !isContainer(doc)) return undefined;
  let cur: Container = doc;
  for (const part of split.slice(1, -1)) {
    let next: JsonValue | undefined;
    try {
      next = get(cur, decodeKey(part));
    } catch {
      return undefined;
    }
    if (!isContainer(next)) return undefined;
    cur = next;
  }
  return { con: cur, key: decodeKey(split[split.length - 1] ?? '') };
}

function stringField(op: JsonObject, name: 'path' | 'from'): string {
  const v = op[name];
  if (v === undefined || v === null) throw new OpError(`operation missing ${name} field`);
  if (typeof v !== 'string') {
    throw new OpError(`json: cannot unmarshal ${goJsonTypeName(v)} into Go value of type string`);
  }
  return v;
}

interface ApplyState {
  doc: JsonValue;
  copiedBytes: number;
}

function located(doc: JsonValue, path: string, what: string): { con: Container; key: string } {
  const found = findObject(doc, path);
  if (!found) throw new OpError(`${what} operation does not apply: doc is missing path: ${path}`);
  return found;
}

function applyOp(state: ApplyState, op: JsonObject, maxCopyBytes: number): void {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  // A missing value is stored as null, as upstream does.
  const value = op.value === undefined ? null : op.value;
  switch (kind) {
    case 'add': {
      const { con, key } = located(state.doc, stringField(op, 'path'), 'add');
      add(con, key, deepClone(value));
      return;
    }
    case 'remove': {
      const { con, key } = located(state.doc, stringField(op, 'path'), 'remove');
      remove(con, key);
      return;
    }
    case 'replace': {
      const path = stringField(op, 'path');
      if (path === '') {
        if (!isContainer(value)) throw new OpError('replace operation value must be object or array');
        state.doc = deepClone(value);
        return;
      }
      const { con, key } = located(state.doc, path, 'replace');
      get(con, key);
      if (Array.isArray(con)) con[resolveIndex(atoi(key), con.length)] = deepClone(value);
      else setOwn(con, key, deepClone(value));
      return;
    }
    case 'move':
    case 'copy': {
      const from = stringField(op, 'from');
      const src = located(state.doc, from, kind);
      const val = get(src.con, src.key) ?? null;
      if (kind === 'move') remove(src.con, src.key);
      const dst = located(state.doc, stringField(op, 'path'), kind);
      if (kind === 'copy') {
        state.copiedBytes += val === null ? 0 : Buffer.byteLength(JSON.stringify(val));
        if (maxCopyBytes > 0 && state.copiedBytes > maxCopyBytes) {
          throw new OpError(
            `Unable to complete the copy, the accumulated size increase of copy is ${state.copiedBytes}, exceeding the limit ${maxCopyBytes}`,
          );
        }
      }
      add(dst.con, dst.key, kind === 'copy' ? deepClone(val) : val);
      return;
    }
    case 'test': {
      const path = stringField(op, 'path');
      let actual: JsonValue | undefined = state.doc;
      if (path !== '') {
        const { con, key } = located(state.doc, path, 'test');
        actual = get(con, key);
      }
      const ok = actual === undefined || actual === null ? value === null : op.value !== undefined && deepEqual(actual, value);
      if (!ok) throw new OpError(`testing value ${path} failed`);
      return;
    }
    default:
      throw new OpError(`Unexpected kind: ${kind}`);
  }
}

/** Options for {@link applyJsonPatch}; defaults are upstream's. */
export interface JsonPatchOptions {
  maxOperations?: number;
  /** Limit on bytes added by `copy` operations; 0 disables it. */
  maxCopyBytes?: number;
}

/**
 * Applies an RFC 6902 JSON patch (add, remove, replace, move, copy, test) with the semantics of
 * the json-patch library the apiserver uses, including negative array indices. Never mutates its
 * inputs and never returns a partial result.
 *
 * @throws StatusError 400 BadRequest when `ops` is not an array of objects (Go's decode error
 *   text); 413 when it has more than 10000 operations; 422 Invalid (upstream's generic message)
 *   when an operation fails: failed test, missing path, bad index, unknown op, ...
 */
export function applyJsonPatch(original: JsonValue, ops: JsonValue, options: JsonPatchOptions = {}): JsonValue {
  if (ops === null) return deepClone(original);
  if (!Array.isArray(ops)) {
    throw newBadRequest(`json: cannot unmarshal ${goJsonTypeName(ops)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of ops) {
    if (op !== null && !isObject(op)) {
      throw newBadRequest(`json: cannot unmarshal ${goJsonTypeName(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  const maxOps = options.maxOperations ?? MAX_JSON_PATCH_OPERATIONS;
  if (ops.length > maxOps) {
    throw newRequestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${maxOps}, got ${ops.length}`);
  }
  const state: ApplyState = { doc: deepClone(original), copiedBytes: 0 };
  for (const op of ops) {
    try {
      applyOp(state, isObject(op) ? op : {}, options.maxCopyBytes ?? MAX_JSON_PATCH_COPY_BYTES);
    } catch (e) {
      if (e instanceof OpError) throw newPatchUnprocessable(e.message);
      throw e;
    }
  }
  return state.doc;
}
