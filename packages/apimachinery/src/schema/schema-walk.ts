import type { JsonObject, JsonValue } from '../meta/types.js';
import { setOwn } from '../patch/json-value.js';
import { goBase64Error, goRfc3339Error } from './go-decoders.js';
import { goJsonFloat } from './go-text.js';
import { canonicalQuantity } from './quantity.js';
import type { DuplicateKey } from './parse-json-strict.js';
import { resolverFor, SchemaResolver, structName, type Definitions, type SchemaNode } from './schema-node.js';

/** A value Go's decoder rejects (reported as 400 whatever the field validation directive). */
export interface SchemaTypeError {
  /** Where, in strict-error path form (`data.a`, `secrets[0].name`). */
  path: string;
  /** Go's error text, e.g. `json: cannot unmarshal number into Go struct field ConfigMap.data of type string`. */
  goMessage: string;
  /** Raised by a type with its own decoding (metav1.Time, IntOrString): Go stops decoding there. */
  fatal?: boolean;
}

/** An unknown or repeated field, as sigs.k8s.io/json's strict mode reports it. */
export interface StrictFinding {
  kind: 'unknown' | 'duplicate';
  path: string;
  /** Character offset in the JSON text, when known (repeated keys always carry one). */
  offset?: number;
}

/** Options of {@link checkAgainstSchema}. */
export interface SchemaCheckOptions {
  /** Number literals from {@link parseJsonStrict}; without them numbers are read as Go would print them. */
  numberText?: WeakMap<object, Map<string, string>>;
  /** Repeated keys from the parser: reported where Go reports them, and merged like Go merges them. */
  duplicates?: readonly DuplicateKey[];
  /** Visit object keys in sorted order (YAML bodies: upstream's YAML-to-JSON step sorts keys). */
  sortKeys?: boolean;
  /**
   * Word type errors like runtime.DefaultUnstructuredConverter (`cannot convert int64 to string`),
   * which upstream uses for strategic merge patches, instead of Go's JSON decoder; it stops at the
   * first error.
   */
  converterMessages?: boolean;
}

/** What {@link checkAgainstSchema} returns. */
export interface SchemaCheckResult {
  /** A copy without unknown fields and null-valued fields; free-form subtrees are shared with the input. */
  value: JsonValue;
  /** Paths of unknown fields, each once, in visiting order. */
  unknownFields: string[];
  /** Unknown fields and reported repeated keys, in visiting order. */
  strict: StrictFinding[];
  /** Every type error met; Go stops at a fatal one. */
  typeErrors: SchemaTypeError[];
  /** The error Go's Unmarshal returns: the fatal one if any, else the first. */
  decodeError?: SchemaTypeError;
}

/** Go's UnmarshalTypeError context: innermost struct and the JSON names of the fields leading there. */
interface GoContext {
  struct: string | undefined;
  fields: string;
}

class Stop extends Error {}

const INT_BOUNDS: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  int: [-(2n ** 63n), 2n ** 63n - 1n],
};
const FLOAT32_MAX = 3.4028234663852886e38;
const STRING_NODE: SchemaNode = { kind: 'string', schema: { type: 'string' }, goType: 'string' };

const isObj = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const child = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

function describe(v: JsonValue): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

/** Go's zero value of a map entry or list element decoded from `null`. */
function zeroOf(node: SchemaNode): JsonValue {
  switch (node.kind) {
    case 'string':
      return '';
    case 'quantity':
      return '0';
    case 'integer':
    case 'number':
    case 'intOrString':
      return 0;
    case 'boolean':
      return false;
    case 'struct':
      return {};
    default:
      return null;
  }
}

/** metav1.Time and MicroTime serialize in UTC, to the second or microsecond. */
function normalizeTime(value: string, node: SchemaNode): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(value);
  if (!m) return value;
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number(y) < 100) ms = new Date(ms).setUTCFullYear(Number(y));
  if (zone !== 'Z') ms -= (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60000;
  const base = new Date(ms).toISOString().slice(0, 19);
  const micro = node.definition?.endsWith('.MicroTime') === true;
  return micro ? `${base}.${frac.padEnd(6, '0').slice(0, 6)}Z` : `${base}Z`;
}

/** Go's kind name of a value as the unstructured converter holds it. */
function unstructuredKind(v: JsonValue, text: string): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return /^-?\d+$/.test(text) && BigInt(text) < 2n ** 63n && BigInt(text) >= -(2n ** 63n) ? 'int64' : 'float64';
  return Array.isArray(v) ? 'slice' : 'map';
}

