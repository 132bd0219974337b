import type { JsonObject } from '@cluster/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { ApiGroupInfo } from './documents.js';

/** Media type of aggregated discovery (with upstream's group name, which stock clients send). */
export const AGGREGATED_DISCOVERY_MEDIA_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/**
 * Aggregated discovery (`apidiscovery/v2` APIGroupDiscoveryList) for the given groups: pass
 * `[{name: '', versions: ['v1']}]` for `/api` and the named groups for `/apis`. Each version
 * lists its resources with scope, verbs and subresources; `responseKind` group/version are empty
 * when they equal the listing's, as upstream writes them. Versions without resources are omitted.
 */
export function aggregatedDiscovery(groups: readonly ApiGroupInfo[], resources: readonly ResourceInfo[], apiDomain: string): JsonObject {
  const items = groups.map((g) => ({
    metadata: g.name === '' ? {} : { name: g.name },
    versions: g.versions
      .map((version) => ({
        version,
        resources: resources
          .filter((r) => r.group === g.name && r.version === version)
          .map(resourceEntry)
          .sort((a, b) => ((a['resource'] as string) < (b['resource'] as string) ? -1 : 1)),
        freshness: 'Current',
      }))
      .filter((v) => v.resources.length > 0),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.${apiDomain}/v2`, metadata: {}, items };
}

function resourceEntry(r: ResourceInfo): JsonObject {
  const entry: JsonObject = {
    resource: r.resource,
    responseKind: { group: '', version: '', kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singularName,
    verbs: [...r.verbs].sort(),
  };
  if (r.shortNames && r.shortNames.length > 0) entry['shortNames'] = [...r.shortNames];
  if (r.categories && r.categories.length > 0) entry['categories'] = [...r.categories];
  if (r.subresources && r.subresources.length > 0) {
    entry['subresources'] = r.subresources.map((s) => ({
      subresource: s.name,
      responseKind: { group: s.group ?? '', version: s.version ?? '', kind: s.kind },
      verbs: [...s.verbs].sort(),
    }));
  }
  return entry;
}
