import { invalid, type FieldErrorList } from '@cluster/apimachinery';

const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** Upstream's ValidatePositiveIntOrPercent: a count of at least 0, or a `<digits>%` string. */
export function validatePositiveIntOrPercent(v: number | string, path: string): FieldErrorList {
  if (typeof v === 'number') return v < 0 ? [invalid(path, v, 'must be greater than or equal to 0')] : [];
  if (typeof v === 'string') return /^[0-9]+%$/.test(v) ? [] : [invalid(path, v, PERCENT_MSG)];
  return [invalid(path, v, "must be an integer or percentage (e.g '5%')")];
}

/** Upstream's IsNotMoreThan100Percent: a percentage over 100% is refused (counts are not checked). */
export function validateNotMoreThan100Percent(v: number | string, path: string): FieldErrorList {
  if (typeof v !== 'string') return [];
  const m = /^([0-9]+)%$/.exec(v);
  return m && Number(m[1]) > 100 ? [invalid(path, v, 'must not be greater than 100%')] : [];
}
