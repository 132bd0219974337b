import { listSchema, objectTypeMeta, type GvkMarker, type JsonObject } from '@cluster/apimachinery';
import type { Definitions } from '../registry/resource-info.js';

/**
 * A top-level kind among generated field shapes (src/generated/): what hack/gen-types cannot
 * derive from upstream's interface files, namely our own description and the group its API
 * domain puts it in.
 */
export interface TopLevelKind {
  /** Definition name prefix of its package, e.g. `io.k8s.api.batch.v1`. */
  readonly prefix: string;
  readonly gvk: GvkMarker;
  readonly description: string;
  /** Whether `<Kind>List` is added too (default true; a subresource kind like Scale has none). */
  readonly list?: boolean;
}

/**
 * The generated definitions with each top-level kind completed: its description, the object
 * envelope (apiVersion, kind, metadata) among its sorted properties, its group-version-kind, and
 * its list definition. Returns a new object; `generated` is not changed.
 * @throws Error when a kind's field shapes are not among the generated definitions.
 */
export function withTopLevelKinds(generated: Definitions, kinds: readonly TopLevelKind[]): Definitions {
  const defs: Definitions = { ...generated };
  for (const { prefix, gvk, description, list } of kinds) {
    const name = `${prefix}.${gvk.kind}`;
    const shapes = defs[name] as (JsonObject & { properties: Record<string, JsonObject> }) | undefined;
    if (!shapes) throw new Error(`no generated definition ${name}`);
    const properties: Record<string, JsonObject> = { ...shapes.properties, ...objectTypeMeta() };
    defs[name] = {
      ...shapes,
      description,
      properties: Object.fromEntries(Object.keys(properties).sort().map((k) => [k, properties[k]!])),
      'x-kubernetes-group-version-kind': [{ group: gvk.group, kind: gvk.kind, version: gvk.version }],
    };
    if (list !== false) defs[`${name}List`] = listSchema(name, { ...gvk, kind: `${gvk.kind}List` }, `The ${gvk.kind} objects.`);
  }
  return defs;
}
