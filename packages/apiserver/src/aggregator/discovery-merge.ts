import type { JsonObject } from '@cluster/apimachinery';
import type { ApiGroupInfo } from '../discovery/documents.js';
import { compareVersionPriority } from '../discovery/version-priority.js';

/** An available group version served by an extension API server, as discovery lists it. */
export interface ExternalGroupVersion {
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** The `resources` of the extension's APIResourceList, once fetched (absent: not yet known). */
  resources?: readonly JsonObject[];
  /** The extension's OpenAPI v3 document of this group version, when it serves one. */
  openApiV3?: JsonObject;
  /** The extension's /openapi/v2 document (all of it; merging takes this group version's paths) and the hash of its bytes. */
  openApiV2?: { doc: JsonObject; hash: string };
}

/** The groups of /apis: local ones in their order, external ones placed by priority. */
export interface MergedGroups {
  groups: ApiGroupInfo[];
  /** Names of the groups (or group versions `g/v`) served by extensions. */
  external: Set<string>;
}

/**
 * Merges the extensions' group versions into the local groups, as upstream's aggregated /apis
 * orders them: a group's priority is the highest groupPriorityMinimum of its versions; an external
 * group goes before the first local group of lower priority (`localPriority`), external groups
 * among themselves by priority then name; versions within an external group by versionPriority,
 * then upstream's version order. A version an extension serves in a local group is listed after
 * the local ones. Pure.
 */
export function mergeExternalGroups(
  local: readonly ApiGroupInfo[],
  external: readonly ExternalGroupVersion[],
  localPriority: (group: ApiGroupInfo) => number,
): MergedGroups {
  const byGroup = new Map<string, ExternalGroupVersion[]>();
  for (const e of external) byGroup.set(e.group, [...(byGroup.get(e.group) ?? []), e]);
  const localNames = new Set(local.map((g) => g.name));
  const merged: ApiGroupInfo[] = local.map((g) => {
    const extra = (byGroup.get(g.name) ?? []).filter((e) => !g.versions.includes(e.version));
    return extra.length ? { name: g.name, versions: [...g.versions, ...sortVersions(extra)] } : g;
  });
  const externalNames = new Set<string>();
  for (const e of external) externalNames.add(`${e.group}/${e.version}`);
  const newGroups = [...byGroup]
    .filter(([name]) => !localNames.has(name))
    .map(([name, versions]) => ({ name, priority: Math.max(...versions.map((v) => v.groupPriorityMinimum)), versions: sortVersions(versions) }))
    .sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const g of newGroups) {
    externalNames.add(g.name);
    const at = merged.findIndex((l) => localNames.has(l.name) && localPriority(l) < g.priority);
    const info = { name: g.name, versions: g.versions };
    if (at < 0) merged.push(info);
    else merged.splice(at, 0, info);
  }
  return { groups: merged, external: externalNames };
}

function sortVersions(versions: readonly ExternalGroupVersion[]): string[] {
  return [...versions].sort((a, b) => b.versionPriority - a.versionPriority || compareVersionPriority(a.version, b.version)).map((v) => v.version);
}

/**
 * Aggregated discovery entries (apidiscovery/v2 APIResourceDiscovery) from an extension's
 * APIResourceList `resources`: `name/sub` entries become subresources of `name`; malformed entries
 * (an extension may send anything) are skipped. Pure.
 */
export function aggregatedResourcesFromList(resources: readonly JsonObject[]): JsonObject[] {
  const top = new Map<string, JsonObject>();
  const subs: Array<[string, JsonObject]> = [];
  for (const r of resources) {
    const name = typeof r['name'] === 'string' ? r['name'] : '';
    const kind = typeof r['kind'] === 'string' ? r['kind'] : '';
    if (!name || !kind) continue;
    const verbs = Array.isArray(r['verbs']) ? (r['verbs'] as unknown[]).filter((v): v is string => typeof v === 'string').sort() : [];
    const responseKind = { group: typeof r['group'] === 'string' ? r['group'] : '', version: typeof r['version'] === 'string' ? r['version'] : '', kind };
    const slash = name.indexOf('/');
    if (slash >= 0) {
      subs.push([name.slice(0, slash), { subresource: name.slice(slash + 1), responseKind, verbs }]);
      continue;
    }
    const entry: JsonObject = {
      resource: name,
      responseKind,
      scope: r['namespaced'] === true ? 'Namespaced' : 'Cluster',
      singularResource: typeof r['singularName'] === 'string' ? r['singularName'] : '',
      verbs,
    };
    for (const list of ['shortNames', 'categories'] as const) {
      const v = r[list];
      if (Array.isArray(v) && v.length > 0) entry[list] = v.filter((s): s is string => typeof s === 'string');
    }
    top.set(name, entry);
  }
  for (const [parent, sub] of subs) {
    const entry = top.get(parent);
    if (!entry) continue;
    entry['subresources'] = [...((entry['subresources'] as JsonObject[] | undefined) ?? []), sub];
  }
  return [...top.values()].sort((a, b) => ((a['resource'] as string) < (b['resource'] as string) ? -1 : 1));
}

/**
 * Adds the extensions' group versions whose resources are known to an aggregated discovery
 * document built for `groups` (its items in the same order), keeping each group's version order,
 * and drops groups left without versions. Returns a new document. Pure.
 */
export function withExternalAggregated(doc: JsonObject, groups: readonly ApiGroupInfo[], external: readonly ExternalGroupVersion[]): JsonObject {
  const items = (doc['items'] as JsonObject[]).map((item, i) => {
    const group = groups[i]!;
    const own = new Map(((item['versions'] as JsonObject[]) ?? []).map((v) => [v['version'] as string, v]));
    for (const e of external) {
      if (e.group !== group.name || !e.resources || own.has(e.version)) continue;
      own.set(e.version, { version: e.version, resources: aggregatedResourcesFromList(e.resources), freshness: 'Current' });
    }
    const versions = group.versions.map((v) => own.get(v)).filter((v): v is JsonObject => v !== undefined);
    return { ...item, versions };
  });
  return { ...doc, items: items.filter((i) => (i['versions'] as JsonObject[]).length > 0) };
}
