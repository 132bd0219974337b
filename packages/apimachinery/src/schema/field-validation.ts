import { newBadRequest } from '../errors/status-error.js';
import type { JsonObject, JsonValue } from '../meta/types.js';
import { goQuote } from './go-text.js';
import { JsonSyntaxError, parseJsonStrict } from './parse-json-strict.js';
import { parseYamlStrict, YamlSyntaxError, yamlDuplicatesMessage } from './parse-yaml-strict.js';
import type { Definitions } from './schema-node.js';
import { checkAgainstSchema, type SchemaCheckResult, type StrictFinding } from './schema-walk.js';

/** The `fieldValidation` query parameter (SPEC 4.7); upstream's default is Warn. */
export type FieldValidationDirective = 'Ignore' | 'Warn' | 'Strict';

/** What a decode with field validation yields. */
export interface FieldValidationResult {
  /** The decoded object with unknown fields, repeated keys and null fields resolved as Go would. */
  object: JsonObject;
  /** Warning texts (one `Warning: 299 - "<text>"` header each); empty unless the directive is Warn. */
  warnings: string[];
}

/** sigs.k8s.io/json keeps at most this many strict errors. */
const MAX_STRICT_ERRORS = 100;

/** go-yaml's prefix of strict errors, which upstream strips before splitting them into warnings. */
const YAML_STRICT_PREFIXES = ['yaml: unmarshal errors:\n', 'error converting YAML to JSON: yaml: unmarshal errors:\n'];

/** Upstream's summarizeData: the first 30 bytes, as text for a JSON object, else as hex. */
export function summarizeBody(text: string, max = 30): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return '<empty>';
  const more = bytes.length > max ? ' ...' : '';
  const head = bytes.subarray(0, max);
  return bytes[0] === 0x7b ? `${head.toString('utf8')}${more}` : `${head.toString('hex')}${more}`;
}

/** Upstream's parseYAMLWarnings: one warning per line of a go-yaml strict error, others as they are. */
export function strictErrorWarnings(errors: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const prefix = YAML_STRICT_PREFIXES.find((p) => e.startsWith(p));
    if (prefix === undefined) out.push(e);
    else for (const line of e.slice(prefix.length).split('\n')) out.push(line.trim());
  }
  return out;
}

/**
 * Orders strict findings of a JSON text as the decoder meets them. Without repeated keys the
 * visiting order already is that order; with them, findings are sorted by text offset (looking
 * up the offsets of unknown fields with a second, locating parse).
 */
export function inDocumentOrder(text: string, findings: readonly StrictFinding[]): StrictFinding[] {
  if (!findings.some((f) => f.offset !== undefined)) return [...findings];
  const offsets = findings.some((f) => f.offset === undefined) ? parseJsonStrict(text, { locate: true }).keyOffsets : undefined;
  const at = (f: StrictFinding): number => f.offset ?? offsets?.get(f.path) ?? 0;
  return [...findings].sort((a, b) => at(a) - at(b));
}

/** Texts of strict findings as sigs.k8s.io/json words them, deduplicated and capped like it. */
export function strictFindingTexts(findings: readonly StrictFinding[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const f of findings) {
    if (out.length >= MAX_STRICT_ERRORS) break;
    const text = `${f.kind === 'unknown' ? 'unknown' : 'duplicate'} field ${goQuote(f.path)}`;
    if (seen.has(text)) continue;
    seen.add(text);
    out.push(text);
  }
  return out;
}

const describe = (v: JsonValue): string =>
  typeof v === 'boolean' ? 'bool' : Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v;

const FIND_KIND_TYPE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * Upstream's SimpleMetaFactory.Interpret: reads apiVersion/kind before decoding; its failures are
 * worded `couldn't get version/kind; json parse error: ...`.
 */
function interpret(value: JsonValue): { apiVersion: string; kind: string } | string {
  if (value === null) return { apiVersion: '', kind: '' };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return `json: cannot unmarshal ${describe(value)} into Go value of type ${FIND_KIND_TYPE}`;
  }
  const out = { apiVersion: '', kind: '' };
  for (const field of ['apiVersion', 'kind'] as const) {
    const v = value[field];
    if (typeof v === 'string') out[field] = v;
    else if (v !== null && v !== undefined) return `json: cannot unmarshal ${describe(v)} into Go struct field .${field} of type string`;
  }
  return out;
}

