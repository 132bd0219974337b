import { required, validateObjectMetaUpdate } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { statusPrepare, statusSubresource } from '../../status-subresource.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { column } from '../../apps/workload/table.js';
import { BETA_STORAGE_CLASS_ANNOTATION, accessModesText } from './volume-common.js';
import { pvMetaOptions, validatePersistentVolume, validatePersistentVolumeUpdate, type PersistentVolume } from './validation.js';

/** Upstream's SetDefaults_PersistentVolume (and of the hostPath source). Mutates pv. */
export function defaultPersistentVolume(pv: PersistentVolume): void {
  const spec = (pv.spec ??= {});
  spec.persistentVolumeReclaimPolicy ||= 'Retain';
  spec.volumeMode ??= 'Filesystem';
  const hostPath = spec['hostPath'] as { type?: string } | undefined;
  if (hostPath && typeof hostPath === 'object') hostPath.type ??= '';
  pv.status ??= {};
  pv.status.phase ||= 'Pending';
}

/** The class of a volume: the beta annotation wins over spec.storageClassName (upstream's GetPersistentVolumeClass). */
function volumeClass(pv: PersistentVolume): string {
  return pv.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] ?? pv.spec?.storageClassName ?? '';
}

// Upstream's status updates of volumes and claims name the version they change.
const statusStrategy = statusSubresource<PersistentVolume>(pvMetaOptions, (pv) => (pv.metadata.resourceVersion ? [] : [required('resourceVersion', '')]));

/** PersistentVolume behaviour (core/v1, cluster-scoped): status only through `status`; the source never changes. */
export const persistentVolumeStrategy = {
  namespaceScoped: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  ...statusPrepare<PersistentVolume>(defaultPersistentVolume),
  validate: validatePersistentVolume,
  validateUpdate: (pv: PersistentVolume, old: PersistentVolume) => [
    ...validateObjectMetaUpdate(pv.metadata, old.metadata, pvMetaOptions),
    ...validatePersistentVolumeUpdate(pv, old),
  ],
  selectableFields: (pv: PersistentVolume) => ({ name: pv.metadata.name ?? '' }),
  subresources: { status: statusStrategy },
  table: {
    columns: [
      nameColumn,
      column('Capacity', 'string', 'The size of the volume.'),
      column('Access Modes', 'string', 'How the volume may be mounted.'),
      column('Reclaim Policy', 'string', 'What happens to the volume when its claim is released.'),
      column('Status', 'string', 'The phase of the volume.'),
      column('Claim', 'string', 'The claim bound to the volume.'),
      column('StorageClass', 'string', 'StorageClass of the pv'),
      column('Reason', 'string', 'Why the volume is in its phase.'),
      ageColumn,
      column('VolumeMode', 'string', 'Block or Filesystem.', 1),
    ],
    cells: (pv: PersistentVolume) => {
      const spec = pv.spec ?? {};
      const claim = spec.claimRef ? `${spec.claimRef.namespace ?? ''}/${spec.claimRef.name ?? ''}` : '';
      const phase = pv.metadata.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? '');
      return [
        pv.metadata.name ?? '',
        spec.capacity?.['storage'] ?? '0',
        accessModesText(spec.accessModes),
        spec.persistentVolumeReclaimPolicy ?? '',
        phase,
        claim,
        volumeClass(pv),
        pv.status?.reason ?? '',
        ageOf(pv.metadata.creationTimestamp, new Date()),
        spec.volumeMode ?? '<unset>',
      ];
    },
  },
} satisfies ResourceStrategy<PersistentVolume>;