/** What runtime.DefaultUnstructuredConverter says when it cannot store `v` in a field of `node`'s type. */
function converterError(v: JsonValue, node: SchemaNode, text: string): string | undefined {
  const src = unstructuredKind(v, text);
  switch (node.kind) {
    case 'struct':
      return `cannot restore struct from: ${src}`;
    case 'map':
      return `cannot restore map from ${src}`;
    case 'list':
    case 'bytes':
      return `cannot restore slice from ${src}`;
    case 'time':
      return `json: cannot unmarshal ${describe(v)} into Go value of type string`;
    case 'intOrString':
      return `json: cannot unmarshal ${typeof v === 'number' ? `number ${text}` : describe(v)} into Go value of type int32`;
    case 'string':
      return src === 'int64' ? 'cannot convert int64 to string' : 'unrecognized type: string';
    case 'integer':
      return src === 'float64' ? `cannot convert float64 to ${node.goType}` : `unrecognized type: ${node.goType}`;
    case 'number':
    case 'boolean':
      return `unrecognized type: ${node.goType}`;
    default:
      return undefined;
  }
}

class Walker {
  readonly unknownFields: string[] = [];
  readonly strict: StrictFinding[] = [];
  readonly typeErrors: SchemaTypeError[] = [];
  private readonly seenUnknown = new Set<string>();
  private readonly dups = new Map<object, DuplicateKey[]>();

  constructor(
    private readonly resolver: SchemaResolver,
    private readonly opts: SchemaCheckOptions,
  ) {
    for (const d of opts.duplicates ?? []) {
      const list = this.dups.get(d.container);
      if (list) list.push(d);
      else this.dups.set(d.container, [d]);
    }
  }

  private keys(obj: JsonObject): string[] {
    const keys = Object.keys(obj);
    return this.opts.sortKeys ? keys.sort() : keys;
  }

  private literal(container: object, key: string, n: number): string {
    return this.opts.numberText?.get(container)?.get(key) ?? goJsonFloat(n);
  }

  private fail(path: string, goMessage: string, fatal = false): undefined {
    const e: SchemaTypeError = { path, goMessage };
    if (fatal) e.fatal = true;
    this.typeErrors.push(e);
    if (fatal) throw new Stop();
    return undefined;
  }

  private typeError(what: string, goType: string, path: string, ctx: GoContext, fatal = false): undefined {
    if (this.opts.converterMessages) return this.fail(path, this.converterText ?? '', true);
    const into =
      ctx.struct !== undefined || ctx.fields !== ''
        ? `Go struct field ${ctx.struct ?? ''}.${ctx.fields}`
        : 'Go value';
    return this.fail(path, `json: cannot unmarshal ${what} into ${into} of type ${goType}`, fatal);
  }

  /** Converts one non-null value; undefined when it cannot be decoded. */
  /** The unstructured converter's text for the value being visited (only in converter mode). */
  private converterText: string | undefined;

