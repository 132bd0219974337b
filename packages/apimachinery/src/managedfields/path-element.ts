import type { JsonObject, JsonValue } from '../meta/types.js';
import { compareStrings, goJson, goJsonString } from './go-json.js';

/**
 * One step of a field path, as structured-merge-diff's PathElement: a struct field or map key
 * (`f:`), an associative-list item by its key fields (`k:`), a set item by value (`v:`) or an
 * atomic-list index (`i:`).
 */
export type PathElement =
  | { readonly field: string }
  | { readonly key: ReadonlyArray<readonly [string, JsonValue]> }
  | { readonly value: JsonValue }
  | { readonly index: number };

/** A field path from the object root. */
export type FieldPath = readonly PathElement[];

const rank = (v: JsonValue): number => {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
};

/** Total order on JSON values (numbers < strings < booleans < lists < maps < null), as SMD's value.Compare. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i] as JsonValue, b[i] as JsonValue);
      if (c !== 0) return c;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    return compareFieldLists(sortedEntries(a), sortedEntries(b));
  }
  return 0;
}

function sortedEntries(o: JsonObject): Array<[string, JsonValue]> {
  return Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort(compareStrings)
    .map((k) => [k, o[k] as JsonValue]);
}

function compareFieldLists(a: ReadonlyArray<readonly [string, JsonValue]>, b: ReadonlyArray<readonly [string, JsonValue]>): number {
  for (let i = 0; ; i++) {
    const x = a[i];
    const y = b[i];
    if (!x) return y ? -1 : 0;
    if (!y) return 1;
    const c = compareStrings(x[0], y[0]) || compareValues(x[1], y[1]);
    if (c !== 0) return c;
  }
}

/** Order of path elements: fields, then keys, then values, then indexes (SMD PathElement.Compare). */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const kind = (p: PathElement): number => ('field' in p ? 0 : 'key' in p ? 1 : 'value' in p ? 2 : 3);
  const ka = kind(a);
  const kb = kind(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  if ('field' in a && 'field' in b) return compareStrings(a.field, b.field);
  if ('key' in a && 'key' in b) return compareFieldLists(a.key, b.key);
  if ('value' in a && 'value' in b) return compareValues(a.value, b.value);
  if ('index' in a && 'index' in b) return a.index === b.index ? 0 : a.index < b.index ? -1 : 1;
  return 0;
}

/** The FieldsV1 key of a path element, e.g. `f:data`, `k:{"name":"c"}`, `v:"x"`, `i:0`. */
export function serializePathElement(pe: PathElement): string {
  if ('field' in pe) return `f:${pe.field}`;
  if ('key' in pe) return `k:{${pe.key.map(([n, v]) => `${goJsonString(n)}:${goJson(v)}`).join(',')}}`;
  if ('value' in pe) return `v:${goJson(pe.value)}`;
  return `i:${pe.index}`;
}

/** Thrown for a FieldsV1 key of a known prefix that cannot be parsed. */
export class PathElementError extends Error {}

/**
 * Parses a FieldsV1 key. Returns undefined for an unknown prefix (upstream drops those silently so
 * that newer writers stay readable); throws {@link PathElementError} for malformed ones.
 */
export function deserializePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new PathElementError('key must be 2 characters long:');
  if (s[1] !== ':') throw new PathElementError(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { field: body };
    case 'v':
      return { value: parseJson(body) };
    case 'k': {
      const obj = parseJson(body);
      if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
        throw new PathElementError(`expected a JSON object in key ${s}`);
      }
      return { key: sortedEntries(obj) };
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(body)) throw new PathElementError(`strconv.Atoi: parsing ${JSON.stringify(body)}: invalid syntax`);
      return { index: Number.parseInt(body, 10) };
    }
    default:
      return undefined;
  }
}

function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new PathElementError(e instanceof Error ? e.message : String(e));
  }
}

/** Go's value.ToString: strings quoted, containers rendered recursively. */
function valueToString(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  return `{${sortedEntries(v)
    .map(([k, x]) => `${k}=${valueToString(x)}`)
    .join(',')}}`;
}

/** Human form used in conflict messages: `.data.a`, `[name="c"]`, `[="x"]`, `[0]`. */
export function pathElementString(pe: PathElement): string {
  if ('field' in pe) return `.${pe.field}`;
  if ('key' in pe) return `[${pe.key.map(([n, v]) => `${n}=${valueToString(v)}`).join(',')}]`;
  if ('value' in pe) return `[=${valueToString(pe.value)}]`;
  return `[${pe.index}]`;
}

/** A whole path in human form, e.g. `.spec.containers[name="c"].image`. */
export function pathString(path: FieldPath): string {
  return path.map(pathElementString).join('');
}
