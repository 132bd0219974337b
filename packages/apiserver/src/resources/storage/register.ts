import type { ResourceRegistration } from '../../registry/registration.js';
import type { ResourceStrategy } from '../../registry/strategy.js';
import type { Verb } from '../../registry/resource-info.js';
import { csiDriverStrategy, csiNodeStrategy, csiStorageCapacityStrategy, storageClassStrategy, volumeAttachmentStrategy } from './strategies.js';

const VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function kind(
  apiDomain: string,
  resource: string,
  kindName: string,
  strategy: ResourceStrategy<any>, // eslint-disable-line @typescript-eslint/no-explicit-any
  extra: { namespaced?: boolean; shortNames?: string[]; status?: boolean } = {},
): ResourceRegistration {
  const definitionName = `io.k8s.api.storage.v1.${kindName}`;
  return {
    info: {
      group: `storage.${apiDomain}`,
      version: 'v1',
      resource,
      singularName: kindName.toLowerCase(),
      kind: kindName,
      listKind: `${kindName}List`,
      namespaced: extra.namespaced ?? false,
      verbs: VERBS,
      ...(extra.shortNames ? { shortNames: extra.shortNames } : {}),
      ...(extra.status ? { subresources: [{ name: 'status', kind: kindName, verbs: ['get', 'patch', 'update'] as const, definitionName }] } : {}),
      definitionName,
    },
    strategy,
  };
}

/** storage.<apiDomain>/v1: storageclasses (sc), csidrivers, csinodes, volumeattachments (with status), csistoragecapacities (namespaced). */
export function storageResources(apiDomain: string): ResourceRegistration[] {
  return [
    kind(apiDomain, 'storageclasses', 'StorageClass', storageClassStrategy, { shortNames: ['sc'] }),
    kind(apiDomain, 'csidrivers', 'CSIDriver', csiDriverStrategy),
    kind(apiDomain, 'csinodes', 'CSINode', csiNodeStrategy),
    kind(apiDomain, 'volumeattachments', 'VolumeAttachment', volumeAttachmentStrategy, { status: true }),
    kind(apiDomain, 'csistoragecapacities', 'CSIStorageCapacity', csiStorageCapacityStrategy, { namespaced: true }),
    csiStorageCapacitiesV1beta1(apiDomain),
  ];
}

/**
 * storage/v1beta1 csistoragecapacities: v1's schema over the same stored objects, still served by
 * default upstream (deprecated in 1.24, removed in 1.27; SPEC 9.4), with the deprecation Warning.
 * The version's other kinds are removed ones and stay off unless --runtime-config asks.
 */
function csiStorageCapacitiesV1beta1(apiDomain: string): ResourceRegistration {
  const v1 = kind(apiDomain, 'csistoragecapacities', 'CSIStorageCapacity', csiStorageCapacityStrategy, { namespaced: true });
  const group = `storage.${apiDomain}`;
  return {
    ...v1,
    info: {
      ...v1.info,
      version: 'v1beta1',
      storageVersion: 'v1',
      definitionName: 'io.k8s.api.storage.v1beta1.CSIStorageCapacity',
      servedByDefault: true,
      deprecated: { deprecatedRelease: '1.24', removedRelease: '1.27', replacementApiVersion: `${group}/v1` },
    },
  };
}