  visit(v: JsonValue, node: SchemaNode, path: string, ctx: GoContext, container: object, key: string): JsonValue | undefined {
    if (this.opts.converterMessages) this.converterText = converterError(v, node, this.literal(container, key, typeof v === 'number' ? v : 0));
    switch (node.kind) {
      case 'free':
        if (this.dups.size > 0) this.reportDupsUnder(v);
        return v;
      case 'opaque':
        return v;
      case 'struct':
        return isObj(v) ? this.struct(v, node, path, ctx) : this.typeError(describe(v), node.goType, path, ctx);
      case 'map':
        return isObj(v) ? this.map(v, node, path, ctx) : this.typeError(describe(v), node.goType, path, ctx);
      case 'list':
        return Array.isArray(v) ? this.list(v, node, path, ctx) : this.typeError(describe(v), node.goType, path, ctx);
      case 'string':
        return typeof v === 'string' ? v : this.typeError(describe(v), node.goType, path, ctx);
      case 'boolean':
        return typeof v === 'boolean' ? v : this.typeError(describe(v), node.goType, path, ctx);
      case 'bytes': {
        if (typeof v !== 'string') return this.typeError(describe(v), node.goType, path, ctx);
        const err = goBase64Error(v);
        if (err !== undefined) return this.fail(path, this.opts.converterMessages ? `error decoding from json: ${err}` : err, this.opts.converterMessages);
        // Go re-encodes the decoded bytes: line breaks and stray trailing bits disappear.
        return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v) ? v : Buffer.from(v, 'base64').toString('base64');
      }
      case 'time': {
        // metav1.Time decodes a JSON string itself; anything else fails inside its UnmarshalJSON.
        if (typeof v !== 'string') return this.typeError(describe(v), 'string', path, ctx, true);
        const err = goRfc3339Error(v);
        return err === undefined ? normalizeTime(v, node) : this.fail(path, err, true);
      }
      case 'integer':
        if (typeof v !== 'number') return this.typeError(describe(v), node.goType, path, ctx);
        return this.integer(v, node.goType, path, ctx, container, key, false);
      case 'intOrString':
        if (typeof v === 'string') return v;
        if (typeof v !== 'number') return this.typeError(describe(v), 'int32', path, ctx, true);
        return this.integer(v, 'int32', path, ctx, container, key, true);
      case 'quantity': {
        // Quantity decodes itself: a string or a bare number, stored in canonical form.
        const text = typeof v === 'string' ? v : typeof v === 'number' ? this.literal(container, key, v) : JSON.stringify(v);
        const parsed = canonicalQuantity(text);
        return 'value' in parsed ? parsed.value : this.fail(path, parsed.error, true);
      }
      case 'number': {
        if (typeof v !== 'number') return this.typeError(describe(v), node.goType, path, ctx);
        const tooBig = !Number.isFinite(v) || (node.goType === 'float32' && Math.abs(v) > FLOAT32_MAX);
        return tooBig ? this.typeError(`number ${this.literal(container, key, v)}`, node.goType, path, ctx) : v;
      }
    }
  }

  private integer(v: number, goType: string, path: string, ctx: GoContext, container: object, key: string, fatal: boolean): JsonValue | undefined {
    const text = this.literal(container, key, v);
    const bounds = INT_BOUNDS[goType] ?? INT_BOUNDS['int64'];
    if (/^-?\d+$/.test(text) && bounds) {
      const n = BigInt(text);
      if (n >= bounds[0] && n <= bounds[1]) return v;
    }
    return this.typeError(`number ${text}`, goType, path, ctx, fatal);
  }

  private struct(obj: JsonObject, node: SchemaNode, path: string, ctx: GoContext): JsonObject {
    const dups = this.dups.get(obj);
    const merged = dups ? this.mergeRepeated(obj, node, dups) : obj;
    const out: JsonObject = {};
    const name = structName(node);
    for (const key of this.keys(merged)) {
      let field = this.resolver.field(node, key);
      if (field === undefined && path === '' && (key === 'apiVersion' || key === 'kind')) field = STRING_NODE;
      const p = child(path, key);
      if (field === undefined && node.schema['x-kubernetes-preserve-unknown-fields'] === true) {
        // Custom resource schemas may keep fields they do not list beside the ones they do.
        const kept = merged[key];
        if (kept !== undefined && kept !== null) setOwn(out, key, kept);
        continue;
      }
      if (field === undefined) {
        if (!this.seenUnknown.has(p)) {
          this.seenUnknown.add(p);
          this.unknownFields.push(p);
          this.strict.push({ kind: 'unknown', path: p });
        }
        continue;
      }
      const v = merged[key];
      // Custom resource schemas may allow null (`nullable`): such a null is a value, not an absence.
      if (v === null && field.schema['nullable'] === true) setOwn(out, key, null);
      if (v !== null && v !== undefined) {
        const r = this.visit(v, field, p, { struct: name, fields: child(ctx.fields, key) }, obj, key);
        if (r !== undefined && r !== null) setOwn(out, key, r);
      }
      for (const d of dups ?? []) {
        if (d.key !== key) continue;
        this.strict.push({ kind: 'duplicate', path: d.path, offset: d.offset });
        // A replaced (not merged) earlier value was still decoded by Go, repeated keys and all.
        if (field.kind !== 'struct' && field.kind !== 'map') this.reportDupsUnder(d.previous);
      }
    }
    return out;
  }

  /** Go decodes a repeated struct field into the value decoded so far: objects merge. */
  private mergeRepeated(obj: JsonObject, node: SchemaNode, dups: DuplicateKey[]): JsonObject {
    const out: JsonObject = { ...obj };
    const keys = new Set(dups.map((d) => d.key));
    for (const key of keys) {
      const field = this.resolver.field(node, key);
      if (field === undefined) continue;
      const occurrences = [...dups.filter((d) => d.key === key).map((d) => d.previous), obj[key] as JsonValue];
      setOwn(out, key, occurrences.reduce((acc, next) => this.decodeInto(acc, next, field)));
    }
    return out;
  }

  private decodeInto(existing: JsonValue, incoming: JsonValue, node: SchemaNode): JsonValue {
    if (!isObj(existing) || !isObj(incoming) || (node.kind !== 'map' && node.kind !== 'struct')) return incoming;
    const out: JsonObject = { ...existing };
    // The merged copy stands for both objects: keep their repeated keys reportable.
    const carried = [...(this.dups.get(existing) ?? []), ...(this.dups.get(incoming) ?? [])];
    if (carried.length > 0) this.dups.set(out, carried);
    if (node.kind === 'map') return Object.assign(out, incoming);
    for (const key of Object.keys(incoming)) {
      const field = this.resolver.field(node, key);
      const next = incoming[key] as JsonValue;
      const prev = existing[key];
      setOwn(out, key, field !== undefined && prev !== undefined ? this.decodeInto(prev, next, field) : next);
    }
    return out;
  }

  private map(obj: JsonObject, node: SchemaNode, path: string, ctx: GoContext): JsonObject {
    const values = this.resolver.mapValues(node);
    const out: JsonObject = {};
    for (const key of this.keys(obj)) {
      const v = obj[key] as JsonValue;
      const r = v === null ? zeroOf(values) : this.visit(v, values, child(path, key), ctx, obj, key);
      if (r !== undefined) setOwn(out, key, r);
    }
    this.reportDups(obj);
    return out;
  }

  /** Reports the repeated keys of one object, and those inside the values they replaced. */
  private reportDups(obj: object): void {
    for (const d of this.dups.get(obj) ?? []) {
      this.strict.push({ kind: 'duplicate', path: d.path, offset: d.offset });
      this.reportDupsUnder(d.previous);
    }
  }

  private list(arr: JsonValue[], node: SchemaNode, path: string, ctx: GoContext): JsonValue[] {
    const items = this.resolver.listItems(node);
    const out: JsonValue[] = [];
    for (let i = 0; i < arr.length; i++) {
      const v = arr[i] as JsonValue;
      const r = v === null ? zeroOf(items) : this.visit(v, items, `${path}[${i}]`, ctx, arr, String(i));
      if (r !== undefined) out.push(r);
    }
    return out;
  }

  /** Free-form values decode into interface{}, where sigs.k8s.io/json still sees repeated keys. */
  private reportDupsUnder(v: JsonValue): void {
    if (Array.isArray(v)) {
      for (const e of v) this.reportDupsUnder(e);
    } else if (isObj(v)) {
      this.reportDups(v);
      for (const e of Object.values(v)) if (e !== undefined) this.reportDupsUnder(e);
    }
  }

  root(v: JsonValue, node: SchemaNode): JsonValue {
    const noCtx: GoContext = { struct: undefined, fields: '' };
    // Go decodes `null` into an object as a no-op: an empty object.
    if (v === null) return node.kind === 'struct' || node.kind === 'map' ? {} : null;
    return this.visit(v, node, '', noCtx, {}, '') ?? null;
  }
}

/**
 * Checks a decoded value against a definition the way upstream's typed decoder does: unknown
 * fields (struct keys not in `properties`; `apiVersion`/`kind` are always known at the top) are
 * collected and removed, values of the wrong type become Go's decode errors, and null fields are
 * dropped (null map entries and list items become the zero value of their type, as in Go).
 * @throws Error when `rootDefinitionName` or a `$ref` names no definition.
 */
export function checkAgainstSchema(
  value: JsonValue,
  definitions: Definitions,
  rootDefinitionName: string,
  opts: SchemaCheckOptions = {},
): SchemaCheckResult {
  const resolver = resolverFor(definitions);
  const walker = new Walker(resolver, opts);
  let out: JsonValue = null;
  try {
    out = walker.root(value, resolver.definition(rootDefinitionName));
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  }
  const errors = walker.typeErrors;
  const last = errors[errors.length - 1];
  const decodeError = last?.fatal ? last : errors[0];
  const result: SchemaCheckResult = {
    value: out,
    unknownFields: walker.unknownFields,
    strict: walker.strict,
    typeErrors: errors,
  };
  if (decodeError) result.decodeError = decodeError;
  return result;
}

