import { encodeProtoMessage, isJsonObject, type JsonObject, type JsonValue } from '@cluster/apimachinery';

/**
 * The OpenAPI v2 document in its Protobuf form (proto/openapi-v2.proto, wire-compatible with
 * gnostic's openapi.v2.Document), as upstream's kube-openapi handler serves it to clients that ask
 * for it (kubectl validation, explain, diff and apply before 1.27; client-go's OpenAPISchema()).
 * The mapping follows gnostic's JSON compiler: objects with free keys become repeated Named*
 * entries in key order, `x-` keys vendor extensions, `$ref` `_ref`, a schema's `type` and `items`
 * lists, and free-form values an Any holding YAML text (JSON text, which every YAML parser reads).
 */

/**
 * The media type clients put in Accept for the Protobuf OpenAPI v2 document (kubectl, client-go).
 * Go's mime parser refuses the `@`, so it is never a response's Content-Type.
 */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/**
 * The same type spelled with a `.`: accepted in Accept too, and the Content-Type of the answer, as
 * kube-openapi's handler sends it (client-go fails on a Content-Type it cannot parse).
 */
export const OPENAPI_V2_PROTOBUF_DOTTED = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

type Message = Record<string, unknown>;
/** A JSON value as read from an object's entry (absent entries are undefined). */
type Value = JsonValue | undefined;
/** How one JSON key maps to a field: its proto name and how the value converts. */
type FieldSpec = readonly [protoName: string, convert: (v: Value) => unknown];

const str = (v: Value): unknown => (typeof v === 'string' ? v : undefined);
const num = (v: Value): unknown => (typeof v === 'number' ? v : undefined);
const bool = (v: Value): unknown => (typeof v === 'boolean' ? v : undefined);
const strs = (v: Value): unknown => (Array.isArray(v) ? v.filter((s) => typeof s === 'string') : undefined);
/** gnostic's Any: the value as YAML text; JSON text is valid YAML and keeps strings quoted. */
const any = (v: Value): unknown => (v === undefined ? undefined : { yaml: `${JSON.stringify(v)}\n` });
const anys = (v: Value): unknown => (Array.isArray(v) ? v.map(any) : undefined);
const obj = (f: (o: JsonObject) => Message) => (v: Value): unknown => (isJsonObject(v) ? f(v) : undefined);
const list = (f: (o: JsonObject) => Message) => (v: Value): unknown => (Array.isArray(v) ? v.filter(isJsonObject).map(f) : undefined);
/** A JSON object with free keys as repeated {name, value}. */
const named = (f: (v: Value) => unknown) => (v: Value): unknown =>
  isJsonObject(v) ? Object.entries(v).map(([name, value]) => ({ name, value: f(value) })) : undefined;

function vendorExtensions(o: JsonObject): Message[] {
  return Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, value]) => ({ name, value: any(value) }));
}

/** Converts the keys of `o` named in `spec`, plus `x-` keys into `vendorField` when given. */
function convert(o: JsonObject, spec: Readonly<Record<string, FieldSpec>>, vendorField?: string): Message {
  const out: Message = {};
  for (const [key, value] of Object.entries(o)) {
    const field = spec[key];
    if (!field) continue;
    const converted = field[1](value);
    if (converted !== undefined) out[field[0]] = converted;
  }
  if (vendorField) {
    const ext = vendorExtensions(o);
    if (ext.length > 0) out[vendorField] = ext;
  }
  return out;
}

const externalDocs = obj((o) => convert(o, { description: ['description', str], url: ['url', str] }, 'vendor_extension'));

/** Validation keywords shared by schemas, parameters, items and headers. */
const VALIDATION: Readonly<Record<string, FieldSpec>> = {
  maximum: ['maximum', num],
  exclusiveMaximum: ['exclusive_maximum', bool],
  minimum: ['minimum', num],
  exclusiveMinimum: ['exclusive_minimum', bool],
  maxLength: ['max_length', num],
  minLength: ['min_length', num],
  pattern: ['pattern', str],
  maxItems: ['max_items', num],
  minItems: ['min_items', num],
  uniqueItems: ['unique_items', bool],
  enum: ['enum', anys],
  multipleOf: ['multiple_of', num],
  default: ['default', any],
};

/** Built on first use: the spec refers to `schema` itself. */
let schemaSpec: Readonly<Record<string, FieldSpec>> | undefined;

