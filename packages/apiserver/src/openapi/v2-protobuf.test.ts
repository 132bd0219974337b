import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';
import { findProtoDir, type JsonObject, type JsonValue } from '@cluster/apimachinery';
import { ApiCatalog } from '../server/api-catalog.js';
import { builtinResources } from '../resources/builtin.js';
import { OpenApiV2Forms } from './v2-forms.js';
import { encodeOpenApiV2, OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DOTTED } from './v2-protobuf.js';

// The served JSON document, its Protobuf form decoded with a protobufjs Root of its own (loaded
// from proto/openapi-v2.proto alone, not the codec's shared one), and a mapping back to JSON
// written here independently of the encoder: the round trip must give the JSON document again.

const root = protobuf.parse(readFileSync(join(findProtoDir(), 'openapi-v2.proto'), 'utf8'), { keepCase: true }).root;
const Document = root.lookupType('openapi.v2.Document');

type M = Record<string, unknown>;
const camel = (s: string): string => (s === '_ref' ? '$ref' : s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
const fromAny = (a: unknown): JsonValue => parseYaml((a as { yaml: string }).yaml) as JsonValue;
const namedToObject = (list: unknown, f: (v: unknown) => unknown): M =>
  Object.fromEntries(((list as M[] | undefined) ?? []).map((e) => [e.name as string, f(e.value)]));
const onlyValue = (o: unknown): unknown => Object.values(o as M)[0];

/** Field-by-field back to JSON; `special` handles the fields whose shape differs from plain. */
function plain(msg: unknown, special: Record<string, (v: unknown) => [string, unknown]> = {}): M {
  const out: M = {};
  for (const [k, v] of Object.entries(msg as M)) {
    if (k === 'vendor_extension') {
      for (const e of v as M[]) out[e.name as string] = fromAny(e.value);
    } else if (special[k]) {
      const [name, value] = special[k](v);
      out[name] = value;
    } else {
      out[camel(k)] = v;
    }
  }
  return out;
}

const anyFields = {
  default: (v: unknown): [string, unknown] => ['default', fromAny(v)],
  example: (v: unknown): [string, unknown] => ['example', fromAny(v)],
  enum: (v: unknown): [string, unknown] => ['enum', (v as unknown[]).map(fromAny)],
};

function schema(s: unknown): M {
  return plain(s, {
    ...anyFields,
    type: (v) => ['type', ((v as M).value as string[]).length === 1 ? ((v as M).value as string[])[0] : (v as M).value],
    items: (v) => ['items', ((v as M).schema as unknown[]).map(schema)[0]],
    all_of: (v) => ['allOf', (v as unknown[]).map(schema)],
    properties: (v) => ['properties', namedToObject((v as M).additional_properties, schema)],
    additional_properties: (v) => ['additionalProperties', 'boolean' in (v as M) ? (v as M).boolean : schema((v as M).schema)],
  });
}

const primitive = (p: unknown): M => plain(p, { ...anyFields, items: (v) => ['items', primitive(v)] });

function parameter(item: unknown): M {
  const i = item as M;
  if (i.json_reference) return plain(i.json_reference);
  const p = i.parameter as M;
  if (p.body_parameter) return plain(p.body_parameter, { schema: (v) => ['schema', schema(v)] });
  return primitive(onlyValue(p.non_body_parameter));
}

function responses(r: unknown): M {
  const out = namedToObject((r as M).response_code, (v) => {
    const rv = v as M;
    if (rv.json_reference) return plain(rv.json_reference);
    return plain(rv.response, { schema: (s) => ['schema', (s as M).schema ? schema((s as M).schema) : plain((s as M).file_schema)] });
  });
  return { ...out, ...plain({ vendor_extension: (r as M).vendor_extension ?? [] }) };
}

function operation(o: unknown): M {
  return plain(o, {
    parameters: (v) => ['parameters', (v as unknown[]).map(parameter)],
    responses: (v) => ['responses', responses(v)],
  });
}

function documentToJson(d: M): M {
  return plain(d, {
    info: (v) => ['info', plain(v)],
    paths: (v) => [
      'paths',
      namedToObject((v as M).path, (p) =>
        plain(p, {
          ...Object.fromEntries(['get', 'put', 'post', 'delete', 'options', 'head', 'patch'].map((m) => [m, (op: unknown): [string, unknown] => [m, operation(op)]])),
          parameters: (ps) => ['parameters', (ps as unknown[]).map(parameter)],
        }),
      ),
    ],
    definitions: (v) => ['definitions', namedToObject((v as M).additional_properties, schema)],
    security: (v) => ['security', (v as M[]).map((r) => namedToObject(r.additional_properties, (a) => (a as M).value ?? []))],
    security_definitions: (v) => ['securityDefinitions', namedToObject((v as M).additional_properties, (s) => plain(onlyValue(s)))],
  });
}

/**
 * proto3 has no empty strings or empty repeated fields on the wire (gnostic's Go form drops them
 * too); free-form values (default, example) are messages and keep theirs.
 */
function withoutProto3Zeroes(v: JsonValue, key = '', parent = ''): JsonValue {
  const freeForm = parent !== 'properties' && parent !== 'definitions' && (key === 'default' || key === 'example' || key === 'enum' || key.startsWith('x-'));
  // Security requirements are maps of scope lists, whose empty lists are entries of their own.
  if (freeForm || key === 'security') return v;
  if (Array.isArray(v)) return v.map((x) => withoutProto3Zeroes(x));
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k, x]) => !(k === 'description' && x === '') && !(Array.isArray(x) && x.length === 0 && key !== 'properties' && !['default', 'example', 'enum'].includes(k) && !k.startsWith('x-')))
      .map(([k, x]) => [k, withoutProto3Zeroes(x as JsonValue, k, key)]),
  );
}

