import type { JsonObject, JsonValue } from '../meta/types.js';

/**
 * The merge-relevant shape of a schema node, as structured-merge-diff's schema.Atom:
 * - `scalar`: a leaf;
 * - `list`: `atomic` (replaced whole, items addressed by index), `set` (scalar items addressed by
 *   value) or `map` (object items addressed by `keys`);
 * - `map`: a struct (declared `fields`) and/or a map (`element` for other keys); `atomic` maps are
 *   replaced whole;
 * - `untyped`: no schema; the shape is deduced from the value (maps granular, lists atomic), as
 *   for custom resources without markers.
 */
export type StructuredType =
  | { readonly kind: 'scalar' }
  | { readonly kind: 'untyped' }
  | {
      readonly kind: 'list';
      readonly listType: 'atomic' | 'set' | 'map';
      readonly keys: readonly string[];
      element(): StructuredType;
    }
  | {
      readonly kind: 'map';
      readonly atomic: boolean;
      /** The type of declared field `name`, undefined when not declared. */
      field(name: string): StructuredType | undefined;
      /** Default value of declared field `name` (used for missing list-map keys). */
      fieldDefault(name: string): JsonValue | undefined;
      /** Type of undeclared keys; undefined when the schema allows none (treated as untyped). */
      element(): StructuredType | undefined;
    };

export type ListType = Extract<StructuredType, { kind: 'list' }>;
export type MapType = Extract<StructuredType, { kind: 'map' }>;

export const SCALAR: StructuredType = { kind: 'scalar' };
export const UNTYPED: StructuredType = { kind: 'untyped' };
const DEDUCED_MAP: MapType = {
  kind: 'map',
  atomic: false,
  field: () => undefined,
  fieldDefault: () => undefined,
  element: () => UNTYPED,
};
const DEDUCED_LIST: ListType = { kind: 'list', listType: 'atomic', keys: [], element: () => UNTYPED };

