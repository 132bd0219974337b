import { newBadRequest, StatusError } from '../errors/status-error.js';
import { fieldErrorMessage, invalid, notSupported, type FieldError } from '../validation/field-error.js';
import { isQualifiedName, isValidLabelValue } from '../validation/name-rules.js';

/** Selection operators with upstream's spellings (selection.Operator). */
export type LabelOperator = '!' | '=' | '==' | 'in' | '!=' | 'notin' | 'exists' | 'gt' | 'lt';

/** Binary operators in upstream's order; parse errors list them. */
export const BINARY_OPERATORS: readonly LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const UNARY_OPERATORS: readonly LabelOperator[] = ['exists', '!'];

/**
 * A selector that cannot be parsed or built. Its message is the text upstream returns, and it is a
 * 400 BadRequest StatusError carrying that message, which is what the apiserver answers for a bad
 * labelSelector or fieldSelector parameter.
 */
export class SelectorParseError extends StatusError {
  constructor(message: string) {
    super(newBadRequest(message).status);
    this.name = 'SelectorParseError';
  }
}

/** Go prints a nil field path as `<nil>`; selector parsing validates keys with no path. */
export const NIL_PATH = '<nil>';

const childPath = (path: string | undefined, name: string): string => (path ? `${path}.${name}` : name);

/** Joins field errors the way Go's aggregate does: one message alone, several as `[a, b]`, duplicates once. */
export function aggregateMessage(errs: readonly FieldError[]): string {
  const msgs = [...new Set(errs.map(fieldErrorMessage))];
  return msgs.length === 1 ? (msgs[0] ?? '') : `[${msgs.join(', ')}]`;
}

/** Upstream's validateLabelKey: one Invalid error with every detail joined by '; '. */
export function labelKeyError(k: string, path: string): FieldError | undefined {
  const errs = isQualifiedName(k);
  return errs.length ? invalid(path, k, errs.join('; ')) : undefined;
}

// strconv.ParseInt(s, 10, 64): optional sign, decimal digits, within int64.
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** The value as a 64-bit integer, or undefined where Go's ParseInt would fail. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

/** One clause of a label selector: key, operator and values. Immutable. */
export class LabelRequirement {
  constructor(
    readonly key: string,
    readonly operator: LabelOperator,
    readonly values: readonly string[],
  ) {}

  /** Whether labels satisfy this clause; a missing key satisfies only `!=`, `notin` and `!`. */
  matches(labels: Readonly<Record<string, string>>): boolean {
    const has = Object.hasOwn(labels, this.key);
    const val = has ? labels[this.key] : undefined;
    switch (this.operator) {
      case 'in':
      case '=':
      case '==':
        return val !== undefined && this.values.includes(val);
      case 'notin':
      case '!=':
        return val === undefined || !this.values.includes(val);
      case 'exists':
        return has;
      case '!':
        return !has;
      case 'gt':
      case 'lt': {
        if (val === undefined || this.values.length !== 1) return false;
        const lhs = parseInt64(val);
        const rhs = parseInt64(this.values[0] ?? '');
        if (lhs === undefined || rhs === undefined) return false;
        return this.operator === 'gt' ? lhs > rhs : lhs < rhs;
      }
    }
  }

  /** Upstream's text form, e.g. `x in (a,b)`, `!x`, `x!=y`, `x>1`; multiple values are shown sorted. */
  toString(): string {
    const op = this.operator;
    if (op === 'exists') return this.key;
    if (op === '!') return `!${this.key}`;
    const opText: Record<Exclude<LabelOperator, 'exists' | '!'>, string> = {
      '=': '=',
      '==': '==',
      '!=': '!=',
      in: ' in ',
      notin: ' notin ',
      gt: '>',
      lt: '<',
    };
    const vals = this.values.length === 1 ? (this.values[0] ?? '') : [...this.values].sort().join(',');
    const body = op === 'in' || op === 'notin' ? `(${vals})` : vals;
    return `${this.key}${opText[op]}${body}`;
  }
}

/**
 * Builds a requirement, checking what upstream's NewRequirement checks: the key is a qualified name,
 * the number of values fits the operator, gt/lt values are integers, values are label values.
 * `path` prefixes field paths (`key`, `values[i]`, `values[i][key]`).
 * @throws SelectorParseError with upstream's aggregated field error text.
 */
export function newLabelRequirement(key: string, op: LabelOperator, values: readonly string[], path?: string): LabelRequirement {
  const errs: FieldError[] = [];
  const keyErr = labelKeyError(key, childPath(path, 'key'));
  if (keyErr) errs.push(keyErr);
  const valuePath = childPath(path, 'values');
  switch (op) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(invalid(valuePath, values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(invalid(valuePath, values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(invalid(valuePath, values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(invalid(valuePath, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(invalid(`${valuePath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default:
      errs.push(notSupported(childPath(path, 'operator'), op, [...BINARY_OPERATORS, ...UNARY_OPERATORS]));
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(invalid(`${valuePath}[${i}][${key}]`, v, msgs.join('; ')));
  });
  if (errs.length) throw new SelectorParseError(aggregateMessage(errs));
  return new LabelRequirement(key, op, [...values]);
}
