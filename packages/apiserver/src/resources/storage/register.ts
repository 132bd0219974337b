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
  ];
}
