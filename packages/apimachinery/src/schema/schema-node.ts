import type { JsonObject, JsonValue } from '../meta/types.js';

/** OpenAPI v2-style definitions by name (`#/definitions/<name>` targets). */
export type Definitions = Readonly<Record<string, JsonObject>>;

/**
 * How the decoder treats a value, derived from its schema: the Go type upstream decodes into.
 * - `struct`: `properties`; other keys are unknown fields.
 * - `map`: `additionalProperties`; any key, values checked against `values`.
 * - `list`: `items`.
 * - `free`: anything goes and is kept (`x-kubernetes-preserve-unknown-fields`, no schema).
 * - `opaque`: `type: object` without properties (FieldsV1, RawExtension): Go types with their
 *   own JSON decoding that take any JSON as-is, so nothing inside is checked or reported.
 * - scalars: `string`, `bytes` (`format: byte`), `time` (`format: date-time`), `integer`,
 *   `number`, `boolean`, `intOrString`, `quantity` (resource.Quantity: a string or a number,
 *   parsed by its own decoder).
 */
export type NodeKind =
  | 'struct'
  | 'map'
  | 'list'
  | 'free'
  | 'opaque'
  | 'string'
  | 'bytes'
  | 'time'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'intOrString'
  | 'quantity';

/** A resolved schema node. */
export interface SchemaNode {
  kind: NodeKind;
  schema: JsonObject;
  /** Definition name when the node came through a `$ref`. */
  definition?: string;
  /** Go type as the decoder prints it (`string`, `int32`, `v1.ObjectMeta`, `map[string]string`). */
  goType: string;
}