function schema(o: JsonObject): Message {
  schemaSpec ??= {
    ...VALIDATION,
    $ref: ['_ref', str],
    format: ['format', str],
    title: ['title', str],
    description: ['description', str],
    maxProperties: ['max_properties', num],
    minProperties: ['min_properties', num],
    required: ['required', strs],
    additionalProperties: [
      'additional_properties',
      (v) => (typeof v === 'boolean' ? { boolean: v } : isJsonObject(v) ? { schema: schema(v) } : undefined),
    ],
    type: ['type', (v) => (typeof v === 'string' ? { value: [v] } : Array.isArray(v) ? { value: strs(v) } : undefined)],
    items: ['items', (v) => (isJsonObject(v) ? { schema: [schema(v)] } : Array.isArray(v) ? { schema: list(schema)(v) } : undefined)],
    allOf: ['all_of', list(schema)],
    properties: ['properties', (v) => ({ additional_properties: named(obj(schema))(v) })],
    discriminator: ['discriminator', str],
    readOnly: ['read_only', bool],
    xml: [
      'xml',
      obj((x) =>
        convert(x, { name: ['name', str], namespace: ['namespace', str], prefix: ['prefix', str], attribute: ['attribute', bool], wrapped: ['wrapped', bool] }, 'vendor_extension'),
      ),
    ],
    externalDocs: ['external_docs', externalDocs],
    example: ['example', any],
  };
  return convert(o, schemaSpec, 'vendor_extension');
}

function primitivesItems(o: JsonObject): Message {
  return convert(
    o,
    { ...VALIDATION, type: ['type', str], format: ['format', str], items: ['items', obj(primitivesItems)], collectionFormat: ['collection_format', str] },
    'vendor_extension',
  );
}

const PRIMITIVE_PARAMETER: Readonly<Record<string, FieldSpec>> = {
  ...VALIDATION,
  required: ['required', bool],
  in: ['in', str],
  description: ['description', str],
  name: ['name', str],
  type: ['type', str],
  format: ['format', str],
  items: ['items', obj(primitivesItems)],
  collectionFormat: ['collection_format', str],
};

const NON_BODY_FIELDS: Readonly<Record<string, string>> = {
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
};

function parameter(o: JsonObject): Message {
  if (o.in === 'body') {
    const body = convert(o, { description: ['description', str], name: ['name', str], in: ['in', str], required: ['required', bool], schema: ['schema', obj(schema)] }, 'vendor_extension');
    return { body_parameter: body };
  }
  const field = NON_BODY_FIELDS[typeof o.in === 'string' ? o.in : ''] ?? 'query_parameter_sub_schema';
  const spec = o.in === 'query' || o.in === 'formData' ? { ...PRIMITIVE_PARAMETER, allowEmptyValue: ['allow_empty_value', bool] as const } : PRIMITIVE_PARAMETER;
  return { non_body_parameter: { [field]: convert(o, spec, 'vendor_extension') } };
}

function jsonReference(o: JsonObject): Message {
  return convert(o, { $ref: ['_ref', str], description: ['description', str] });
}

const parametersItem = (o: JsonObject): Message => (typeof o.$ref === 'string' ? { json_reference: jsonReference(o) } : { parameter: parameter(o) });

function header(o: JsonObject): Message {
  return convert(
    o,
    { ...VALIDATION, type: ['type', str], format: ['format', str], items: ['items', obj(primitivesItems)], collectionFormat: ['collection_format', str], description: ['description', str] },
    'vendor_extension',
  );
}

function fileSchema(o: JsonObject): Message {
  return convert(
    o,
    {
      format: ['format', str],
      title: ['title', str],
      description: ['description', str],
      default: ['default', any],
      required: ['required', strs],
      type: ['type', str],
      readOnly: ['read_only', bool],
      externalDocs: ['external_docs', externalDocs],
      example: ['example', any],
    },
    'vendor_extension',
  );
}

function response(o: JsonObject): Message {
  return convert(
    o,
    {
      description: ['description', str],
      schema: ['schema', obj((s) => (s.type === 'file' ? { file_schema: fileSchema(s) } : { schema: schema(s) }))],
      headers: ['headers', (v) => ({ additional_properties: named(obj(header))(v) })],
      examples: ['examples', (v) => ({ additional_properties: named(any)(v) })],
    },
    'vendor_extension',
  );
}

const responseValue = (o: JsonObject): Message => (typeof o.$ref === 'string' ? { json_reference: jsonReference(o) } : { response: response(o) });

function responses(o: JsonObject): Message {
  const codes = Object.entries(o)
    .filter(([k, v]) => /^([0-9]{3}|default)$/.test(k) && isJsonObject(v))
    .map(([name, v]) => ({ name, value: responseValue(v as JsonObject) }));
  const out: Message = { response_code: codes };
  const ext = vendorExtensions(o);
  if (ext.length > 0) out.vendor_extension = ext;
  return out;
}

