import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml';
import { yamlAliasProblem } from './yaml-aliases.js';
import type { JsonValue } from '../meta/types.js';

/** A YAML syntax error, worded `yaml: line N: ...` like go-yaml's (the detail is the parser's own). */
export class YamlSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlSyntaxError';
  }
}

/** A key repeated within one YAML mapping. */
export interface YamlDuplicate {
  /** 1-based line of the repeated key's value node, as go-yaml v2 reports it. */
  line: number;
  /** go-yaml's item text: `line 5: key "a" already set in map`. */
  text: string;
  /** Path of the repeated key, in strict-error path form. */
  path: string;
}

/** What {@link parseYamlStrict} returns. */
export interface YamlParseResult {
  /** The first document as JSON data (last occurrence of a repeated key wins, as upstream's YAML-to-JSON step). */
  value: JsonValue;
  /** Repeated keys in the order go-yaml's strict mode lists them (inner mappings first). */
  duplicates: YamlDuplicate[];
}

/** Tags go-yaml v2 does not resolve into special values; left unresolved they stay plain text or collections. */
const UNSUPPORTED_TAGS = /:(timestamp|binary|set|omap|pairs)$/;

/** Renders a resolved key as Go's %#v does for the types go-yaml produces. */
function goKeyText(key: unknown): string {
  if (typeof key === 'string') return JSON.stringify(key);
  if (key === null || key === undefined) return '<nil>';
  return String(key);
}

/** A decoded YAML value as Go's %#v prints what go-yaml v2 decodes it into (interface{} values). */
function goSharpV(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSharpV).join(', ')}}`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[interface {}]interface {}{${entries.map(([k, v]) => `${JSON.stringify(k)}:${goSharpV(v)}`).join(', ')}}`;
  }
  return String(value);
}

/** Identity of a key as go-yaml compares them: resolved type and value (`1` and `"1"` differ). */
function keyIdentity(key: unknown): string {
  return `${typeof key}:${String(key)}`;
}

/** go-yaml's strict-mode error for repeated keys (what upstream wraps and splits into warnings). */
export function yamlDuplicatesMessage(duplicates: readonly YamlDuplicate[]): string {
  return `yaml: unmarshal errors:\n  ${duplicates.map((d) => d.text).join('\n  ')}`;
}

function jsonSafe(value: unknown): JsonValue {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new YamlSyntaxError(`json: unsupported value: ${Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf'}`);
  }
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) {
      const safe = jsonSafe(v);
      if (k === '__proto__') Object.defineProperty(out, k, { value: safe, enumerable: true, writable: true, configurable: true });
      else out[k] = safe;
    }
    return out;
  }
  return value as JsonValue;
}

/**
 * Parses a YAML body as upstream does (go-yaml v2 / YAML 1.1 scalars, first document only) and
 * lists every repeated mapping key the way go-yaml's strict mode does.
 * @throws YamlSyntaxError for malformed YAML or values JSON cannot carry (NaN, infinities).
 */
export function parseYamlStrict(text: string): YamlParseResult {
  try {
    return parseYamlDocument(text);
  } catch (e) {
    // Nesting deep enough to exhaust the stack is a property of the input, not a server fault.
    if (e instanceof RangeError) throw new YamlSyntaxError('yaml: exceeded max depth of 10000');
    if (e instanceof YamlSyntaxError) throw e;
    // What the yaml package finds only while building values (bad merge keys, complex keys) is a
    // property of the document like any syntax error.
    const message = (e as Error).message;
    throw new YamlSyntaxError(/^Merge sources/.test(message) ? 'yaml: map merge requires map or sequence of maps as the value' : `yaml: ${message}`);
  }
}

function parseYamlDocument(text: string): YamlParseResult {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, {
    version: '1.1',
    uniqueKeys: false,
    merge: true,
    lineCounter,
    customTags: (tags) => tags.filter((t) => typeof t === 'string' || (!UNSUPPORTED_TAGS.test(t.tag) && t.format !== 'TIME')),
  });
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (doc === undefined) return { value: null, duplicates: [] };
  const first = doc.errors[0];
  if (first) {
    const line = lineCounter.linePos(first.pos[0]).line;
    const detail = (first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new YamlSyntaxError(`yaml: line ${line}: ${detail.charAt(0).toLowerCase()}${detail.slice(1)}`);
  }
  const duplicates: YamlDuplicate[] = [];
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;

  const walk = (node: unknown, path: string): void => {
    if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, `${path}[${i}]`));
      return;
    }
    if (!isMap(node)) return;
    const seen = new Set<string>();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as Node | null;
      // A mapping or sequence as a key (`? [a, b]`) has no JSON form: go-yaml refuses it.
      const resolvedKey = isAlias(keyNode) ? keyNode.resolve(doc) : keyNode;
      if (isMap(resolvedKey) || isSeq(resolvedKey)) {
        throw new YamlSyntaxError(`yaml: invalid map key: ${goSharpV(resolvedKey.toJSON())}`);
      }
      const key: unknown = isScalar(keyNode) ? keyNode.value : keyNode === null ? null : keyNode.toJSON();
      if (key === '<<' && (isAlias(pair.value) || isMap(pair.value) || isSeq(pair.value))) continue;
      const name = typeof key === 'string' ? key : String(key);
      const childPath = path === '' ? name : `${path}.${name}`;
      walk(pair.value, childPath);
      const id = keyIdentity(key);
      if (seen.has(id)) {
        const valueNode = pair.value as Node | null;
        const at = valueNode?.range?.[0] ?? keyNode?.range?.[0] ?? 0;
        const line = lineOf(at);
        duplicates.push({ line, text: `line ${line}: key ${goKeyText(key)} already set in map`, path: childPath });
      }
      seen.add(id);
    }
  };
  walk(doc.contents, '');

  const aliasProblem = yamlAliasProblem(doc);
  if (aliasProblem) throw new YamlSyntaxError(`yaml: ${aliasProblem}`);
  // The alias guard above is go-yaml's, which allows documents the yaml package's own count would
  // refuse (more than 100 aliases in an ordinary manifest), so that count is off.
  const value = jsonSafe(doc.toJS({ maxAliasCount: -1 }));
  return { value, duplicates };
}
