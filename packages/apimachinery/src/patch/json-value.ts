import { isJsonObject, type JsonObject, type JsonValue } from '../meta/types.js';

/** True for a JSON object (not an array, not null). */
export const isObject = isJsonObject;

/**
 * Sets an own property even for the key `__proto__`, which plain assignment would turn into a
 * prototype change; patch documents are untrusted input.
 */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** Deep copy of a JSON value, so that patching never shares structure with its inputs. */
export function deepClone<T extends JsonValue>(v: T): T {
  if (Array.isArray(v)) return v.map((e) => deepClone(e)) as T;
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, e] of Object.entries(v)) if (e !== undefined) setOwn(out, k, deepClone(e));
    return out as T;
  }
  return v;
}

/** Structural equality of two JSON values; object key order does not matter. */
export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((e, i) => deepEqual(e, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ak = Object.keys(a).filter((k) => a[k] !== undefined);
    const bk = Object.keys(b).filter((k) => b[k] !== undefined);
    return ak.length === bk.length && ak.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The Go dynamic type a decoded JSON value has upstream (integers decode as int64 because the
 * apiserver preserves ints), as `reflect.TypeOf(v).String()` prints it.
 */
export function goTypeName(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Number.isInteger(v) ? 'int64' : 'float64';
}

/**
 * Renders a number like Go's %v: integers (int64 upstream) in full, other floats in shortest form
 * with an exponent when it is below -4 or at least 6 (`1.5e+06`, `1e-05`).
 */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  const [mantissa = '', expText = '0'] = n.toExponential().split('e');
  const exp = Number(expText);
  if (exp >= -4 && exp < 6) return String(n);
  const abs = String(Math.abs(exp)).padStart(2, '0');
  return `${mantissa}e${exp < 0 ? '-' : '+'}${abs}`;
}

/**
 * Renders a JSON value the way Go's `%v` prints the decoded `interface{}` (maps with sorted keys,
 * `<nil>` for null), so error messages read like upstream's.
 */
export function goFormat(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goNumber(v);
  return String(v);
}

/** Go's `%s` of a dynamic value: strings print as is, anything else as `%!s(type=value)`. */
export function goFormatS(v: JsonValue | undefined): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  return `%!s(${goTypeName(v)}=${goFormat(v)})`;
}
