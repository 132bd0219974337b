/**
 * Tokenizer for label selector strings, following upstream's labels.Lexer: identifiers run until
 * whitespace or one of `=!(),><`; operators are the longest token that the special symbols form.
 */

export type TokenKind =
  | 'Error'
  | 'EndOfString'
  | 'ClosedPar'
  | 'Comma'
  | 'DoesNotExist'
  | 'DoubleEquals'
  | 'Equals'
  | 'GreaterThan'
  | 'Identifier'
  | 'In'
  | 'LessThan'
  | 'NotEquals'
  | 'NotIn'
  | 'OpenPar';

export interface Token {
  kind: TokenKind;
  /** The text scanned; empty for EndOfString, a message for Error. */
  literal: string;
}

const literalTokens: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  [')', 'ClosedPar'],
  [',', 'Comma'],
  ['!', 'DoesNotExist'],
  ['==', 'DoubleEquals'],
  ['=', 'Equals'],
  ['>', 'GreaterThan'],
  ['in', 'In'],
  ['<', 'LessThan'],
  ['!=', 'NotEquals'],
  ['notin', 'NotIn'],
  ['(', 'OpenPar'],
]);

// Upstream reads byte 0 at the end of input; a NUL in the input therefore behaves like an end too.
const END = '\0';

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => ch.length === 1 && '=!(),><'.includes(ch);

/** Splits a selector string into tokens; call next() until it returns EndOfString. */
export class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  private read(): string {
    if (this.pos >= this.s.length) return END;
    return this.s[this.pos++] ?? END;
  }

  private unread(): void {
    this.pos--;
  }

  private scanIdOrKeyword(): Token {
    let buf = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buf += ch;
    }
    const kind = literalTokens.get(buf);
    return { kind: kind ?? 'Identifier', literal: buf };
  }

  private scanSpecialSymbol(): Token {
    let last: Token | undefined;
    let buf = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (!isSpecialSymbol(ch)) {
        this.unread();
        break;
      }
      buf += ch;
      const kind = literalTokens.get(buf);
      if (kind) {
        last = { kind, literal: buf };
      } else if (last) {
        this.unread();
        break;
      }
    }
    return last ?? { kind: 'Error', literal: `error expected: keyword found '${buf}'` };
  }

  /** The next token. */
  next(): Token {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === END) return { kind: 'EndOfString', literal: '' };
    this.unread();
    return isSpecialSymbol(ch) ? this.scanSpecialSymbol() : this.scanIdOrKeyword();
  }
}

/** All tokens of s, ending with EndOfString. */
export function scanAll(s: string): Token[] {
  const lexer = new Lexer(s);
  const out: Token[] = [];
  for (;;) {
    const t = lexer.next();
    out.push(t);
    if (t.kind === 'EndOfString') return out;
  }
}
