import type { JsonObject, JsonValue } from '../meta/types.js';
import { scannerQuoteChar } from './go-text.js';

/** A JSON syntax error worded as Go's encoding/json scanner words it. */
export class JsonSyntaxError extends Error {
  /** Character offset at which the scanner gave up. */
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(message);
    this.name = 'JsonSyntaxError';
    this.offset = offset;
  }
}

/** One repeated object key. */
export interface DuplicateKey {
  /** Path in upstream's strict-error form: `metadata.labels.a`, `items[0].name`, `[1].x`. */
  path: string;
  /** Character offset of the repeated key (strict errors are reported in document order). */
  offset: number;
  /** The object holding the key, as returned in `value`. */
  container: JsonObject;
  key: string;
  /** The value this occurrence replaced. */
  previous: JsonValue;
}

/** What {@link parseJsonStrict} returns. */
export interface JsonParseResult {
  /** The value; for a repeated key the last occurrence wins (the schema walk merges like Go). */
  value: JsonValue;
  /** Repeated keys, in document order. */
  duplicates: DuplicateKey[];
  /**
   * Literal text of numbers whose JS value may hide how they were written (fractions, exponents,
   * more than 15 digits, `-0`), by container and key (array index as a string). Go decides
   * whether a number fits an integer field from the text, so the schema walk needs it.
   */
  numberText: WeakMap<object, Map<string, string>>;
  /** With `locate`: the offset of the first occurrence of every key path. */
  keyOffsets?: Map<string, number>;
}

/** Options of {@link parseJsonStrict}. */
export interface JsonParseOptions {
  /** Record the offset of every key path (slower; used only to order mixed strict errors). */
  locate?: boolean;
}

/** Go's maxNestingDepth of its JSON scanner. */
const MAX_DEPTH = 10000;
const EOF_MESSAGE = 'unexpected end of JSON input';
/** Nesting beyond which the fast path hands over to the full (iterative) parser. */
const FAST_MAX_DEPTH = 256;

class Frame {
  key = '';
  keyOffset = 0;
  constructor(
    readonly obj: JsonObject | undefined,
    readonly arr: JsonValue[] | undefined,
  ) {}
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

const SIMPLE_ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

/**
 * An iterative JSON parser (so that deep nesting fails with Go's depth error rather than a stack
 * overflow) that keeps what `JSON.parse` throws away: repeated keys and number literals.
 */
class StrictJsonParser {
  private i = 0;
  private numText: string | undefined;
  readonly duplicates: DuplicateKey[] = [];
  readonly numberText = new WeakMap<object, Map<string, string>>();
  readonly keyOffsets: Map<string, number> | undefined;

  constructor(
    private readonly s: string,
    locate: boolean,
  ) {
    this.keyOffsets = locate ? new Map() : undefined;
  }

  parse(): JsonValue {
    const s = this.s;
    const frames: Frame[] = [];
    for (;;) {
      this.ws();
      const c = s.charCodeAt(this.i);
      let v: JsonValue;
      this.numText = undefined;
      if (c === 0x7b || c === 0x5b) {
        if (frames.length + 1 > MAX_DEPTH) this.fail(this.i, 'exceeded max depth');
        this.i++;
        this.ws();
        if (c === 0x7b) {
          const obj: JsonObject = {};
          if (s.charCodeAt(this.i) === 0x7d) {
            this.i++;
            v = obj;
          } else {
            const f = new Frame(obj, undefined);
            frames.push(f);
            this.readKey(f, frames);
            continue;
          }
        } else {
          const arr: JsonValue[] = [];
          if (s.charCodeAt(this.i) === 0x5d) {
            this.i++;
            v = arr;
          } else {
            frames.push(new Frame(undefined, arr));
            continue;
          }
        }
      } else if (c === 0x22) {
        v = this.string();
      } else if (c === 0x2d || isDigit(c)) {
        v = this.number();
      } else if (c === 0x74) {
        this.literal('true');
        v = true;
      } else if (c === 0x66) {
        this.literal('false');
        v = false;
      } else if (c === 0x6e) {
        this.literal('null');
        v = null;
      } else {
        this.fail(this.i, 'looking for beginning of value');
      }
      // Store the finished value, closing as many containers as end here.
      for (;;) {
        const f = frames[frames.length - 1];
        if (f === undefined) {
          this.ws();
          if (this.i < s.length) this.fail(this.i, 'after top-level value');
          return v;
        }
        if (f.arr !== undefined) {
          if (this.numText !== undefined) this.recordNumber(f.arr, String(f.arr.length));
          f.arr.push(v);
          this.ws();
          const d = s.charCodeAt(this.i);
          this.i++;
          if (d === 0x2c) break;
          if (d !== 0x5d) this.fail(this.i - 1, 'after array element');
          frames.pop();
          v = f.arr;
        } else {
          const obj = f.obj as JsonObject;
          this.store(obj, f, v, frames);
          this.ws();
          const d = s.charCodeAt(this.i);
          this.i++;
          if (d === 0x2c) {
            this.ws();
            this.readKey(f, frames);
            break;
          }
          if (d !== 0x7d) this.fail(this.i - 1, 'after object key:value pair');
          frames.pop();
          v = obj;
        }
        this.numText = undefined;
      }
    }
  }

