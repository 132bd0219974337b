import type { JsonValue } from '../meta/types.js';

/**
 * JSON text as Go's encoding/json (and json-iterator in standard-library mode) writes it: HTML
 * characters and U+2028/U+2029 escaped, control characters as \u00XX except \n \r \t. Field paths
 * and the last-applied annotation are compared byte for byte by clients, so the escaping matters.
 */
export function goJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029) {
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // A lone surrogate is invalid UTF-8; Go replaces it with U+FFFD.
      out += '\ufffd';
    } else out += ch;
  }
  return out + '"';
}

/**
 * Encodes a JSON value as Go encodes an unstructured map: object keys sorted, no spaces. `sortKeys`
 * false keeps insertion order (used for path-element keys, which are already sorted).
 */
export function goJson(v: JsonValue | undefined, sortKeys = true): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map((x) => goJson(x, sortKeys)).join(',')}]`;
  const keys = Object.keys(v).filter((k) => v[k] !== undefined);
  if (sortKeys) keys.sort(compareStrings);
  return `{${keys.map((k) => `${goJsonString(k)}:${goJson(v[k], sortKeys)}`).join(',')}}`;
}

/** Byte-wise (UTF-8 order) string comparison, as Go's strings.Compare. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // Below the surrogates UTF-16 code units order as UTF-8 bytes do: compare those directly.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x < y ? -1 : 1;
    return compareCodePoints(a, b);
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** {@link compareStrings} by code points, for strings that differ at or above the surrogates. */
function compareCodePoints(a: string, b: string): number {
  // UTF-16 order differs from UTF-8 order only for astral vs. U+E000..U+FFFF; compare code points.
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0) as number;
    const cy = y.value.codePointAt(0) as number;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}
