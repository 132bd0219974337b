import { isDeepStrictEqual } from 'node:util';
import { invalid, validateObjectMeta, validateObjectMetaUpdate, type KubeObject, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { ResourceStrategy, SubresourceStrategy } from '../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../tables/columns.js';
import { ageOf } from '../../tables/human-duration.js';
import { column } from '../apps/workload/table.js';
import { reshaped } from '../core/pod-spec/go-shape.js';
import { statusPrepare } from '../status-subresource.js';
import { isDefaultStorageClass, type CSIDriver, type CSINode, type CSIStorageCapacity, type StorageClass, type VolumeAttachment } from './types.js';
import {
  validateCSIDriverSpec,
  validateCSIDriverUpdate,
  validateCSINodeSpec,
  validateCSINodeUpdate,
  validateCSIStorageCapacity,
  validateCSIStorageCapacityUpdate,
  validateStorageClass,
  validateStorageClassUpdate,
  validateVolumeAttachment,
  validateVolumeAttachmentV1,
} from './validation.js';

const clusterMeta: ObjectMetaOptions = { namespaced: false, nameValidator: 'subdomain' };
const namespacedMeta: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain' };
const age = (o: KubeObject) => ageOf(o.metadata.creationTimestamp, new Date());
const base = { allowCreateOnUpdate: false, allowUnconditionalUpdate: true } as const;

/** Upstream's SetDefaults_StorageClass. Mutates sc. */
export function defaultStorageClass(sc: StorageClass): void {
  sc.reclaimPolicy ??= 'Delete';
  sc.volumeBindingMode ??= 'Immediate';
}

/** StorageClass (storage/v1, cluster-scoped, sc): provisioner, parameters and policies are fixed. */
export const storageClassStrategy = {
  ...base,
  namespaceScoped: false,
  prepareForCreate: (sc: StorageClass) => defaultStorageClass(sc),
  prepareForUpdate: (sc: StorageClass) => defaultStorageClass(sc),
  validate: (sc: StorageClass) => [...validateObjectMeta(sc.metadata, clusterMeta), ...validateStorageClass(sc)],
  validateUpdate: (sc: StorageClass, old: StorageClass) => [
    ...validateObjectMetaUpdate(sc.metadata, old.metadata, clusterMeta),
    ...validateStorageClass(sc),
    ...validateStorageClassUpdate(sc, old),
  ],
  table: {
    columns: [
      nameColumn,
      column('Provisioner', 'string', 'The volume plugin that provisions volumes of this class.'),
      column('ReclaimPolicy', 'string', 'What happens to provisioned volumes when released.'),
      column('VolumeBindingMode', 'string', 'When claims are bound and provisioned.'),
      column('AllowVolumeExpansion', 'string', 'Whether claims of this class may grow.'),
      ageColumn,
    ],
    cells: (sc: StorageClass) => [
      `${sc.metadata.name ?? ''}${isDefaultStorageClass(sc) ? ' (default)' : ''}`,
      sc.provisioner ?? '',
      sc.reclaimPolicy ?? 'Delete',
      sc.volumeBindingMode ?? 'Immediate',
      sc.allowVolumeExpansion ?? false,
      age(sc),
    ],
  },
} satisfies ResourceStrategy<StorageClass>;

/** Upstream's SetDefaults_CSIDriver (v1.24 gates). Mutates d. */
export function defaultCSIDriver(d: CSIDriver): void {
  const spec = (d.spec ??= {});
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (!spec.volumeLifecycleModes?.length) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
}

/** CSIDriver (storage/v1, cluster-scoped): generation counts changes of tokenRequests and requiresRepublish. */
export const csiDriverStrategy = {
  ...base,
  namespaceScoped: false,
  prepareForCreate: (d: CSIDriver) => defaultCSIDriver(d),
  prepareForUpdate: (d: CSIDriver, old: CSIDriver) => {
    defaultCSIDriver(d);
    const changed = !isDeepStrictEqual(d.spec?.tokenRequests, old.spec?.tokenRequests) || d.spec?.requiresRepublish !== old.spec?.requiresRepublish;
    d.metadata.generation = changed ? (old.metadata.generation ?? 0) + 1 : old.metadata.generation;
    if (d.metadata.generation === undefined) delete d.metadata.generation;
  },
  validate: (d: CSIDriver) => [...validateObjectMeta(d.metadata, clusterMeta), ...validateCSIDriverSpec(d)],
  validateUpdate: (d: CSIDriver, old: CSIDriver) => [...validateObjectMetaUpdate(d.metadata, old.metadata, clusterMeta), ...validateCSIDriverUpdate(d, old)],
  table: {
    columns: [
      nameColumn,
      column('AttachRequired', 'boolean', 'Whether volumes of the driver need an attach step.'),
      column('PodInfoOnMount', 'boolean', 'Whether the driver gets pod information on mount.'),
      column('StorageCapacity', 'boolean', 'Whether the scheduler considers the storage capacity the driver reports.'),
      column('TokenRequests', 'string', 'Audiences of the service account tokens the driver gets.'),
      column('RequiresRepublish', 'boolean', 'Whether the driver wants NodePublishVolume called periodically.'),
      column('Modes', 'string', 'The volume lifecycle modes the driver supports.'),
      ageColumn,
    ],
    cells: (d: CSIDriver) => {
      const spec = d.spec ?? {};
      return [
        d.metadata.name ?? '',
        spec.attachRequired ?? true,
        spec.podInfoOnMount ?? false,
        spec.storageCapacity ?? false,
        spec.tokenRequests ? spec.tokenRequests.map((t) => t.audience ?? '').join(',') : '<unset>',
        spec.requiresRepublish ?? false,
        spec.volumeLifecycleModes?.length ? spec.volumeLifecycleModes.join(',') : '<none>',
        age(d),
      ];
    },
  },
} satisfies ResourceStrategy<CSIDriver>;

/** CSINode (storage/v1, cluster-scoped, named after its Node): a registered driver never changes. */
export const csiNodeStrategy = {
  ...base,
  namespaceScoped: false,
  prepareForCreate: () => {},
  prepareForUpdate: () => {},
  validate: (n: CSINode) => [...validateObjectMeta(n.metadata, clusterMeta), ...validateCSINodeSpec(n)],
  validateUpdate: (n: CSINode, old: CSINode) => [
    ...validateObjectMetaUpdate(n.metadata, old.metadata, clusterMeta),
    ...validateCSINodeSpec(n),
    ...validateCSINodeUpdate(n, old),
  ],
  table: {
    columns: [nameColumn, column('Drivers', 'integer', 'The number of CSI drivers registered on the node.'), ageColumn],
    cells: (n: CSINode) => [n.metadata.name ?? '', (n.spec?.drivers ?? []).length, age(n)],
  },
} satisfies ResourceStrategy<CSINode>;

const volumeAttachmentStatus: SubresourceStrategy<VolumeAttachment> = {
  // Upstream's status strategy resets metadata to the stored one (ResetObjectMetaForStatus).
  merge: (requested, current) => reshaped({ ...current, status: requested.status ?? {} }),
  validateUpdate: (va, old) => [...validateObjectMetaUpdate(va.metadata, old.metadata, clusterMeta), ...validateVolumeAttachment(va)],
};

/** VolumeAttachment (storage/v1, cluster-scoped) with `status`: the spec never changes. */
export const volumeAttachmentStrategy = {
  ...base,
  namespaceScoped: false,
  // Nothing to default; a new attachment has no status until the attacher writes one.
  ...statusPrepare<VolumeAttachment>(() => {}, 'none'),
  validate: (va: VolumeAttachment) => [...validateObjectMeta(va.metadata, clusterMeta), ...validateVolumeAttachment(va), ...validateVolumeAttachmentV1(va)],
  validateUpdate: (va: VolumeAttachment, old: VolumeAttachment) => [
    ...validateObjectMetaUpdate(va.metadata, old.metadata, clusterMeta),
    ...validateVolumeAttachment(va),
    ...(isDeepStrictEqual(va.spec, old.spec) ? [] : [invalid('spec', va.spec ?? {}, 'field is immutable')]),
  ],
  subresources: { status: volumeAttachmentStatus },
  table: {
    columns: [
      nameColumn,
      { ...column('Attacher', 'string', 'The CSI driver that attaches the volume.'), format: 'name' },
      column('PV', 'string', 'The persistent volume attached.'),
      column('Node', 'string', 'The node the volume is attached to.'),
      column('Attached', 'boolean', 'Whether the volume is attached.'),
      ageColumn,
    ],
    cells: (va: VolumeAttachment) => [
      va.metadata.name ?? '',
      va.spec?.attacher ?? '',
      va.spec?.source?.persistentVolumeName ?? '',
      va.spec?.nodeName ?? '',
      va.status?.attached ?? false,
      age(va),
    ],
  },
} satisfies ResourceStrategy<VolumeAttachment>;

/** CSIStorageCapacity (storage/v1, namespaced): nodeTopology and storageClassName are fixed. */
export const csiStorageCapacityStrategy = {
  ...base,
  namespaceScoped: true,
  prepareForCreate: () => {},
  prepareForUpdate: () => {},
  validate: (c: CSIStorageCapacity) => [...validateObjectMeta(c.metadata, namespacedMeta), ...validateCSIStorageCapacity(c)],
  validateUpdate: (c: CSIStorageCapacity, old: CSIStorageCapacity) => [
    ...validateObjectMetaUpdate(c.metadata, old.metadata, namespacedMeta),
    ...validateCSIStorageCapacity(c),
    ...validateCSIStorageCapacityUpdate(c, old),
  ],
  table: {
    columns: [
      nameColumn,
      column('StorageClassName', 'string', 'The storage class the capacity is for.'),
      column('Capacity', 'string', 'The capacity available for new volumes.'),
    ],
    cells: (c: CSIStorageCapacity) => [c.metadata.name ?? '', c.storageClassName ?? '', c.capacity ?? '<unset>'],
  },
} satisfies ResourceStrategy<CSIStorageCapacity>;
