import { definitionClosure, type JsonObject, type JsonValue } from '@cluster/apimachinery';
import type { Definitions, ResourceInfo } from '../registry/resource-info.js';
import { PATCH_MEDIA_TYPES, resourcePaths, type OperationOptions, type OperationSpec, type PathSpec } from './operations.js';
import type { ParameterSpec } from './parameters.js';
import { serializeDocument, type SerializedDocument } from './hash.js';
import { BEARER_SECURITY_SCHEME, type OpenApiVersionInfo } from './v2.js';

const V2_PREFIX = '#/definitions/';
const V3_PREFIX = '#/components/schemas/';

/** Inputs of {@link buildOpenApiV3Document}. */
export interface OpenApiV3DocumentInput extends OperationOptions {
  group: string;
  version: string;
  /** Resources of any group version; only those of `group`/`version` are described. */
  resources: readonly ResourceInfo[];
  /** v2-form definitions; the ones reachable from this group version's operations are emitted. */
  definitions: Definitions;
  versionInfo: OpenApiVersionInfo;
}

/** `api/v1` or `apis/<group>/<version>`: the key of a group version in the v3 index. */
export function openApiV3Path(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/**
 * Converts a v2-form schema to OpenAPI 3.0: `#/definitions/X` refs become
 * `#/components/schemas/X`, and a `$ref` with sibling keywords (description, default) becomes
 * `allOf: [{$ref}]` beside them, since 3.0 ignores siblings of `$ref`. Returns a copy.
 */
export function toV3Schema(schema: JsonValue): JsonValue {
  if (Array.isArray(schema)) return schema.map(toV3Schema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonObject = {};
  const ref = schema['$ref'];
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' || value === undefined) continue;
    out[key] = toV3Schema(value);
  }
  if (typeof ref !== 'string') return out;
  const converted = ref.startsWith(V2_PREFIX) ? V3_PREFIX + ref.slice(V2_PREFIX.length) : ref;
  return Object.keys(out).length === 0 ? { $ref: converted } : { allOf: [{ $ref: converted }], ...out };
}

/**
 * Builds the OpenAPI 3.0 document of one group version (served at `/openapi/v3/api/v1` or
 * `/openapi/v3/apis/<group>/<version>`): its paths, with parameters, request bodies and
 * responses per media type, and `components.schemas` holding exactly the definitions those
 * operations reach. Throws when a reachable definition is missing from `definitions`.
 */
export function buildOpenApiV3Document(input: OpenApiV3DocumentInput): JsonObject {
  const mine = input.resources.filter((r) => r.group === input.group && r.version === input.version);
  const pathSpecs = resourcePaths(mine, input);
  const paths: JsonObject = {};
  const roots = new Set<string>();
  for (const p of pathSpecs) {
    paths[p.path] = v3PathItem(p);
    for (const op of p.operations) {
      if (op.body) roots.add(op.body.definition);
      for (const r of op.responses) roots.add(r.definition);
    }
  }
  const names = definitionClosure(roots, input.definitions, V2_PREFIX);
  const missing = names.filter((n) => input.definitions[n] === undefined);
  if (missing.length > 0) {
    throw new Error(`OpenAPI ${openApiV3Path(input.group, input.version)}: missing definitions ${missing.join(', ')}`);
  }
  const schemas: JsonObject = {};
  for (const name of names) schemas[name] = toV3Schema(input.definitions[name] as JsonObject);
  return {
    openapi: '3.0.0',
    info: { title: input.versionInfo.title ?? 'Kubernetes', version: input.versionInfo.gitVersion },
    paths,
    components: { schemas, securitySchemes: { BearerToken: BEARER_SECURITY_SCHEME } },
    security: [{ BearerToken: [] }],
  };
}

/** One entry of the v3 index: a group version and the hash of its served document. */
export interface OpenApiV3IndexEntry {
  group: string;
  version: string;
  hash: string;
}

/**
 * Builds the `/openapi/v3` index: `{paths: {"api/v1": {serverRelativeURL:
 * "/openapi/v3/api/v1?hash=<HASH>"}, ...}}`. A client asking for a document with a stale hash
 * should be redirected (301) to the current URL; with the current hash the reply may be cached
 * forever (upstream sends `Cache-Control: public, immutable`).
 */
export function buildOpenApiV3Index(entries: readonly OpenApiV3IndexEntry[]): JsonObject {
  const paths: JsonObject = {};
  const sorted = [...entries].sort((a, b) => (openApiV3Path(a.group, a.version) < openApiV3Path(b.group, b.version) ? -1 : 1));
  for (const e of sorted) {
    const path = openApiV3Path(e.group, e.version);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${e.hash}` };
  }
  return { paths };
}

/** Everything served under `/openapi/v3`, rendered once. */
export interface OpenApiV3Set {
  index: SerializedDocument;
  /** Keyed by {@link openApiV3Path} (`api/v1`, `apis/<group>/<version>`). */
  documents: Map<string, SerializedDocument>;
  /** The index's entries (documents of extensions are added to them). */
  entries: OpenApiV3IndexEntry[];
}

/**
 * Renders the document of every group version the resources span, and the index pointing at
 * them by hash. Throws as {@link buildOpenApiV3Document}.
 */
export function buildOpenApiV3(input: Omit<OpenApiV3DocumentInput, 'group' | 'version'>): OpenApiV3Set {
  const documents = new Map<string, SerializedDocument>();
  const entries: OpenApiV3IndexEntry[] = [];
  const seen = new Set<string>();
  for (const r of input.resources) {
    const key = openApiV3Path(r.group, r.version);
    if (seen.has(key)) continue;
    seen.add(key);
    const doc = serializeDocument(buildOpenApiV3Document({ ...input, group: r.group, version: r.version }));
    documents.set(key, doc);
    entries.push({ group: r.group, version: r.version, hash: doc.hash });
  }
  return { index: serializeDocument(buildOpenApiV3Index(entries)), documents, entries };
}

function v3PathItem(p: PathSpec): JsonObject {
  const item: JsonObject = { parameters: p.parameters.map(v3Parameter) };
  for (const op of p.operations) item[op.method] = v3Operation(op);
  return item;
}

function v3Operation(op: OperationSpec): JsonObject {
  const out: JsonObject = {
    description: op.description,
    operationId: op.operationId,
    parameters: op.parameters.map(v3Parameter),
  };
  if (op.body) {
    const schema = { $ref: V3_PREFIX + op.body.definition };
    const content: JsonObject = {};
    for (const mt of op.body.patch ? PATCH_MEDIA_TYPES : ['*/*']) content[mt] = { schema };
    out['requestBody'] = op.body.required ? { content, required: true } : { content };
  }
  const responses: JsonObject = {};
  for (const r of op.responses) {
    const content: JsonObject = {};
    for (const mt of op.produces) content[mt] = { schema: { $ref: V3_PREFIX + r.definition } };
    responses[String(r.code)] = { content, description: r.description };
  }
  out['responses'] = responses;
  out['tags'] = [op.tag];
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return out;
}

function v3Parameter(p: ParameterSpec): JsonObject {
  const out: JsonObject = { description: p.description, in: p.in, name: p.name, schema: { type: p.type, uniqueItems: true } };
  if (p.required) out['required'] = true;
  return out;
}
