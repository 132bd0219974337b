import type { ApiClient } from '../client/api-client.js';

/** One resource the garbage collector watches and may delete from, at its group's preferred version. */
export interface GcResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** e.g. `/api/v1` or `/apis/apps/v1`. */
  groupVersionPath: string;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

/** `group/resource` of the resources upstream's collector leaves alone (events: many, never owners). */
const IGNORED = new Set(['/events', 'events.k8s.io/events']);

/** The key of a resource in maps: `group/resource`. */
export const resourceKey = (r: { group: string; resource: string }): string => `${r.group}/${r.resource}`;

/** The key of a kind in maps: `group/Kind`. */
export const kindKey = (group: string, kind: string): string => `${group}/${kind}`;

/** The group of an `apiVersion` (`apps/v1` -> `apps`, `v1` -> ``). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** What discovery found, and the group versions it could not read (an aggregated API that is down). */
export interface Discovery {
  resources: GcResource[];
  failed: string[];
}

/**
 * The deletable resources the server serves, from discovery (upstream's GetDeletableResources):
 * every resource, not subresource, that can be listed, watched and deleted, at the preferred
 * version of each group, except those upstream ignores. A group version that fails is reported in
 * `failed` and left out; throws when the core or group lists cannot be read.
 */
export async function discoverDeletableResources(client: ApiClient): Promise<Discovery> {
  const failed: string[] = [];
  const out: GcResource[] = [];
  const add = (group: string, version: string, groupVersionPath: string, resources: readonly ApiResource[]) => {
    for (const r of resources) {
      if (r.name.includes('/')) continue;
      if (!['list', 'watch', 'delete'].every((v) => r.verbs.includes(v))) continue;
      if (IGNORED.has(`${group}/${r.name}`)) continue;
      out.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, groupVersionPath });
    }
  };
  const core = (await client.call('GET', '/api/v1')) as { resources: ApiResource[] };
  add('', 'v1', '/api/v1', core.resources);
  const groups = (await client.call('GET', '/apis')) as { groups: { name: string; preferredVersion: { version: string; groupVersion: string } }[] };
  for (const g of groups.groups) {
    const gv = g.preferredVersion.groupVersion;
    try {
      const list = (await client.call('GET', `/apis/${gv}`)) as { resources: ApiResource[] };
      add(g.name, g.preferredVersion.version, `/apis/${gv}`, list.resources);
    } catch {
      failed.push(gv);
    }
  }
  return { resources: out, failed };
}
