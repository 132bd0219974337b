/**
 * Checks that Go applies while decoding special string fields: `[]byte` (base64) and
 * metav1.Time (RFC 3339). Each returns Go's error text, or undefined when the value decodes.
 */

const B64 = new Int8Array(256).fill(-1);
for (const [i, ch] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) {
  B64[ch.charCodeAt(0)] = i;
}
const PAD = 0x3d;
const isNewline = (b: number | undefined): boolean => b === 0x0a || b === 0x0d;

/**
 * Go's base64.StdEncoding.Decode (padding required, CR/LF skipped): the error for the first bad
 * quantum, `illegal base64 data at input byte N` with N a byte offset, or undefined.
 */
export function goBase64Error(text: string): string | undefined {
  const src = new TextEncoder().encode(text);
  const corrupt = (n: number): string => `illegal base64 data at input byte ${n}`;
  let si = 0;
  while (si < src.length) {
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        // A short final quantum: StdEncoding insists on padding.
        return corrupt(si - j);
      }
      const b = src[si] as number;
      si++;
      if ((B64[b] as number) >= 0) continue;
      if (isNewline(b)) {
        j--;
        continue;
      }
      if (b !== PAD) return corrupt(si - 1);
      if (j < 2) return corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return corrupt(src.length);
        if (src[si] !== PAD) return corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) return corrupt(si);
      return undefined;
    }
  }
  return undefined;
}

const RFC3339_LAYOUT = '2006-01-02T15:04:05Z07:00';

/** One element of Go's RFC 3339 layout and how many digits it takes. */
interface LayoutStep {
  /** Literal that must precede the element in the value. */
  prefix: string;
  /** The layout element as Go prints it in errors. */
  elem: string;
  parse: (v: string) => { rest: string; value: number } | undefined;
  range?: [number, number, string];
}

function digits(min: number, max: number): LayoutStep['parse'] {
  return (v) => {
    let n = 0;
    while (n < max && n < v.length && v.charCodeAt(n) >= 0x30 && v.charCodeAt(n) <= 0x39) n++;
    if (n < min) return undefined;
    return { rest: v.slice(n), value: Number(v.slice(0, n)) };
  };
}

const STEPS: LayoutStep[] = [
  { prefix: '', elem: '2006', parse: digits(4, 4) },
  { prefix: '-', elem: '01', parse: digits(2, 2), range: [1, 12, 'month'] },
  { prefix: '-', elem: '02', parse: digits(2, 2), range: [1, 31, 'day'] },
  { prefix: 'T', elem: '15', parse: digits(1, 2), range: [0, 23, 'hour'] },
  { prefix: ':', elem: '04', parse: digits(2, 2), range: [0, 59, 'minute'] },
  { prefix: ':', elem: '05', parse: digits(2, 2), range: [0, 59, 'second'] },
];

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * metav1.Time's decoding of a string: Go's time.Parse(time.RFC3339, s) error text, or undefined.
 * Follows Go's layout walk, so the common mistakes produce Go's exact words.
 */
export function goRfc3339Error(value: string): string | undefined {
  const q = JSON.stringify;
  const cannot = (rest: string, elem: string): string =>
    `parsing time ${q(value)} as ${q(RFC3339_LAYOUT)}: cannot parse ${q(rest)} as ${q(elem)}`;
  let rest = value;
  const got: number[] = [];
  for (const step of STEPS) {
    if (!rest.startsWith(step.prefix)) return cannot(rest, step.prefix);
    rest = rest.slice(step.prefix.length);
    const r = step.parse(rest);
    if (r === undefined) return cannot(rest, step.elem);
    if (step.range && (r.value < step.range[0] || r.value > step.range[1])) {
      return `parsing time ${q(value)}: ${step.range[2]} out of range`;
    }
    got.push(r.value);
    rest = r.rest;
  }
  // Go accepts fractional seconds after the seconds element even when the layout has none.
  const frac = /^[.,][0-9]+/.exec(rest);
  if (frac) rest = rest.slice(frac[0].length);
  if (rest.startsWith('Z')) {
    rest = rest.slice(1);
  } else if (/^[+-][0-9]{2}:[0-9]{2}/.test(rest)) {
    const hh = Number(rest.slice(1, 3));
    const mm = Number(rest.slice(4, 6));
    if (hh > 24) return `parsing time ${q(value)}: time zone offset hour out of range`;
    if (mm > 60) return `parsing time ${q(value)}: time zone offset minute out of range`;
    rest = rest.slice(6);
  } else {
    return cannot(rest, 'Z07:00');
  }
  if (rest !== '') return `parsing time ${q(value)}: extra text: ${q(rest)}`;
  const [year, month, day] = got as [number, number, number];
  if (day > daysIn(month, year)) return `parsing time ${q(value)}: day out of range`;
  return undefined;
}
