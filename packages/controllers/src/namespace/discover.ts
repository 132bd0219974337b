import type { ApiClient } from '../client/api-client.js';

/** A namespaced collection the namespace controller empties: its URL prefix and name. */
export interface NamespacedCollection {
  /** e.g. `/api/v1` or `/apis/coordination.k8s.io/v1`. */
  groupVersionPath: string;
  resource: string;
}

interface ApiResource {
  name: string;
  namespaced: boolean;
  verbs: string[];
}

/**
 * Every namespaced resource (not subresource) that can be listed and deleted as a collection, at
 * the preferred version of each group, from discovery.
 */
export async function discoverNamespacedCollections(client: ApiClient): Promise<NamespacedCollection[]> {
  const out: NamespacedCollection[] = [];
  const add = (groupVersionPath: string, resources: ApiResource[]) => {
    for (const r of resources) {
      if (r.name.includes('/') || !r.namespaced) continue;
      if (!r.verbs.includes('deletecollection') || !r.verbs.includes('list')) continue;
      out.push({ groupVersionPath, resource: r.name });
    }
  };
  const core = (await client.call('GET', '/api/v1')) as { resources: ApiResource[] };
  add('/api/v1', core.resources);
  const groups = (await client.call('GET', '/apis')) as { groups: { preferredVersion: { groupVersion: string } }[] };
  for (const g of groups.groups) {
    const gv = g.preferredVersion.groupVersion;
    const list = (await client.call('GET', `/apis/${gv}`)) as { resources: ApiResource[] };
    add(`/apis/${gv}`, list.resources);
  }
  return out;
}