/** The 400 upstream's transformDecodeError builds when the body's kind is not known. */
function unrecognized(kind: string, cause: string, body: string): never {
  throw newBadRequest(`the object provided is unrecognized (must be of type ${kind}): ${cause} (${summarizeBody(body)})`);
}

/**
 * Decodes a create or update body (JSON or YAML) against the kind's schema as upstream's typed
 * decoder does, and applies the field validation directive to unknown and repeated fields.
 * @param definitions OpenAPI v2-style definitions (`$ref: '#/definitions/<name>'`).
 * @param rootName definition name of the kind, e.g. `io.k8s.api.core.v1.ConfigMap`.
 * @param kindForMessages the kind the endpoint serves, e.g. `ConfigMap`.
 * @param defaultVersion version used in messages when the body has no apiVersion.
 * @throws StatusError 400 BadRequest: syntax errors and unreadable envelopes (`the object provided
 * is unrecognized (must be of type K): couldn't get version/kind; json parse error: ... (<summary>)`),
 * type errors whatever the directive (`K in version "v1" cannot be handled as a K: json: cannot
 * unmarshal ...`), and under Strict all unknown and repeated fields at once (`... cannot be handled
 * as a K: strict decoding error: unknown field "spec.x", duplicate field "data"`).
 */
export function decodeWithFieldValidation(
  text: string,
  mediaType: 'json' | 'yaml',
  definitions: Definitions,
  rootName: string,
  kindForMessages: string,
  directive: FieldValidationDirective,
  defaultVersion = 'v1',
): FieldValidationResult {
  let value: JsonValue;
  let strictErrors: string[] = [];
  let check: SchemaCheckResult;
  let envelope: { apiVersion: string; kind: string } | string;
  if (mediaType === 'json') {
    let parsed;
    try {
      parsed = parseJsonStrict(text);
    } catch (e) {
      if (!(e instanceof JsonSyntaxError)) throw e;
      return unrecognized(kindForMessages, `couldn't get version/kind; json parse error: ${e.message}`, text);
    }
    value = parsed.value;
    envelope = interpret(value);
    if (typeof envelope === 'string') return unrecognized(kindForMessages, `couldn't get version/kind; json parse error: ${envelope}`, text);
    check = checkAgainstSchema(value, definitions, rootName, { numberText: parsed.numberText, duplicates: parsed.duplicates });
    if (directive !== 'Ignore' && check.decodeError === undefined) {
      strictErrors = strictFindingTexts(inDocumentOrder(text, check.strict));
    }
  } else {
    let parsed;
    try {
      parsed = parseYamlStrict(text);
    } catch (e) {
      if (!(e instanceof YamlSyntaxError)) throw e;
      return unrecognized(kindForMessages, e.message, text);
    }
    value = parsed.value;
    envelope = interpret(value);
    if (typeof envelope === 'string') return unrecognized(kindForMessages, `couldn't get version/kind; json parse error: ${envelope}`, text);
    // Upstream's YAML-to-JSON step sorts keys, so the typed decoder meets fields in sorted order.
    check = checkAgainstSchema(value, definitions, rootName, { sortKeys: true });
    if (directive !== 'Ignore' && check.decodeError === undefined) {
      if (parsed.duplicates.length > 0) strictErrors.push(yamlDuplicatesMessage(parsed.duplicates));
      strictErrors.push(...strictFindingTexts(check.strict));
    }
  }

  const kind = envelope.kind || kindForMessages;
  const apiVersion = envelope.apiVersion;
  const version = apiVersion ? apiVersion.slice(apiVersion.indexOf('/') + 1) : defaultVersion;
  const handled = `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kindForMessages}`;
  if (check.decodeError) throw newBadRequest(`${handled}: ${check.decodeError.goMessage}`);
  if (directive === 'Strict' && strictErrors.length > 0) {
    throw newBadRequest(`${handled}: strict decoding error: ${strictErrors.join(', ')}`);
  }
  const object = (check.value ?? {}) as JsonObject;
  return { object, warnings: directive === 'Warn' ? strictErrorWarnings(strictErrors) : [] };
}
