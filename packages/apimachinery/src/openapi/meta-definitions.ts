import type { JsonObject } from '../meta/types.js';
import { metaDiscoveryDefinitions } from './meta-discovery-definitions.js';
import { metaObjectDefinitions } from './meta-object-definitions.js';
import { metaRequestDefinitions, type GroupVersion } from './meta-request-definitions.js';

/**
 * The group versions the server registers meta kinds in by default: core v1 plus the named groups
 * of DESIGN "Resources served", each under the configured API domain.
 */
export function defaultGroupVersions(apiDomain: string): GroupVersion[] {
  return [
    { group: '', version: 'v1' },
    { group: `authentication.${apiDomain}`, version: 'v1' },
    { group: `authorization.${apiDomain}`, version: 'v1' },
    { group: `certificates.${apiDomain}`, version: 'v1' },
    { group: `coordination.${apiDomain}`, version: 'v1' },
    { group: `rbac.authorization.${apiDomain}`, version: 'v1' },
    { group: `apiextensions.${apiDomain}`, version: 'v1' },
  ];
}

/**
 * OpenAPI v2-style definitions (refs are `#/definitions/...`) of the shared
 * `io.k8s.apimachinery.pkg.apis.meta.v1.*` types plus `runtime.RawExtension`. Definition names
 * stay upstream's (clients find kinds by their GVK extension, not by name); the groups inside
 * `x-kubernetes-group-version-kind` are derived from `apiDomain`. `groupVersions` lists the group
 * versions DeleteOptions and WatchEvent are registered in (default: {@link defaultGroupVersions}).
 * Returns a fresh object on each call.
 */
export function metaDefinitions(
  apiDomain: string,
  groupVersions: readonly GroupVersion[] = defaultGroupVersions(apiDomain),
): Record<string, JsonObject> {
  return {
    ...metaObjectDefinitions(),
    ...metaRequestDefinitions(groupVersions),
    ...metaDiscoveryDefinitions(),
  };
}
