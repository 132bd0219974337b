/**
 * Small renderers of Go formatting that upstream messages embed (`%q`, the JSON scanner's
 * quoteChar, strconv float text), so that our 400s read byte for byte like upstream's.
 */

const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;

const NAMED_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** Go's strconv.Quote (what `%q` prints for a string). */
export function goQuote(s: string): string {
  // Fast path: the common case of plain printable ASCII needs no per-character work.
  if (/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(s)) return `"${s}"`;
  const parts: string[] = ['"'];
  for (const ch of s) {
    const named = NAMED_ESCAPES[ch];
    if (named !== undefined) {
      parts.push(named);
      continue;
    }
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x80 ? code >= 0x20 && code !== 0x7f : PRINTABLE.test(ch)) {
      parts.push(ch);
    } else if (code < 0x80) {
      parts.push(`\\x${code.toString(16).padStart(2, '0')}`);
    } else if (code >= 0xd800 && code <= 0xdfff) {
      // A lone surrogate cannot come from valid UTF-8; Go would have seen U+FFFD there.
      parts.push('\\ufffd');
    } else if (code < 0x10000) {
      parts.push(`\\u${code.toString(16).padStart(4, '0')}`);
    } else {
      parts.push(`\\U${code.toString(16).padStart(8, '0')}`);
    }
  }
  parts.push('"');
  return parts.join('');
}

const SCANNER_ESCAPES: Record<number, string> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
  92: '\\\\',
};

/**
 * Go's JSON scanner quoteChar: the offending byte as a single-quoted literal. The scanner works on
 * bytes, so a non-ASCII character is reported by its UTF-8 lead byte (as Latin-1 text).
 */
export function scannerQuoteChar(codePoint: number): string {
  let code = codePoint;
  if (code >= 0x80) code = code < 0x800 ? 0xc0 | (code >> 6) : code < 0x10000 ? 0xe0 | (code >> 12) : 0xf0 | (code >> 18);
  if (code === 0x27) return `'\\''`;
  if (code === 0x22) return `'"'`;
  const esc = SCANNER_ESCAPES[code];
  if (esc !== undefined) return `'${esc}'`;
  if (code < 0x20 || code === 0x7f) return `'\\x${code.toString(16).padStart(2, '0')}'`;
  if ((code >= 0x80 && code < 0xa0) || code === 0xad) return `'\\u${code.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(code)}'`;
}

/**
 * How Go's encoding/json writes a float64 (used for numbers that came from YAML, whose literal
 * text is gone after upstream's YAML-to-JSON conversion): plain decimal below 1e21, otherwise
 * exponent form with at least two exponent digits.
 */
export function goJsonFloat(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    const [mant, exp] = n.toExponential().split('e') as [string, string];
    const sign = exp.startsWith('-') ? '-' : '+';
    const digits = exp.replace(/^[+-]/, '');
    return `${mant}e${sign}${digits.length < 2 ? `0${digits}` : digits}`;
  }
  return String(n);
}

/** Go's %v of a float64: shortest 'g' form, so exponent form from 1e+06 and below 1e-04. */
function goFloatV(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 6) {
    const [mant, e] = n.toExponential().split('e') as [string, string];
    const digits = e.replace(/^[+-]/, '');
    return `${mant}e${e.startsWith('-') ? '-' : '+'}${digits.length < 2 ? `0${digits}` : digits}`;
  }
  return String(n);
}

/**
 * Go's `%+v` of a decoded JSON value (map[string]interface{} and friends), as upstream prints a
 * strategic merge patch in its `patch: Invalid value` errors: `map[data:map[a:1] kind:ConfigMap]`.
 * Integers print as int64, other numbers as float64.
 */
export function goFormatValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : goFloatV(v);
  if (Array.isArray(v)) return `[${v.map(goFormatValue).join(' ')}]`;
  const obj = v as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
  return `map[${keys.map((k) => `${k}:${goFormatValue(obj[k])}`).join(' ')}]`;
}