  private readKey(f: Frame, frames: Frame[]): void {
    if (this.s.charCodeAt(this.i) !== 0x22) this.fail(this.i, 'looking for beginning of object key string');
    f.keyOffset = this.i;
    f.key = this.string();
    this.ws();
    if (this.s.charCodeAt(this.i) !== 0x3a) this.fail(this.i, 'after object key');
    this.i++;
    if (this.keyOffsets !== undefined) {
      const path = pathOf(frames);
      if (!this.keyOffsets.has(path)) this.keyOffsets.set(path, f.keyOffset);
    }
  }

  private store(obj: JsonObject, f: Frame, v: JsonValue, frames: Frame[]): void {
    const key = f.key;
    const prev = obj[key];
    // Values are never undefined, so an own property always reads as defined; the hasOwn call
    // only runs for keys that shadow Object.prototype members or repeat.
    if (prev !== undefined && Object.hasOwn(obj, key)) {
      this.duplicates.push({ path: pathOf(frames), offset: f.keyOffset, container: obj, key, previous: prev });
    }
    if (this.numText !== undefined) this.recordNumber(obj, key);
    if (key === '__proto__') {
      Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
    } else {
      obj[key] = v;
    }
  }

  private recordNumber(container: object, key: string): void {
    let m = this.numberText.get(container);
    if (m === undefined) {
      m = new Map();
      this.numberText.set(container, m);
    }
    m.set(key, this.numText as string);
  }

  private ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.i = i;
  }

  private fail(at: number, context: string): never {
    if (at >= this.s.length) throw new JsonSyntaxError(EOF_MESSAGE, this.s.length);
    const cp = this.s.codePointAt(at) ?? 0;
    throw new JsonSyntaxError(`invalid character ${scannerQuoteChar(cp)} ${context}`, at);
  }

  private string(): string {
    const s = this.s;
    const start = this.i + 1;
    let i = start;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        this.i = i + 1;
        return s.slice(start, i);
      }
      if (c === 0x5c || c < 0x20 || c !== c) break;
      i++;
    }
    // Escapes present: collect slices between them rather than growing a string per character.
    const parts: string[] = [];
    let chunk = start;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c !== c) this.fail(i, '');
      if (c === 0x22) {
        parts.push(s.slice(chunk, i));
        this.i = i + 1;
        return parts.join('');
      }
      if (c < 0x20) this.fail(i, 'in string literal');
      if (c !== 0x5c) {
        i++;
        continue;
      }
      parts.push(s.slice(chunk, i));
      const e = s.charCodeAt(i + 1);
      const simple = SIMPLE_ESCAPES[e];
      if (simple !== undefined) {
        parts.push(simple);
        i += 2;
      } else if (e === 0x75) {
        const u = this.hex4(i + 2);
        i += 6;
        if (u >= 0xd800 && u <= 0xdbff && s.charCodeAt(i) === 0x5c && s.charCodeAt(i + 1) === 0x75) {
          const low = this.peekHex4(i + 2);
          if (low >= 0xdc00 && low <= 0xdfff) {
            parts.push(String.fromCharCode(u, low));
            i += 6;
          } else {
            parts.push('\ufffd');
          }
        } else {
          // Go decodes a lone surrogate escape to U+FFFD.
          parts.push(u >= 0xd800 && u <= 0xdfff ? '\ufffd' : String.fromCharCode(u));
        }
      } else {
        this.fail(i + 1, 'in string escape code');
      }
      chunk = i;
    }
  }

  private hex4(at: number): number {
    let u = 0;
    for (let k = 0; k < 4; k++) {
      const h = hexValue(this.s.charCodeAt(at + k));
      if (h < 0) this.fail(at + k, 'in \\u hexadecimal character escape');
      u = u * 16 + h;
    }
    return u;
  }

  private peekHex4(at: number): number {
    let u = 0;
    for (let k = 0; k < 4; k++) {
      const h = hexValue(this.s.charCodeAt(at + k));
      if (h < 0) return -1;
      u = u * 16 + h;
    }
    return u;
  }

  private number(): number {
    const s = this.s;
    const start = this.i;
    let i = start;
    let plain = true;
    if (s.charCodeAt(i) === 0x2d) {
      i++;
      if (!isDigit(s.charCodeAt(i))) this.fail(i, 'in numeric literal');
    }
    let acc = 0;
    if (s.charCodeAt(i) === 0x30) i++;
    else {
      for (let c = s.charCodeAt(i); isDigit(c); c = s.charCodeAt(++i)) acc = acc * 10 + (c - 0x30);
    }
    if (s.charCodeAt(i) === 0x2e) {
      plain = false;
      i++;
      if (!isDigit(s.charCodeAt(i))) this.fail(i, 'after decimal point in numeric literal');
      while (isDigit(s.charCodeAt(i))) i++;
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      plain = false;
      i++;
      const sign = s.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(s.charCodeAt(i))) this.fail(i, 'in exponent of numeric literal');
      while (isDigit(s.charCodeAt(i))) i++;
    }
    this.i = i;
    // Plain integers of up to 15 characters are exact as accumulated; skip slicing them.
    if (plain && i - start <= 15) {
      if (s.charCodeAt(start) !== 0x2d) return acc;
      if (acc !== 0) return -acc;
    }
    const text = s.slice(start, i);
    this.numText = text;
    return +text;
  }

  private literal(word: string): void {
    const s = this.s;
    let i = this.i + 1;
    for (let k = 1; k < word.length; k++, i++) {
      if (s.charCodeAt(i) !== word.charCodeAt(k)) this.fail(i, `in literal ${word} (expecting '${word[k]}')`);
    }
    this.i = i;
  }
}

