import type { ApiClient } from '../client/api-client.js';

/** A namespaced collection the namespace controller empties: its URL prefix and name. */
export interface NamespacedCollection {
  /** e.g. `/api/v1` or `/apis/coordination.k8s.io/v1`. */
  groupVersionPath: string;
  resource: string;
  /** Served with `deletecollection`; otherwise its objects are listed and deleted one by one. */
  deleteCollection: boolean;
}

interface ApiResource {
  name: string;
  namespaced: boolean;
  verbs: string[];
}

/**
 * Every namespaced resource (not subresource) that can be listed and deleted (as a collection or
 * one by one), at the preferred version of each group, from discovery: built-ins and custom
 * resources alike.
 */
export async function discoverNamespacedCollections(client: ApiClient): Promise<NamespacedCollection[]> {
  const out: NamespacedCollection[] = [];
  const add = (groupVersionPath: string, resources: ApiResource[]) => {
    for (const r of resources) {
      if (r.name.includes('/') || !r.namespaced) continue;
      if (!r.verbs.includes('list') || !(r.verbs.includes('delete') || r.verbs.includes('deletecollection'))) continue;
      out.push({ groupVersionPath, resource: r.name, deleteCollection: r.verbs.includes('deletecollection') });
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