function operation(o: JsonObject): Message {
  return convert(
    o,
    {
      tags: ['tags', strs],
      summary: ['summary', str],
      description: ['description', str],
      externalDocs: ['external_docs', externalDocs],
      operationId: ['operation_id', str],
      produces: ['produces', strs],
      consumes: ['consumes', strs],
      parameters: ['parameters', list(parametersItem)],
      responses: ['responses', obj(responses)],
      schemes: ['schemes', strs],
      deprecated: ['deprecated', bool],
      security: ['security', list(securityRequirement)],
    },
    'vendor_extension',
  );
}

function pathItem(o: JsonObject): Message {
  const op = obj(operation);
  return convert(
    o,
    {
      $ref: ['_ref', str],
      get: ['get', op],
      put: ['put', op],
      post: ['post', op],
      delete: ['delete', op],
      options: ['options', op],
      head: ['head', op],
      patch: ['patch', op],
      parameters: ['parameters', list(parametersItem)],
    },
    'vendor_extension',
  );
}

function paths(o: JsonObject): Message {
  const out: Message = {
    path: Object.entries(o)
      .filter(([k, v]) => k.startsWith('/') && isJsonObject(v))
      .map(([name, v]) => ({ name, value: pathItem(v as JsonObject) })),
  };
  const ext = vendorExtensions(o);
  if (ext.length > 0) out.vendor_extension = ext;
  return out;
}

function securityRequirement(o: JsonObject): Message {
  return { additional_properties: Object.entries(o).map(([name, v]) => ({ name, value: { value: strs(v) ?? [] } })) };
}

const OAUTH2_FIELDS: Readonly<Record<string, string>> = {
  implicit: 'oauth2_implicit_security',
  password: 'oauth2_password_security',
  application: 'oauth2_application_security',
  accessCode: 'oauth2_access_code_security',
};

function securityDefinition(o: JsonObject): Message {
  const spec: Record<string, FieldSpec> = {
    type: ['type', str],
    name: ['name', str],
    in: ['in', str],
    description: ['description', str],
    flow: ['flow', str],
    scopes: ['scopes', (v) => ({ additional_properties: named(str)(v) })],
    authorizationUrl: ['authorization_url', str],
    tokenUrl: ['token_url', str],
  };
  const converted = convert(o, spec, 'vendor_extension');
  if (o.type === 'basic') return { basic_authentication_security: converted };
  if (o.type === 'oauth2') return { [OAUTH2_FIELDS[String(o.flow)] ?? 'oauth2_implicit_security']: converted };
  return { api_key_security: converted };
}

function info(o: JsonObject): Message {
  return convert(
    o,
    {
      title: ['title', str],
      version: ['version', str],
      description: ['description', str],
      termsOfService: ['terms_of_service', str],
      contact: ['contact', obj((c) => convert(c, { name: ['name', str], url: ['url', str], email: ['email', str] }, 'vendor_extension'))],
      license: ['license', obj((l) => convert(l, { name: ['name', str], url: ['url', str] }, 'vendor_extension'))],
    },
    'vendor_extension',
  );
}

/** The Document message for a Swagger 2.0 JSON document, as a plain object (proto field names). */
export function openApiV2Message(doc: JsonObject): Message {
  return convert(
    doc,
    {
      swagger: ['swagger', str],
      info: ['info', obj(info)],
      host: ['host', str],
      basePath: ['base_path', str],
      schemes: ['schemes', strs],
      consumes: ['consumes', strs],
      produces: ['produces', strs],
      paths: ['paths', obj(paths)],
      definitions: ['definitions', (v) => ({ additional_properties: named(obj(schema))(v) })],
      parameters: ['parameters', (v) => ({ additional_properties: named(obj(parameter))(v) })],
      responses: ['responses', (v) => ({ additional_properties: named(obj(response))(v) })],
      security: ['security', list(securityRequirement)],
      securityDefinitions: ['security_definitions', (v) => ({ additional_properties: named(obj(securityDefinition))(v) })],
      tags: [
        'tags',
        list((t) => convert(t, { name: ['name', str], description: ['description', str], externalDocs: ['external_docs', externalDocs] }, 'vendor_extension')),
      ],
      externalDocs: ['external_docs', externalDocs],
    },
    'vendor_extension',
  );
}

/** The Protobuf bytes of a Swagger 2.0 JSON document (openapi.v2.Document). */
export function encodeOpenApiV2(doc: JsonObject): Uint8Array {
  return encodeProtoMessage('openapi.v2.Document', openApiV2Message(doc));
}
