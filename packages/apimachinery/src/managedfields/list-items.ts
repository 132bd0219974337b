import type { JsonObject, JsonValue } from '../meta/types.js';
import { compareStrings } from './go-json.js';
import { pathElementString, pathString, serializePathElement, type FieldPath, type PathElement } from './path-element.js';
import type { ListType, StructuredType } from './structured-type.js';

/** A value that does not fit its schema (missing list-map key, map item in a set, duplicates...). */
export class TypedValueError extends Error {
  constructor(
    readonly path: FieldPath,
    readonly detail: string,
  ) {
    super(path.length > 0 ? `${pathString(path)}: ${detail}` : detail);
    this.name = 'TypedValueError';
  }
}

export const isObject = (v: JsonValue | undefined): v is JsonObject =>
  v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v);

/** `o[k]` when `k` is o's own key: `constructor`, `toString`... are keys like any other, not Object.prototype's. */
export const own = (o: JsonObject, k: string): JsonValue | undefined => (Object.hasOwn(o, k) ? o[k] : undefined);

/** Deep equality of JSON values (object key order ignored; absent and undefined alike). */
export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
}

/**
 * The path element addressing `item` (at `index`) in a list of type `t`: its index for atomic
 * lists, its value for sets, its key fields (sorted by name, schema defaults filling missing keys)
 * for map lists. Throws {@link TypedValueError} (relative to the list) for items that cannot be
 * addressed, with upstream's wording.
 */
export function listItemPathElement(t: ListType, index: number, item: JsonValue): PathElement {
  if (t.listType === 'atomic') return { index };
  const fail = (detail: string): never => {
    throw new TypedValueError([], `element ${index}: ${detail}`);
  };
  if (t.listType === 'set') {
    if (isObject(item)) return fail("associative list without keys has an element that's a map type");
    if (Array.isArray(item)) return fail('not supported: associative list with lists as elements');
    if (item === null) return fail("associative list without keys has an element that's an explicit null");
    return { value: item };
  }
  if (item === null) return fail('associative list with keys may not have a null element');
  if (!isObject(item)) return fail('associative list with keys may not have non-map elements');
  const element: StructuredType = t.element();
  const key: Array<[string, JsonValue]> = [];
  for (const name of t.keys) {
    const v = item[name];
    if (v !== undefined) key.push([name, v]);
    else {
      const def = element.kind === 'map' ? element.fieldDefault(name) : undefined;
      if (def === undefined || def === null) {
        return fail(`associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`);
      }
      key.push([name, def]);
    }
  }
  key.sort((a, b) => compareStrings(a[0], b[0]));
  return { key };
}

/** One addressable item of a list. */
export interface ListItem {
  readonly pe: PathElement;
  readonly key: string;
  readonly value: JsonValue;
}

/**
 * Items of `list` with their path elements, first occurrence winning. With `rejectDuplicates`
 * a repeated key throws (used for applied configurations, which may not hold duplicates).
 */
export function indexListItems(t: ListType, list: readonly JsonValue[], rejectDuplicates: boolean): { order: ListItem[]; byKey: Map<string, ListItem> } {
  const order: ListItem[] = [];
  const byKey = new Map<string, ListItem>();
  list.forEach((value, i) => {
    const pe = listItemPathElement(t, i, value);
    const key = serializePathElement(pe);
    if (byKey.has(key)) {
      if (rejectDuplicates) throw new TypedValueError([], `duplicate entries for key ${pathElementString(pe)}`);
      return;
    }
    const item = { pe, key, value };
    byKey.set(key, item);
    order.push(item);
  });
  return { order, byKey };
}

/** Re-throws a nested {@link TypedValueError} with `pe` prepended to its path. */
export function withPrefix<T>(pe: PathElement, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof TypedValueError) throw new TypedValueError([pe, ...e.path], e.detail);
    throw e;
  }
}