/** The path of the current key of the innermost frame, as sigs.k8s.io/json prints it. */
function pathOf(frames: readonly Frame[]): string {
  let p = '';
  for (const f of frames) {
    if (f.arr !== undefined) p += `[${f.arr.length}]`;
    else p += p === '' ? f.key : `.${f.key}`;
  }
  return p;
}

/** Counts the own keys of every object in a parsed value. */
function countKeys(v: JsonValue): number {
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (const e of v) n += countKeys(e);
    return n;
  }
  for (const k in v) n += 1 + countKeys(v[k] as JsonValue);
  return n;
}

/**
 * The fast path: the native parser does the work, and one scan of the text (strings skipped with
 * indexOf) checks that nothing needs the full parser: no repeated key (the text has exactly as
 * many keys, i.e. colons outside strings, as the value), no number whose literal matters, no
 * surrogate escape, no deep nesting. Undefined sends the caller to the full parser.
 */
function fastParse(s: string): JsonValue | undefined {
  // Scan first: it gives up early on texts that need the full parser anyway (fractions...).
  let colons = 0;
  let depth = 0;
  let digits = 0;
  const n = s.length;
  // Position of the next backslash at or after the scan, found once per backslash (not per string).
  let slash = -2;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      let end = s.indexOf('"', i + 1);
      if (end < 0) return undefined;
      if (slash !== -1 && slash <= i) slash = s.indexOf('\\', i + 1);
      if (slash !== -1 && slash < end) {
        // Escapes: find the real closing quote and refuse surrogate escapes (Go rewrites lone ones).
        for (;;) {
          let k = end - 1;
          while (s.charCodeAt(k) === 0x5c) k--;
          if ((end - 1 - k) % 2 === 0) break;
          end = s.indexOf('"', end + 1);
          if (end < 0) return undefined;
        }
        if (/\\u[dD][89a-fA-F]/.test(s.slice(i, end))) return undefined;
      }
      i = end;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (++digits > 15) return undefined;
    } else {
      digits = 0;
      if (c === 0x3a) colons++;
      else if (c === 0x7b || c === 0x5b) {
        // Deep texts go to the iterative full parser; this keeps countKeys' recursion shallow.
        if (++depth > FAST_MAX_DEPTH) return undefined;
      } else if (c === 0x7d || c === 0x5d) depth--;
      else if (c === 0x2e || c === 0x45 || ((c === 0x65) && s.charCodeAt(i - 1) >= 0x30 && s.charCodeAt(i - 1) <= 0x39)) return undefined;
    }
  }
  let value: JsonValue;
  try {
    value = JSON.parse(s) as JsonValue;
  } catch {
    return undefined;
  }
  return colons === countKeys(value) ? value : undefined;
}

/**
 * Parses JSON text like Go's encoding/json (same accepted grammar, same syntax error texts, lone
 * surrogate escapes become U+FFFD) and reports repeated keys with their paths.
 * @throws JsonSyntaxError with Go's message for malformed input.
 */
export function parseJsonStrict(text: string, options: JsonParseOptions = {}): JsonParseResult {
  if (options.locate !== true) {
    const value = fastParse(text);
    if (value !== undefined) return { value, duplicates: [], numberText: new WeakMap() };
  }
  const p = new StrictJsonParser(text, options.locate === true);
  const value = p.parse();
  const result: JsonParseResult = { value, duplicates: p.duplicates, numberText: p.numberText };
  if (p.keyOffsets !== undefined) result.keyOffsets = p.keyOffsets;
  return result;
}
