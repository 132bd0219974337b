/**
 * resource.Quantity as upstream decodes it from JSON: a string (or a bare number) such as `500m`,
 * `1.5Gi` or `1e3`, stored in its canonical form (`0.5` becomes `500m`, `1024Mi` becomes `1Gi`,
 * `2000` becomes `2k`). Written by hand on BigInt: no npm library follows Go's rules (binary vs
 * decimal suffixes, nano precision rounded away from zero, exponents in steps of three).
 */

/** Go's text for a value that is not a quantity. */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_ERROR = "unable to parse quantity's suffix";

type Format = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

const BINARY: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIX = new Map(Object.entries(DECIMAL).map(([s, e]) => [e, s]));
const BINARY_SUFFIX = new Map(Object.entries(BINARY).map(([s, k]) => [k, s]));
/** Quantities keep nine decimal places; finer values are rounded away from zero. */
const MIN_EXPONENT = -9;

/** A parsed quantity: `sign * mantissa * 10^exponent`, with the format its suffix implies. */
interface Parsed {
  negative: boolean;
  mantissa: bigint;
  exponent: number;
  format: Format;
}

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/;

function parse(text: string): Parsed | string {
  const m = NUMBER.exec(text);
  if (!m || text === '') return QUANTITY_FORMAT_ERROR;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = m;
  if (whole === '' && fraction === '') return QUANTITY_FORMAT_ERROR;
  let mantissa = BigInt(`${whole}${fraction}` || '0');
  let exponent = -fraction.length;
  let format: Format;
  if (Object.hasOwn(BINARY, suffix)) {
    mantissa *= 1024n ** BigInt(BINARY[suffix] as number);
    format = 'BinarySI';
  } else if (Object.hasOwn(DECIMAL, suffix)) {
    exponent += DECIMAL[suffix] as number;
    format = 'DecimalSI';
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    exponent += Number(suffix.slice(1));
    format = 'DecimalExponent';
  } else {
    return /^[eEinumkKMGTP]*[-+]?\d*$/.test(suffix) ? SUFFIX_ERROR : QUANTITY_FORMAT_ERROR;
  }
  if (exponent < MIN_EXPONENT) {
    const divisor = 10n ** BigInt(MIN_EXPONENT - exponent);
    mantissa = (mantissa + divisor - 1n) / divisor;
    exponent = MIN_EXPONENT;
  }
  return { negative: sign === '-' && mantissa !== 0n, mantissa, exponent, format };
}

/** The integer value when the quantity has no fractional part. */
function integerValue(q: Parsed): bigint | undefined {
  if (q.exponent >= 0) return q.mantissa * 10n ** BigInt(q.exponent);
  const divisor = 10n ** BigInt(-q.exponent);
  return q.mantissa % divisor === 0n ? q.mantissa / divisor : undefined;
}

function binaryText(value: bigint): string {
  let k = 0;
  let mantissa = value;
  while (k < 6 && mantissa % 1024n === 0n) {
    mantissa /= 1024n;
    k++;
  }
  return `${mantissa}${BINARY_SUFFIX.get(k) ?? ''}`;
}

function decimalText(q: Parsed, format: Format): string {
  let { mantissa, exponent } = q;
  while (mantissa % 10n === 0n && exponent < 18) {
    mantissa /= 10n;
    exponent++;
  }
  // Exponents go in steps of three, so the mantissa grows to reach the one below.
  while (((exponent % 3) + 3) % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  if (exponent > 18) {
    mantissa *= 10n ** BigInt(exponent - 18);
    exponent = 18;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  return `${mantissa}${DECIMAL_SUFFIX.get(exponent) ?? ''}`;
}

/**
 * The canonical text of a quantity, or Go's error text when it is not one.
 * Binary quantities under 1024 or with a fraction are shown with decimal suffixes, as upstream.
 */
export function canonicalQuantity(text: string): { value: string } | { error: string } {
  const q = parse(text.trim() === text ? text : '');
  if (typeof q === 'string') return { error: q };
  return { value: canonicalText(q) };
}

function canonicalText(q: Parsed): string {
  if (q.mantissa === 0n) return '0';
  const sign = q.negative ? '-' : '';
  if (q.format === 'BinarySI') {
    const whole = integerValue(q);
    if (whole !== undefined && whole >= 1024n) return `${sign}${binaryText(whole)}`;
    return `${sign}${decimalText(q, 'DecimalSI')}`;
  }
  return `${sign}${decimalText(q, q.format)}`;
}

/**
 * A quantity as an exact number of nano-units with the format its text implies, for arithmetic
 * (upstream's Quantity.Add and Cmp); nine decimal places is all a quantity keeps.
 */
export interface QuantityAmount {
  nanos: bigint;
  format: Format;
}

/** Parses a quantity's text; undefined when it is not one. */
export function parseQuantity(text: string): QuantityAmount | undefined {
  const q = parse(text);
  if (typeof q === 'string') return undefined;
  const nanos = q.mantissa * 10n ** BigInt(q.exponent - MIN_EXPONENT);
  return { nanos: q.negative ? -nanos : nanos, format: q.format };
}

/** The canonical text of an amount (upstream's Quantity.String). */
export function formatQuantity(amount: QuantityAmount): string {
  const negative = amount.nanos < 0n;
  return canonicalText({ negative, mantissa: negative ? -amount.nanos : amount.nanos, exponent: MIN_EXPONENT, format: amount.format });
}

/** Upstream's Quantity.ScaledValue: the amount in units of 10^scale, rounded up (Value: 0, MilliValue: -3). */
export function scaledQuantityValue(amount: QuantityAmount, scale: number): bigint {
  const shift = scale - MIN_EXPONENT;
  if (shift <= 0) return amount.nanos * 10n ** BigInt(-shift);
  const divisor = 10n ** BigInt(shift);
  const q = amount.nanos / divisor;
  return amount.nanos % divisor > 0n ? q + 1n : q;
}