const REF_PREFIX = '#/definitions/';
const isObj = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Resolves `$ref` (also a lone `allOf: [{$ref}]`, as upstream's generator sometimes writes). */
function deref(schema: JsonObject, defs: Definitions): { schema: JsonObject; definition?: string } {
  let s = schema;
  let definition: string | undefined;
  for (let hops = 0; hops < 32; hops++) {
    const allOf = s['allOf'];
    const ref = typeof s['$ref'] === 'string' ? s['$ref'] : Array.isArray(allOf) && allOf.length === 1 && isObj(allOf[0]) ? allOf[0]['$ref'] : undefined;
    if (typeof ref !== 'string' || !ref.startsWith(REF_PREFIX)) break;
    definition = ref.slice(REF_PREFIX.length);
    const target = defs[definition];
    if (target === undefined) throw new Error(`schema: unknown definition ${JSON.stringify(definition)}`);
    s = target;
  }
  return definition === undefined ? { schema: s } : { schema: s, definition };
}

/** `io.k8s.api.core.v1.ConfigMap` -> `v1.ConfigMap`; Go prints named types as package.Name. */
function goNamed(definition: string): string {
  const parts = definition.split('.');
  const name = parts[parts.length - 1] ?? definition;
  const pkg = parts[parts.length - 2];
  return pkg ? `${pkg}.${name}` : name;
}

/** The bare Go struct name (`ConfigMap`), as Go's UnmarshalTypeError.Struct holds it. */
export function structName(node: SchemaNode): string {
  const dot = node.goType.lastIndexOf('.');
  return dot < 0 ? node.goType : node.goType.slice(dot + 1);
}

/**
 * Resolves and classifies schemas, memoized per schema object. Definitions tables are built once
 * and never changed afterwards (a new CRD set makes a new table), so one resolver per table,
 * {@link resolverFor}, serves every request decoded against it.
 */
export class SchemaResolver {
  private readonly cache = new WeakMap<JsonObject, SchemaNode>();
  private readonly byName = new Map<string, SchemaNode>();
  constructor(readonly definitions: Definitions) {}

  /** The node of a definition by name. @throws Error for an unknown name. */
  definition(name: string): SchemaNode {
    const hit = this.byName.get(name);
    if (hit) return hit;
    const d = this.definitions[name];
    if (d === undefined) throw new Error(`schema: unknown definition ${JSON.stringify(name)}`);
    const node = this.node({ $ref: `${REF_PREFIX}${name}` });
    this.byName.set(name, node);
    return node;
  }

  node(schema: JsonObject): SchemaNode {
    const hit = this.cache.get(schema);
    if (hit) return hit;
    const { schema: s, definition } = deref(schema, this.definitions);
    const node = this.classify(s, definition);
    this.cache.set(schema, node);
    return node;
  }

  /** Value schema of a map node (`additionalProperties: true` means free-form values). */
  mapValues(node: SchemaNode): SchemaNode {
    const ap = node.schema['additionalProperties'];
    return isObj(ap) ? this.node(ap) : FREE;
  }

  /** Item schema of a list node. */
  listItems(node: SchemaNode): SchemaNode {
    const items = node.schema['items'];
    return isObj(items) ? this.node(items) : FREE;
  }

  /** Schema of a struct field, or undefined for an unknown field. */
  field(node: SchemaNode, key: string): SchemaNode | undefined {
    const props = node.schema['properties'];
    if (!isObj(props) || !Object.hasOwn(props, key)) return undefined;
    const p = props[key];
    return isObj(p) ? this.node(p) : FREE;
  }

  private classify(s: JsonObject, definition: string | undefined): SchemaNode {
    const named = definition === undefined ? undefined : goNamed(definition);
    const make = (kind: NodeKind, goType: string): SchemaNode =>
      definition === undefined ? { kind, schema: s, goType } : { kind, schema: s, definition, goType };
    const type = s['type'];
    const format = s['format'];
    if (s['x-kubernetes-int-or-string'] === true || format === 'int-or-string') {
      return make('intOrString', named ?? 'intstr.IntOrString');
    }
    if (definition === QUANTITY_DEFINITION) return make('quantity', 'resource.Quantity');
    if (isObj(s['properties'])) return make('struct', named ?? 'struct');
    if (s['x-kubernetes-preserve-unknown-fields'] === true) return make('free', 'interface {}');
    if (type === 'object' || s['additionalProperties'] !== undefined) {
      const ap = s['additionalProperties'];
      if (ap === undefined || ap === false) return make('opaque', named ?? 'struct');
      const values = isObj(ap) ? this.node(ap) : FREE;
      return make('map', `map[string]${values.goType}`);
    }
    if (type === 'array') {
      const items = isObj(s['items']) ? this.node(s['items']) : FREE;
      return make('list', `[]${items.goType}`);
    }
    if (type === 'string') {
      if (format === 'byte') return make('bytes', '[]uint8');
      if (format === 'date-time') return make('time', named ?? 'v1.Time');
      return make('string', named ?? 'string');
    }
    if (type === 'integer') return make('integer', format === 'int32' ? 'int32' : format === 'int64' ? 'int64' : 'int');
    if (type === 'number') return make('number', format === 'float' ? 'float32' : 'float64');
    if (type === 'boolean') return make('boolean', 'bool');
    return make('free', 'interface {}');
  }
}

/** The OpenAPI name of resource.Quantity, whose JSON decoding is its own (a string or a number). */
export const QUANTITY_DEFINITION = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** A schema-less position: any JSON, kept as-is. */
export const FREE: SchemaNode = { kind: 'free', schema: {}, goType: 'interface {}' };

const resolvers = new WeakMap<Definitions, SchemaResolver>();

/**
 * The shared resolver of a definitions table: its memo of resolved nodes lasts as long as the
 * table, instead of being rebuilt for every decoded body (each request re-resolved and
 * re-classified every schema node it visited).
 */
export function resolverFor(definitions: Definitions): SchemaResolver {
  let r = resolvers.get(definitions);
  if (!r) {
    r = new SchemaResolver(definitions);
    resolvers.set(definitions, r);
  }
  return r;
}
