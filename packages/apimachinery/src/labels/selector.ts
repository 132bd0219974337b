import { fieldErrorMessage } from '../validation/field-error.js';
import { scanAll, type Token, type TokenKind } from './lexer.js';
import {
  BINARY_OPERATORS,
  NIL_PATH,
  labelKeyError,
  newLabelRequirement,
  SelectorParseError,
  type LabelOperator,
  type LabelRequirement,
} from './requirement.js';

const byKey = (a: LabelRequirement, b: LabelRequirement): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * A parsed label selector: the AND of its requirements, kept sorted by key as upstream does so that
 * toString() is deterministic. Immutable.
 */
export class LabelSelector {
  private constructor(
    /** The requirements, sorted by key. */
    readonly requirements: readonly LabelRequirement[],
    private readonly nothing: boolean,
  ) {}

  /** Matches every label set (the empty selector). */
  static everything(): LabelSelector {
    return new LabelSelector([], false);
  }

  /** Matches no label set (what a missing metav1.LabelSelector means). */
  static nothing(): LabelSelector {
    return new LabelSelector([], true);
  }

  /** A selector of the given requirements, sorted by key. */
  static of(requirements: readonly LabelRequirement[]): LabelSelector {
    return new LabelSelector([...requirements].sort(byKey), false);
  }

  /** True when the selector does not restrict anything; the nothing-selector is not empty. */
  get empty(): boolean {
    return !this.nothing && this.requirements.length === 0;
  }

  /** Whether every requirement holds for labels (absent labels count as no labels). */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    if (this.nothing) return false;
    const ls = labels ?? {};
    return this.requirements.every((r) => r.matches(ls));
  }

  /** A new selector with more requirements. */
  add(...reqs: LabelRequirement[]): LabelSelector {
    if (this.nothing) return this;
    return LabelSelector.of([...this.requirements, ...reqs]);
  }

  /**
   * The single value the selector demands for key (through `=`, `==` or a one-value `in`), or
   * undefined. Only the first requirement on key is looked at, as upstream.
   */
  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((x) => x.key === key);
    if (!r || !(r.operator === '=' || r.operator === '==' || r.operator === 'in') || r.values.length !== 1) return undefined;
    return r.values[0];
  }

  /** Upstream's text form: requirements joined by ','. */
  toString(): string {
    return this.requirements.map((r) => r.toString()).join(',');
  }
}