const isObject = (v: JsonValue | undefined): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The type that applies to `value`: untyped nodes are deduced from the value, and a value whose
 * JSON kind does not fit the schema is handled as a scalar leaf (SMD's deduceAtom).
 */
export function typeOfValue(t: StructuredType, value: JsonValue | undefined): StructuredType {
  if (value === undefined || value === null) return t.kind === 'untyped' ? SCALAR : t;
  if (t.kind === 'untyped') return isObject(value) ? DEDUCED_MAP : Array.isArray(value) ? DEDUCED_LIST : SCALAR;
  if (t.kind === 'map') return isObject(value) ? t : SCALAR;
  if (t.kind === 'list') return Array.isArray(value) ? t : SCALAR;
  return t;
}

/** The type of the value under field/key `name` of map type `t`. */
export function childOfMap(t: MapType, name: string): StructuredType {
  return t.field(name) ?? t.element() ?? UNTYPED;
}

/** Whether `name` is a declared struct field of `t`. */
export function isNamedField(t: StructuredType, name: string): boolean {
  return t.kind === 'map' && t.field(name) !== undefined;
}

/** The subset of an OpenAPI v2/v3 schema node the merge markers live on. */
interface OpenApiNode {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, OpenApiNode>;
  items?: OpenApiNode;
  additionalProperties?: OpenApiNode | boolean;
  allOf?: OpenApiNode[];
  default?: JsonValue;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
}

const REF_PREFIXES = ['#/definitions/', '#/components/schemas/'];

/**
 * Builds the {@link StructuredType} of definition `root` from OpenAPI definitions (v2
 * `#/definitions/` or v3 `#/components/schemas/` refs), reading `x-kubernetes-list-type`,
 * `x-kubernetes-list-map-keys`, `x-kubernetes-map-type` and, for lists without a list type, the
 * patch strategy (`merge` + merge key = map list, `merge` alone = set; otherwise atomic), as
 * kube-openapi's schemaconv does. Lazy, so recursive definitions are fine. An unknown root is untyped.
 */
export function structuredTypeFromOpenApi(definitions: Readonly<Record<string, JsonObject>>, root: string): StructuredType {
  const defs = definitions as Readonly<Record<string, OpenApiNode>>;
  const cache = new Map<OpenApiNode, StructuredType>();

  const byRef = (ref: string): OpenApiNode | undefined => {
    const prefix = REF_PREFIXES.find((p) => ref.startsWith(p));
    const name = prefix ? ref.slice(prefix.length) : undefined;
    return name !== undefined && Object.hasOwn(defs, name) ? defs[name] : undefined;
  };

  /** The node with structure plus the extensions seen on the way (outermost wins). */
  const resolve = (node: OpenApiNode): { node: OpenApiNode | undefined; ext: OpenApiNode } => {
    const ext: OpenApiNode = {};
    const seen = new Set<OpenApiNode>();
    let cur: OpenApiNode | undefined = node;
    while (cur && !seen.has(cur)) {
      seen.add(cur);
      for (const [k, v] of Object.entries(cur)) {
        if ((k.startsWith('x-kubernetes-') || k === 'default') && !(k in ext)) (ext as Record<string, unknown>)[k] = v;
      }
      if (cur.$ref !== undefined) cur = byRef(cur.$ref);
      else if (cur.allOf?.length === 1 && !cur.properties && !cur.items) cur = cur.allOf[0];
      else return { node: cur, ext };
    }
    return { node: undefined, ext };
  };

  const build = (start: OpenApiNode): StructuredType => {
    const hit = cache.get(start);
    if (hit) return hit;
    const { node, ext } = resolve(start);
    let t: StructuredType;
    if (!node || (ext['x-kubernetes-preserve-unknown-fields'] === true && !node.properties)) t = UNTYPED;
    else if (ext['x-kubernetes-int-or-string'] === true) t = SCALAR;
    else t = shape(node, ext);
    cache.set(start, t);
    return t;
  };

  const shape = (node: OpenApiNode, ext: OpenApiNode): StructuredType => {
    const type = Array.isArray(node.type) ? node.type.find((x) => x !== 'null') : node.type;
    if (type === 'array' || node.items) {
      const items = node.items;
      const { listType, keys } = listShape(ext);
      return { kind: 'list', listType, keys, element: () => (items ? build(items) : UNTYPED) };
    }
    if (type === 'object' || node.properties || node.additionalProperties !== undefined) {
      const props = node.properties ?? {};
      const extra = node.additionalProperties;
      const fieldTypes = new Map<string, StructuredType>();
      return {
        kind: 'map',
        atomic: ext['x-kubernetes-map-type'] === 'atomic',
        field(name) {
          if (!Object.hasOwn(props, name)) return undefined;
          let ft = fieldTypes.get(name);
          if (!ft) {
            ft = build(props[name] as OpenApiNode);
            fieldTypes.set(name, ft);
          }
          return ft;
        },
        fieldDefault: (name) => (Object.hasOwn(props, name) ? resolve(props[name] as OpenApiNode).ext.default : undefined),
        element() {
          if (typeof extra === 'object') return build(extra);
          // `type: object` with neither properties nor additionalProperties is free-form.
          if (extra === true || Object.keys(props).length === 0) return UNTYPED;
          return undefined;
        },
      };
    }
    if (type === undefined) return UNTYPED;
    return SCALAR;
  };

  const rootNode = Object.hasOwn(defs, root) ? defs[root] : undefined;
  return rootNode ? build(rootNode) : UNTYPED;
}

function listShape(ext: OpenApiNode): { listType: 'atomic' | 'set' | 'map'; keys: string[] } {
  const lt = ext['x-kubernetes-list-type'];
  if (lt === 'set') return { listType: 'set', keys: [] };
  if (lt === 'map') {
    const keys = (ext['x-kubernetes-list-map-keys'] ?? []).filter((k): k is string => typeof k === 'string');
    return keys.length > 0 ? { listType: 'map', keys } : { listType: 'atomic', keys: [] };
  }
  if (lt !== undefined) return { listType: 'atomic', keys: [] };
  const strategy = ext['x-kubernetes-patch-strategy'];
  if (strategy === 'merge' || strategy === 'merge,retainKeys') {
    const key = ext['x-kubernetes-patch-merge-key'];
    return typeof key === 'string' && key !== '' ? { listType: 'map', keys: [key] } : { listType: 'set', keys: [] };
  }
  return { listType: 'atomic', keys: [] };
}