function decode(bytes: Uint8Array): M {
  return Document.toObject(Document.decode(bytes), { longs: Number, oneofs: false }) as M;
}

describe('the Protobuf form of /openapi/v2', () => {
  const catalog = new ApiCatalog(builtinResources('k8s.io'), 'k8s.io', 'https://127.0.0.1:6443');
  const jsonAnswer = catalog.document('/openapi/v2', new URLSearchParams(), 'application/json');
  const json = JSON.parse(String(jsonAnswer?.body)) as JsonObject;

  test('decodes against proto/openapi-v2.proto and maps back to the served JSON document', () => {
    const answer = catalog.document('/openapi/v2', new URLSearchParams(), OPENAPI_V2_PROTOBUF);
    // Go's mime.ParseMediaType refuses the '@' of the requested name: the answer uses the dotted one.
    expect(answer?.contentType).toBe(OPENAPI_V2_PROTOBUF_DOTTED);
    expect(Buffer.isBuffer(answer?.body)).toBe(true);
    const decoded = decode(answer!.body as Buffer);
    expect(decoded.swagger).toBe('2.0');
    const back = documentToJson(decoded);
    const expected = withoutProto3Zeroes(json);
    // Node's deep equality is quick on an 800 kB document; jest's diff only when they differ.
    if (!isDeepStrictEqual(back, expected)) expect(back).toEqual(expected);
  });

  test('the vendor extension kubectl explain reads is there (x-kubernetes-group-version-kind)', () => {
    const decoded = decode(encodeOpenApiV2(json));
    const defs = (decoded.definitions as M).additional_properties as M[];
    const cm = defs.find((d) => d.name === 'io.k8s.api.core.v1.ConfigMap')?.value as M;
    const gvk = (cm.vendor_extension as M[]).find((e) => e.name === 'x-kubernetes-group-version-kind');
    expect(fromAny(gvk?.value)).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  });

  test('negotiation: both Protobuf names, JSON for wildcards, 406 for nothing acceptable, an ETag per form', () => {
    const forms = new OpenApiV2Forms(json);
    const pb = forms.negotiate(OPENAPI_V2_PROTOBUF);
    const old = forms.negotiate(OPENAPI_V2_PROTOBUF_DOTTED);
    expect(Buffer.compare(old.body as Buffer, pb.body as Buffer)).toBe(0);
    expect(pb.etag).toMatch(/^"[0-9A-F]{128}"$/);
    const j = forms.negotiate('*/*');
    expect(j.contentType).toBe('application/json');
    expect(j.etag).not.toBe(pb.etag);
    expect(forms.negotiate('').contentType).toBe('application/json');
    expect(forms.negotiate('application/*').contentType).toBe('application/json');
    expect(forms.negotiate(`application/json;q=0.5, ${OPENAPI_V2_PROTOBUF}`).contentType).toBe(OPENAPI_V2_PROTOBUF_DOTTED);
    expect(forms.negotiate(`${OPENAPI_V2_PROTOBUF}, application/json`).contentType).toBe(OPENAPI_V2_PROTOBUF_DOTTED);
    expect(forms.negotiate('text/html')).toMatchObject({ status: 406, vary: 'Accept' });
  });
});
