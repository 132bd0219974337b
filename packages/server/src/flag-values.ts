// Value parsers with the semantics and error texts of Go's strconv/time and of the pflag value
// types upstream uses, so that a bad flag reads exactly as it does for kube-apiserver.

/** Go's `strconv.ParseBool`. Throws `strconv.ParseBool: parsing "x": invalid syntax`. */
export function parseGoBool(s: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  throw new Error(`strconv.ParseBool: parsing ${goQuote(s)}: invalid syntax`);
}

/**
 * Go's `strconv.ParseInt(s, 0, bits)` (what pflag's int flags use): optional sign, base prefixes
 * `0x`, `0o`, `0b` and a leading `0` for octal, `_` digit separators. Throws `invalid syntax` or
 * `value out of range` in strconv's wording.
 */
export function parseGoInt(s: string, bits = 64, fn = 'ParseInt'): number {
  const fail = (why: string): never => {
    throw new Error(`strconv.${fn}: parsing ${goQuote(s)}: ${why}`);
  };
  let rest = s;
  let negative = false;
  if (rest.startsWith('+') || rest.startsWith('-')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (fn === 'ParseUint' && s !== rest) fail('invalid syntax');
  if (rest === '' || !underscoreOK(rest)) fail('invalid syntax');
  let base = 10n;
  let digits = rest;
  const prefix = rest.slice(0, 2).toLowerCase();
  if (prefix === '0x' || prefix === '0o' || prefix === '0b') {
    base = prefix === '0x' ? 16n : prefix === '0o' ? 8n : 2n;
    digits = rest.slice(2);
  } else if (rest.length > 1 && rest.startsWith('0')) {
    base = 8n;
    digits = rest.slice(1);
  }
  digits = digits.replaceAll('_', '');
  if (digits === '') fail('invalid syntax');
  let value = 0n;
  for (const ch of digits.toLowerCase()) {
    const d = parseInt(ch, 36);
    if (Number.isNaN(d) || BigInt(d) >= base) fail('invalid syntax');
    value = value * base + BigInt(d);
  }
  if (negative) value = -value;
  const limit = fn === 'ParseUint' ? 1n << BigInt(bits) : 1n << BigInt(bits - 1);
  const min = fn === 'ParseUint' ? 0n : -limit;
  if (value < min || value > limit - 1n) fail('value out of range');
  return Number(value);
}

/** Go's rule: `_` only between digits, where a base prefix counts as a digit. */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  const hex = /^0x/i.test(s);
  if (/^0[box]/i.test(s)) {
    i = 2;
    saw = '0';
  }
  for (; i < s.length; i++) {
    const c = s.charAt(i);
    if (/[0-9]/.test(c) || (hex && /[a-f]/i.test(c))) saw = '0';
    else if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

// Go's time.ParseDuration is pure API machinery (the request deadline filter parses ?timeout= too).
export { parseGoDuration } from '@cluster/apimachinery/meta';

/** Formats milliseconds the way Go prints a `time.Duration` (`1h30m0s`, `500ms`, `0s`). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${+abs.toFixed(6)}ms`;
  const h = Math.floor(abs / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const sec = +((abs % 60_000) / 1000).toFixed(9);
  if (h > 0) return `${sign}${h}h${m}m${sec}s`;
  if (m > 0) return `${sign}${m}m${sec}s`;
  return `${sign}${sec}s`;
}

/**
 * pflag's string slice syntax: one CSV record (`a,b,"c,d"`); an empty value is an empty list.
 * Throws Go's `encoding/csv` messages for stray quotes.
 */
export function parseCsvList(value: string): string[] {
  if (value === '') return [];
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (value[i] === '"') {
      const start = i;
      i++;
      for (;;) {
        if (i >= value.length) {
          throw new Error(`parse error on line 1, column ${start + 1}: extraneous or missing " in quoted-field`);
        }
        if (value[i] === '"') {
          if (value[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += value[i];
        i++;
      }
      if (i < value.length && value[i] !== ',') {
        throw new Error(`parse error on line 1, column ${i + 1}: extraneous or missing " in quoted-field`);
      }
    } else {
      const end = value.indexOf(',', i);
      field = value.slice(i, end === -1 ? value.length : end);
      const quote = field.indexOf('"');
      if (quote !== -1) throw new Error(`parse error on line 1, column ${i + quote + 1}: bare " in non-quoted-field`);
      i = end === -1 ? value.length : end;
    }
    fields.push(field);
    if (i >= value.length) return fields;
    i++; // the comma
  }
}

/** Go's `%q` for the plain strings that appear in flag errors. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