/** Recursive-descent parser over the token list, mirroring upstream's labels.Parser. */
class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  // In a value position the keywords `in` and `notin` are plain identifiers.
  private asValue(t: Token): Token {
    return t.kind === 'In' || t.kind === 'NotIn' ? { kind: 'Identifier', literal: t.literal } : t;
  }

  private at(i: number): Token {
    return this.tokens[Math.min(i, this.tokens.length - 1)] ?? { kind: 'EndOfString', literal: '' };
  }

  private lookahead(values = true): Token {
    const t = this.at(this.pos);
    return values ? this.asValue(t) : t;
  }

  private consume(values = true): Token {
    const t = this.at(this.pos++);
    return values ? this.asValue(t) : t;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const t = this.lookahead();
      if (t.kind === 'EndOfString') return reqs;
      if (t.kind !== 'Identifier' && t.kind !== 'DoesNotExist') {
        throw new SelectorParseError(`found '${t.literal}', expected: !, identifier, or 'end of string'`);
      }
      try {
        reqs.push(this.parseRequirement());
      } catch (e) {
        if (e instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const after = this.consume();
      if (after.kind === 'EndOfString') return reqs;
      if (after.kind !== 'Comma') throw new SelectorParseError(`found '${after.literal}', expected: ',' or 'end of string'`);
      const nextTok = this.lookahead();
      if (nextTok.kind !== 'Identifier' && nextTok.kind !== 'DoesNotExist') {
        throw new SelectorParseError(`found '${nextTok.literal}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator: inferred } = this.parseKeyAndInferOperator();
    if (inferred) return newLabelRequirement(key, inferred, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newLabelRequirement(key, op, [...values].sort());
  }

  private parseKeyAndInferOperator(): { key: string; operator?: LabelOperator } {
    let operator: LabelOperator | undefined;
    let t = this.consume();
    if (t.kind === 'DoesNotExist') {
      operator = '!';
      t = this.consume();
    }
    if (t.kind !== 'Identifier') throw new SelectorParseError(`found '${t.literal}', expected: identifier`);
    const keyErr = labelKeyError(t.literal, NIL_PATH);
    if (keyErr) throw new SelectorParseError(fieldErrorMessage(keyErr));
    const next = this.lookahead().kind;
    if ((next === 'EndOfString' || next === 'Comma') && operator !== '!') operator = 'exists';
    return operator ? { key: t.literal, operator } : { key: t.literal };
  }

  private parseOperator(): LabelOperator {
    const t = this.consume(false);
    const ops: Partial<Record<TokenKind, LabelOperator>> = {
      In: 'in',
      Equals: '=',
      DoubleEquals: '==',
      GreaterThan: 'gt',
      LessThan: 'lt',
      NotIn: 'notin',
      NotEquals: '!=',
    };
    const op = ops[t.kind];
    if (!op) throw new SelectorParseError(`found '${t.literal}', expected: ${BINARY_OPERATORS.join(', ')}`);
    return op;
  }

  private parseValues(): Set<string> {
    const open = this.consume();
    if (open.kind !== 'OpenPar') throw new SelectorParseError(`found '${open.literal}' expected: '('`);
    const t = this.lookahead();
    if (t.kind === 'Identifier' || t.kind === 'Comma') {
      const s = this.parseIdentifiersList();
      if (this.consume().kind !== 'ClosedPar') throw new SelectorParseError(`found '${t.literal}', expected: ')'`);
      return s;
    }
    if (t.kind === 'ClosedPar') {
      this.consume();
      return new Set(['']);
    }
    throw new SelectorParseError(`found '${t.literal}', expected: ',', ')' or identifier`);
  }

  // A possibly empty, comma-separated list of possibly empty values: `(,a)` and `(a,)` hold "".
  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const t = this.consume();
      if (t.kind === 'Identifier') {
        s.add(t.literal);
        const t2 = this.lookahead();
        if (t2.kind === 'Comma') continue;
        if (t2.kind === 'ClosedPar') return s;
        throw new SelectorParseError(`found '${t2.literal}', expected: ',' or ')'`);
      }
      if (t.kind !== 'Comma') throw new SelectorParseError(`found '${t.literal}', expected: ',', or identifier`);
      if (s.size === 0) s.add('');
      const t2 = this.lookahead().kind;
      if (t2 === 'ClosedPar') {
        s.add('');
        return s;
      }
      if (t2 === 'Comma') s.add('');
    }
  }

  private parseExactValue(): Set<string> {
    const t = this.lookahead();
    if (t.kind === 'EndOfString' || t.kind === 'Comma') return new Set(['']);
    const v = this.consume();
    if (v.kind === 'Identifier') return new Set([v.literal]);
    throw new SelectorParseError(`found '${v.literal}', expected: identifier`);
  }
}

/**
 * Parses a label selector string (`a=b,c!=d,e in (f,g),h,!i,j>1`). The empty string selects everything.
 * @throws SelectorParseError (a 400 BadRequest StatusError) with upstream's message
 * (`unable to parse requirement: ...`, `found ...`).
 */
export function parseLabelSelector(s: string): LabelSelector {
  return LabelSelector.of(new Parser(scanAll(s)).parse());
}

/**
 * Parses the `labelSelector` query parameter; absent means everything.
 * @throws SelectorParseError, a 400 BadRequest StatusError whose message is the parse error text,
 * as upstream's list handler answers.
 */
export function parseLabelSelectorParam(s: string | undefined | null): LabelSelector {
  return s ? parseLabelSelector(s) : LabelSelector.everything();
}
