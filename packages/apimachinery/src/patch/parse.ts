import { newBadRequest } from '../errors/status-error.js';
import type { JsonValue } from '../meta/types.js';

/** The patch content types the apiserver accepts besides apply. */
export type PatchType =
  | 'application/json-patch+json'
  | 'application/merge-patch+json'
  | 'application/strategic-merge-patch+json';

/** Thrown internally with Go's encoding/json SyntaxError text. */
class GoSyntaxError extends Error {}

const EOF_MESSAGE = 'unexpected end of JSON input';

/** Go's scanner quoteChar: the offending byte as a single-quoted Go literal. */
function quoteChar(ch: string): string {
  if (ch === "'") return `'\\''`;
  if (ch === '"') return `'"'`;
  let code = ch.codePointAt(0) ?? 0;
  // Go's scanner works on bytes: a multi-byte character is reported by its UTF-8 lead byte.
  if (code >= 0x80) code = code < 0x800 ? 0xc0 | (code >> 6) : code < 0x10000 ? 0xe0 | (code >> 12) : 0xf0 | (code >> 18);
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 92: '\\\\' };
  const esc = named[code];
  if (esc !== undefined) return `'${esc}'`;
  if (code < 0x20 || code === 0x7f) return `'\\x${code.toString(16).padStart(2, '0')}'`;
  if ((code >= 0x80 && code < 0xa0) || code === 0xad) return `'\\u${code.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(code)}'`;
}

/** Go's maxNestingDepth for its JSON scanner. */
const MAX_NESTING_DEPTH = 10000;

type State = 'value' | 'valueOrEnd' | 'keyOrEnd' | 'key' | 'colon' | 'after';

/**
 * A validating scanner that reports the first syntax error with the exact text Go's encoding/json
 * would use (the apiserver returns that text in its 400 responses). Iterative, like Go's, so that
 * deep nesting fails with Go's depth error instead of a stack overflow.
 */
class Scanner {
  private i = 0;
  constructor(private readonly s: string) {}

  check(): void {
    const stack: string[] = [];
    let state: State = 'value';
    for (;;) {
      while (this.i < this.s.length && ' \t\r\n'.includes(this.s[this.i] ?? '')) this.i++;
      const c = this.s[this.i];
      switch (state) {
        case 'valueOrEnd':
        case 'value':
          if (state === 'valueOrEnd' && c === ']') {
            this.i++;
            stack.pop();
            state = 'after';
          } else if (c === '{' || c === '[') {
            stack.push(c);
            if (stack.length > MAX_NESTING_DEPTH) this.fail('exceeded max depth');
            this.i++;
            state = c === '{' ? 'keyOrEnd' : 'valueOrEnd';
          } else {
            this.scalar(c);
            state = 'after';
          }
          break;
        case 'keyOrEnd':
          if (c === '}') {
            this.i++;
            stack.pop();
            state = 'after';
          } else {
            state = 'key';
          }
          break;
        case 'key':
          if (c !== '"') this.fail('looking for beginning of object key string');
          this.string();
          state = 'colon';
          break;
        case 'colon':
          if (c !== ':') this.fail('after object key');
          this.i++;
          state = 'value';
          break;
        case 'after': {
          const top = stack[stack.length - 1];
          if (top === undefined) {
            if (this.i < this.s.length) this.fail('after top-level value');
            return;
          }
          const close = top === '[' ? ']' : '}';
          if (c === ',') state = top === '[' ? 'value' : 'key';
          else if (c === close) stack.pop();
          else this.fail(top === '[' ? 'after array element' : 'after object key:value pair');
          this.i++;
          break;
        }
      }
    }
  }

  private fail(context: string): never {
    if (this.i >= this.s.length) throw new GoSyntaxError(EOF_MESSAGE);
    throw new GoSyntaxError(`invalid character ${quoteChar(String.fromCodePoint(this.s.codePointAt(this.i) ?? 0))} ${context}`);
  }

  private peek(): string | undefined {
    return this.s[this.i];
  }

  private scalar(c: string | undefined): void {
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    if (c === 't') return this.literal('true');
    if (c === 'f') return this.literal('false');
    if (c === 'n') return this.literal('null');
    this.fail('looking for beginning of value');
  }

  private string(): void {
    this.i++;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('');
      if (c === '"') {
        this.i++;
        return;
      }
      if (c === '\\') {
        this.i++;
        const e = this.peek();
        if (e === 'u') {
          this.i++;
          for (let k = 0; k < 4; k++) {
            if (!/^[0-9a-fA-F]$/.test(this.peek() ?? '')) this.fail('in \\u hexadecimal character escape');
            this.i++;
          }
          continue;
        }
        if (e === undefined || !'bfnrt\\/"'.includes(e)) this.fail('in string escape code');
        this.i++;
        continue;
      }
      if (c < ' ') this.fail('in string literal');
      this.i++;
    }
  }

  private digits(): void {
    while (/^[0-9]$/.test(this.peek() ?? '')) this.i++;
  }

  private number(): void {
    if (this.peek() === '-') {
      this.i++;
      if (!/^[0-9]$/.test(this.peek() ?? '')) this.fail('in numeric literal');
    }
    if (this.peek() === '0') this.i++;
    else this.digits();
    if (this.peek() === '.') {
      this.i++;
      if (!/^[0-9]$/.test(this.peek() ?? '')) this.fail('after decimal point in numeric literal');
      this.digits();
    }
    if (this.peek() === 'e' || this.peek() === 'E') {
      this.i++;
      if (this.peek() === '+' || this.peek() === '-') this.i++;
      if (!/^[0-9]$/.test(this.peek() ?? '')) this.fail('in exponent of numeric literal');
      this.digits();
    }
  }

  private literal(word: string): void {
    this.i++;
    for (const expected of word.slice(1)) {
      if (this.peek() !== expected) this.fail(`in literal ${word} (expecting '${expected}')`);
      this.i++;
    }
  }
}

/**
 * Decodes a patch request body. Malformed JSON is a 400 BadRequest whose message is what upstream
 * reports for that patch type: Go's JSON syntax error for JSON and strategic merge patches, and
 * `Invalid JSON Patch` for merge patches (the json-patch library hides the detail).
 */
export function parsePatchJson(bytes: string, patchType: PatchType = 'application/json-patch+json'): JsonValue {
  try {
    new Scanner(bytes).check();
  } catch (e) {
    if (!(e instanceof GoSyntaxError)) throw e;
    throw newBadRequest(patchType === 'application/merge-patch+json' ? 'Invalid JSON Patch' : e.message);
  }
  return JSON.parse(bytes) as JsonValue;
}
