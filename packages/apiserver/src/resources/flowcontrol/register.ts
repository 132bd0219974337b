import { flowControlGroup } from '@cluster/apimachinery';
import type { ResourceRegistration } from '../../registry/registration.js';
import { flowSchemaStrategy, priorityLevelStrategy } from './strategy.js';
import { priorityLevelStorageToV1beta3, priorityLevelV1beta3Strategy, priorityLevelV1beta3ToStorage } from './v1beta3.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

function registration(apiDomain: string, version: string, resource: string, kind: string, strategy: ResourceRegistration['strategy']): ResourceRegistration {
  const group = flowControlGroup(apiDomain);
  const definitionName = `io.k8s.api.flowcontrol.${version}.${kind}`;
  const deprecated = version === 'v1beta1' ? { deprecatedRelease: '1.23', removedRelease: '1.26', replacementApiVersion: `${group}/v1beta2` } : undefined;
  return {
    info: {
      group,
      version,
      resource,
      singularName: kind.toLowerCase(),
      kind,
      listKind: `${kind}List`,
      namespaced: false,
      verbs: VERBS,
      subresources: [{ name: 'status', kind, verbs: ['get', 'patch', 'update'], definitionName }],
      definitionName,
      ...(version !== 'v1beta3' ? { servedByDefault: true } : {}),
      ...(version !== 'v1beta2' ? { storageVersion: 'v1beta2' } : {}),
      ...(deprecated ? { deprecated } : {}),
    },
    strategy,
  };
}

/**
 * flowcontrol.apiserver.<apiDomain> flowschemas and prioritylevelconfigurations (cluster-scoped,
 * with `status`): v1beta2, and v1beta1 over the same stored objects with upstream's deprecation
 * Warning (deprecated in 1.23, removed in 1.26; SPEC 9.4), both on by default as upstream's pre-1.24
 * betas are; and v1beta3 (upstream 1.26's shape), off unless --runtime-config turns it on.
 */
export function flowControlResources(apiDomain: string): ResourceRegistration[] {
  const out: ResourceRegistration[] = [];
  for (const version of ['v1beta2', 'v1beta1']) {
    out.push(registration(apiDomain, version, 'flowschemas', 'FlowSchema', flowSchemaStrategy(apiDomain)));
    out.push(registration(apiDomain, version, 'prioritylevelconfigurations', 'PriorityLevelConfiguration', priorityLevelStrategy(apiDomain)));
  }
  // v1beta3 (upstream 1.26): flow schemas as v1beta2; priority levels name their shares
  // nominalConcurrencyShares, converted on every read and write of the stored v1beta2 objects.
  out.push(registration(apiDomain, 'v1beta3', 'flowschemas', 'FlowSchema', flowSchemaStrategy(apiDomain)));
  const group = flowControlGroup(apiDomain);
  out.push({
    ...registration(apiDomain, 'v1beta3', 'prioritylevelconfigurations', 'PriorityLevelConfiguration', priorityLevelV1beta3Strategy(apiDomain)),
    storedAs: {
      group,
      resource: 'prioritylevelconfigurations',
      toStorage: (obj) => priorityLevelV1beta3ToStorage(obj, `${group}/v1beta2`),
      fromStorage: (obj) => priorityLevelStorageToV1beta3(obj, `${group}/v1beta3`),
    },
  });
  return out;
}
