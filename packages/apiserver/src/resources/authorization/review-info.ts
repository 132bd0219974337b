import type { ResourceInfo } from '../../registry/resource-info.js';

/** Discovery facts of an authorization/v1 review kind: create-only, named after its kind. */
export function reviewInfo(apiDomain: string, kind: string, namespaced: boolean): ResourceInfo {
  const singularName = kind.toLowerCase();
  return {
    group: `authorization.${apiDomain}`,
    version: 'v1',
    resource: `${singularName}s`,
    singularName,
    kind,
    listKind: `${kind}List`,
    namespaced,
    verbs: ['create'],
    definitionName: `io.k8s.api.authorization.v1.${kind}`,
  };
}
