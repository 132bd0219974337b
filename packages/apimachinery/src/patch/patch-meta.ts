/** Patch metadata of one field, as the `patchStrategy`/`patchMergeKey` struct tags upstream. */
export interface FieldPatchMeta {
  /** Raw strategy list as in `x-kubernetes-patch-strategy`: `merge`, `replace`, `retainKeys`, `merge,retainKeys`. */
  patchStrategy?: string;
  /** Key that identifies elements of a merging list of objects, e.g. `name`. */
  patchMergeKey?: string;
}

/**
 * Schema navigation for strategic merge patch, mirroring upstream's LookupPatchMeta: a schema
 * describes one value; `lookup` answers for a field of that (object or map) value.
 */
export interface PatchSchema {
  /** Go kind name of the described value (`struct`, `map`, `string`, ...), used in error messages. */
  readonly name: string;
  /**
   * Patch metadata of field `key` plus the schema of its value; for a list field the schema of its
   * elements. Unknown fields get empty metadata and {@link EMPTY_PATCH_SCHEMA}.
   */
  lookup(key: string): { meta: FieldPatchMeta; schema: PatchSchema };
}

/** A schema that knows nothing: maps merge, lists replace. */
export const EMPTY_PATCH_SCHEMA: PatchSchema = {
  name: 'struct',
  lookup: () => ({ meta: {}, schema: EMPTY_PATCH_SCHEMA }),
};

/** The subset of an OpenAPI v2 (or v3 component) schema that patch metadata needs. */
export interface OpenApiSchema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  properties?: Record<string, OpenApiSchema>;
  items?: OpenApiSchema;
  additionalProperties?: OpenApiSchema | boolean;
  allOf?: OpenApiSchema[];
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
}

const REF_PREFIXES = ['#/definitions/', '#/components/schemas/'];

/**
 * Builds a {@link PatchSchema} for definition `rootDefinitionName` from OpenAPI definitions,
 * reading `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key` and following `$ref`,
 * single-element `allOf`, `properties`, `items` and `additionalProperties`. Lazy and cached, so
 * recursive definitions are fine. An unknown root yields {@link EMPTY_PATCH_SCHEMA}.
 */
export function patchMetaFromOpenApi(
  definitions: Readonly<Record<string, OpenApiSchema>>,
  rootDefinitionName: string,
): PatchSchema {
  const cache = new WeakMap<OpenApiSchema, PatchSchema>();

  const byRef = (ref: string): OpenApiSchema | undefined => {
    const prefix = REF_PREFIXES.find((p) => ref.startsWith(p));
    const name = prefix ? ref.slice(prefix.length) : undefined;
    return name !== undefined && Object.hasOwn(definitions, name) ? definitions[name] : undefined;
  };

  /** Follows `$ref` and single `allOf` wrappers to the schema that has the structure. */
  const resolve = (node: OpenApiSchema | undefined): OpenApiSchema | undefined => {
    const seen = new Set<OpenApiSchema>();
    let cur = node;
    while (cur && !seen.has(cur)) {
      seen.add(cur);
      if (cur.$ref !== undefined) cur = byRef(cur.$ref);
      else if (cur.allOf?.length === 1 && !cur.properties && !cur.items) cur = cur.allOf[0];
      else return cur;
    }
    return undefined;
  };

  /** Extension value on the node or on anything it wraps; the referencing node wins. */
  const extension = (
    node: OpenApiSchema | undefined,
    name: 'x-kubernetes-patch-strategy' | 'x-kubernetes-patch-merge-key',
  ): string | undefined => {
    const seen = new Set<OpenApiSchema>();
    let cur = node;
    while (cur && !seen.has(cur)) {
      seen.add(cur);
      const v = cur[name];
      if (typeof v === 'string') return v;
      cur = cur.$ref !== undefined ? byRef(cur.$ref) : cur.allOf?.length === 1 ? cur.allOf[0] : undefined;
    }
    return undefined;
  };

  const isArray = (n: OpenApiSchema): boolean =>
    n.type === 'array' || (Array.isArray(n.type) && n.type.includes('array')) || (n.items !== undefined && !n.properties);

  const kindName = (n: OpenApiSchema): string => {
    if (n.properties) return 'struct';
    if (n.additionalProperties && typeof n.additionalProperties === 'object') return 'map';
    const type = Array.isArray(n.type) ? n.type.find((t) => t !== 'null') : n.type;
    if (type === 'string') return 'string';
    if (type === 'boolean') return 'bool';
    if (type === 'integer') return n.format === 'int32' ? 'int32' : 'int64';
    if (type === 'number') return 'float64';
    if (type === 'array') return 'slice';
    return 'struct';
  };

  const schemaFor = (node: OpenApiSchema | undefined): PatchSchema => {
    const resolved = resolve(node);
    if (!resolved) return EMPTY_PATCH_SCHEMA;
    const cached = cache.get(resolved);
    if (cached) return cached;
    const schema: PatchSchema = {
      name: kindName(resolved),
      lookup(key: string) {
        let fieldNode: OpenApiSchema | undefined;
        const meta: FieldPatchMeta = {};
        if (resolved.properties && Object.hasOwn(resolved.properties, key)) {
          fieldNode = resolved.properties[key];
          const strategy = extension(fieldNode, 'x-kubernetes-patch-strategy');
          const mergeKey = extension(fieldNode, 'x-kubernetes-patch-merge-key');
          if (strategy !== undefined) meta.patchStrategy = strategy;
          if (mergeKey !== undefined) meta.patchMergeKey = mergeKey;
        } else if (typeof resolved.additionalProperties === 'object') {
          // Map values carry no patch metadata upstream.
          fieldNode = resolved.additionalProperties;
        } else {
          return { meta, schema: EMPTY_PATCH_SCHEMA };
        }
        const value = resolve(fieldNode);
        return { meta, schema: schemaFor(value && isArray(value) ? value.items : value) };
      },
    };
    cache.set(resolved, schema);
    return schema;
  };

  return schemaFor({ $ref: `#/definitions/${rootDefinitionName}` });
}
