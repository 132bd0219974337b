import { newBadRequest, type StatusError } from '../errors/status-error.js';
import type { JsonObject, JsonValue } from '../meta/types.js';
import { goFormat, goFormatS, goTypeName, isObject, setOwn } from './json-value.js';
import { newPatchUnprocessable } from './patch-errors.js';

export const DIRECTIVE_MARKER = '$patch';
export const REPLACE_DIRECTIVE = 'replace';
export const DELETE_DIRECTIVE = 'delete';
export const MERGE_DIRECTIVE = 'merge';
export const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

/**
 * A strategic-merge-patch failure and its status: upstream's interpretStrategicMergePatchError
 * makes a few sentinel errors 400 or 422; every other error is a plain Go error that upstream
 * lets reach the client as a reason-less 500 with the Go text. Each of those is a malformed patch
 * (unknown `$patch` value, a directive of the wrong type, a missing merge key), so here they are
 * 400 BadRequest with the same text: a client mistake is never a server error.
 */
export class SmpError extends Error {
  constructor(
    message: string,
    readonly kind: 'badRequest' | 'unprocessable',
  ) {
    super(message);
  }
  toStatusError(): StatusError {
    if (this.kind === 'unprocessable') return newPatchUnprocessable(this.message);
    return newBadRequest(this.message);
  }
}

export const errBadPrimitiveList = (): SmpError => new SmpError('invalid patch format of primitive list', 'badRequest');
export const errBadRetainKeys = (): SmpError => new SmpError('invalid patch format of retainKeys', 'badRequest');
export const errBadSetElementOrder = (): SmpError =>
  new SmpError('invalid patch format of setElementOrder list', 'badRequest');
export const errNoListOfLists = (): SmpError => new SmpError('lists of lists are not supported', 'unprocessable');
/** A patch upstream fails with a plain Go error (and a 500); its text is kept. */
export const errMalformed = (message: string): SmpError => new SmpError(message, 'badRequest');

export function errNoMergeKey(m: JsonValue, key: string): SmpError {
  return errMalformed(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);
}

/** Upstream's ErrBadArgType; `%s` of a nil reflect.Type prints `%!s(<nil>)`. */
export function errBadArgType(expected: 'map[string]interface {}' | '[]interface {}', actual: JsonValue | undefined): SmpError {
  const got = actual === null || actual === undefined ? '%!s(<nil>)' : goTypeName(actual);
  return errMalformed(`expected a ${expected}, but received a ${got}`);
}

export function errBadPatchType(t: JsonValue | undefined, m: JsonObject): SmpError {
  return errMalformed(`unknown patch type: ${goFormatS(t)} in map: ${goFormat(m)}`);
}

/** Go's `==` between two decoded interface{} values, for the scalars it is defined on. */
export function goEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a === null || b === null) return a === b;
  if (typeof a === 'object' || typeof b === 'object') return false;
  return goTypeName(a) === goTypeName(b) && a === b;
}

/** Set key for scalar list elements under {@link goEqual}. */
export function scalarKey(v: JsonValue | undefined): string {
  return `${goTypeName(v)}:${typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
}

/** Strips the prefix directive `prefix/field` down to `field`, or throws its format error. */
export function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX) throw errBadPrimitiveList();
    throw errBadSetElementOrder();
  }
  return s.slice(slash + 1);
}

/**
 * The strategy other than retainKeys from a raw strategy list (`merge,retainKeys` -> `merge`),
 * as upstream's extractRetainKeysPatchStrategy.
 */
export function mainStrategy(raw: string | undefined): string {
  const parts = raw === undefined || raw === '' ? [] : raw.split(',');
  const [first = '', second = ''] = parts;
  if (parts.length <= 1) return first === 'retainKeys' ? '' : first;
  if (parts.length === 2 && first === 'retainKeys') return second;
  if (parts.length === 2 && second === 'retainKeys') return first;
  throw errMalformed(`unexpected patch strategy: [${parts.join(' ')}]`);
}

function isDirectiveKey(k: string): boolean {
  return (
    k === RETAIN_KEYS_DIRECTIVE ||
    k.startsWith(`${SET_ELEMENT_ORDER_PREFIX}/`) ||
    k.startsWith(`${DELETE_FROM_PRIMITIVE_LIST_PREFIX}/`)
  );
}

/**
 * Cleans a value taken from the patch as is (a new field, a new list element, a replacing list):
 * null members go (discardNullValuesFromPatch), maps carrying `$patch` go (removeDirectives), and
 * leftover directive keys go, which upstream's decode into the typed object drops as unknown
 * fields. Returns undefined when the value itself is to be dropped.
 */
export function sanitize(v: JsonValue): JsonValue | undefined {
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    for (const e of v) {
      const s = sanitize(e);
      if (s !== undefined) out.push(s);
    }
    return out;
  }
  if (!isObject(v)) return v;
  const marker = v[DIRECTIVE_MARKER];
  if (marker !== undefined && marker !== null) return undefined;
  const out: JsonObject = {};
  for (const [k, e] of Object.entries(v)) {
    if (e === undefined || e === null || isDirectiveKey(k)) continue;
    const s = sanitize(e);
    if (s !== undefined) setOwn(out, k, s);
  }
  return out;
}

/** Element kind shared by all given lists ('map' or a scalar Go type), as upstream's sliceElementType. */
export function sliceElementType(...lists: readonly JsonValue[][]): string {
  let prev: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const cur = goTypeName(v);
      if (prev === undefined && cur === '[]interface {}') throw errNoListOfLists();
      if (cur === '<nil>' || (prev !== undefined && prev !== cur)) {
        throw errMalformed(`list element types are not identical: ${goFormat(lists as JsonValue[][])}`);
      }
      prev = cur;
    }
  }
  if (prev === undefined) throw errMalformed('no elements in any of the given slices');
  return prev === 'map[string]interface {}' ? 'map' : prev;
}
