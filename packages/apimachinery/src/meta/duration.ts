const NANOS_PER_UNIT: Record<string, number> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3, // U+00B5 micro sign
  'μs': 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};
const MAX_DURATION_NANOS = 2 ** 63 - 1;

/**
 * Go's `time.ParseDuration` (`300ms`, `-1.5h`, `2h45m`), returned in milliseconds (fractions for
 * sub-millisecond units). Throws `time: invalid duration "x"`, `time: missing unit in duration
 * "x"` or `time: unknown unit "u" in duration "x"`.
 */
export function parseGoDuration(orig: string): number {
  const invalid = (): never => {
    throw new Error(`time: invalid duration ${JSON.stringify(orig)}`);
  };
  let s = orig;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') invalid();
  let nanos = 0;
  while (s !== '') {
    const number = /^([0-9]*)(?:\.([0-9]*))?/.exec(s);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2];
    if (whole === '' && (fraction === undefined || fraction === '')) invalid();
    s = s.slice(number?.[0].length ?? 0);
    const unitMatch = /^[^0-9.]*/.exec(s);
    const unit = unitMatch?.[0] ?? '';
    if (unit === '') throw new Error(`time: missing unit in duration ${JSON.stringify(orig)}`);
    s = s.slice(unit.length);
    const scale = NANOS_PER_UNIT[unit];
    if (scale === undefined) {
      throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(orig)}`);
    }
    nanos += Number(`${whole || '0'}.${fraction ?? '0'}`) * scale;
    if (nanos > MAX_DURATION_NANOS) invalid();
  }
  const ms = nanos / 1e6;
  return negative ? -ms : ms;
}
