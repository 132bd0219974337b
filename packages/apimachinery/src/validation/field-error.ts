import type { CauseType } from '../meta/types.js';

/** The kinds of field error upstream's field package knows (the field causes of a Status). */
export type FieldErrorType = Exclude<CauseType, 'UnexpectedServerResponse' | 'FieldManagerConflict' | 'ResourceVersionTooLarge'>;

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** One validation failure at a field path, as upstream's field.Error. */
export interface FieldError {
  type: FieldErrorType;
  /** Path such as `metadata.labels[a/b]` or `data[key]`. */
  field: string;
  /** The offending value; omitted for errors that do not show one (Required, Forbidden, TooLong). */
  badValue?: unknown;
  detail: string;
}

export type FieldErrorList = FieldError[];

/** Renders a bad value the way Go's %#v/%q renders it in upstream messages. */
function renderValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** Message body without the field path, e.g. `Invalid value: "x": must be ...`. */
export function fieldErrorBody(e: FieldError): string {
  const text = typeText[e.type];
  const showsValue = e.badValue !== undefined && e.type !== 'FieldValueRequired' && e.type !== 'FieldValueForbidden';
  let s = text;
  if (showsValue) s += `: ${renderValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** Full message, e.g. `data[a b]: Invalid value: "a b": must be ...`. */
export function fieldErrorMessage(e: FieldError): string {
  return e.field ? `${e.field}: ${fieldErrorBody(e)}` : fieldErrorBody(e);
}

export function causeTypeOf(e: FieldError): CauseType {
  return e.type;
}

const make =
  (type: FieldErrorType, showsValue: boolean) =>
  (field: string, badValue: unknown, detail = ''): FieldError =>
    showsValue ? { type, field, badValue, detail } : { type, field, detail };

export const invalid = make('FieldValueInvalid', true);
export const duplicate = make('FieldValueDuplicate', true);
export const notFoundField = make('FieldValueNotFound', true);
export function required(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, detail };
}
export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail };
}
export function tooLong(field: string, maxLength: number): FieldError {
  return { type: 'FieldValueTooLong', field, detail: `must have at most ${maxLength} bytes` };
}
export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, badValue: actual, detail: `must have at most ${max} items` };
}
export function notSupported(field: string, badValue: unknown, valid: readonly string[]): FieldError {
  const detail = valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field, badValue, detail };
}

/** Field path helpers: `child('metadata','name')`, `key('data','a b')` -> `data[a b]`, `index('items',0)`. */
export function child(parent: string, ...names: string[]): string {
  // Validation builds paths for every field it looks at, errors or not: no array filter/join here.
  let out = parent;
  for (const n of names) {
    if (n === '') continue;
    out = out === '' ? n : `${out}.${n}`;
  }
  return out;
}
export function key(parent: string, k: string): string {
  return `${parent}[${k}]`;
}
export function index(parent: string, i: number): string {
  return `${parent}[${i}]`;
}
