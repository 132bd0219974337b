import { newBadRequest } from '../errors/status-error.js';
import { SelectorParseError } from '../labels/requirement.js';

/** A field selector operator; `==` is parsed as `=`, as upstream's selection.Equals. */
export type FieldOperator = '=' | '!=';

/** One term of a field selector. */
export interface FieldRequirement {
  field: string;
  op: FieldOperator;
  /** The value with escapes removed. */
  value: string;
}

/** Escapes `\`, `,` and `=` in a value so that it reads back unchanged (upstream EscapeValue). */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Removes escapes from a value (upstream UnescapeValue): `\\`, `\,` and `\=` are the only escapes,
 * and a bare `,` or `=` is an error.
 * @throws SelectorParseError (a 400 BadRequest StatusError) with upstream's text.
 */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go prints the rune with %v, that is as its code point number.
      throw new SelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new SelectorParseError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas that are not escaped; escapes stay in the terms. */
function splitTerms(s: string): string[] {
  if (s === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

const termOperators = ['!=', '==', '='] as const;

/** Splits a term at the first operator; the field part has no escaping. */
function splitTerm(term: string): { lhs: string; op: (typeof termOperators)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** A parsed field selector: the AND of its terms, ordered as upstream orders them (by term text). */
export class FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}

  /** True when no term restricts the selection. */
  get empty(): boolean {
    return this.requirements.length === 0;
  }

  /** Whether every term holds; a missing field reads as the empty string. */
  matches(fields: Readonly<Record<string, string>>): boolean {
    return this.requirements.every((r) => {
      const v = Object.hasOwn(fields, r.field) ? (fields[r.field] ?? '') : '';
      return r.op === '=' ? v === r.value : v !== r.value;
    });
  }

  /** Value of the first `=` term on field, or undefined; lets callers use a single-object or namespace fast path. */
  exactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.op === '=')?.value;
  }

  /** Upstream's text form, values escaped: `a=b,c!=d`. */
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.op}${escapeFieldValue(r.value)}`).join(',');
  }
}

/**
 * Parses a field selector (`a=b`, `a==b`, `a!=b`, comma-separated, `\` escapes in values). The empty
 * string selects everything.
 * @throws SelectorParseError (a 400 BadRequest StatusError) with upstream's message
 * (`invalid selector: '...'; can't understand '...'`).
 */
export function parseFieldSelector(s: string): FieldSelector {
  const parts = splitTerms(s).sort();
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new SelectorParseError(`invalid selector: '${s}'; can't understand '${part}'`);
    const value = unescapeFieldValue(t.rhs);
    reqs.push({ field: t.lhs, op: t.op === '!=' ? '!=' : '=', value });
  }
  return new FieldSelector(reqs);
}

/**
 * Parses the `fieldSelector` query parameter; absent means everything.
 * @throws SelectorParseError, a 400 BadRequest StatusError whose message is the parse error text.
 */
export function parseFieldSelectorParam(s: string | undefined | null): FieldSelector {
  return s ? parseFieldSelector(s) : new FieldSelector([]);
}

/**
 * Rejects fields the resource cannot select on, as upstream's field label conversion does.
 * @throws StatusError 400 BadRequest `field label not supported: <name>` for the first unknown field.
 */
export function checkFieldSelectorFields(sel: FieldSelector, allowed: readonly string[]): void {
  for (const r of sel.requirements) {
    if (!allowed.includes(r.field)) throw newBadRequest(`field label not supported: ${r.field}`);
  }
}
