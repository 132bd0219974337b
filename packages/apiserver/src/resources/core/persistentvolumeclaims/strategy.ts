import { isDeepStrictEqual } from 'node:util';
import {
  forbidden,
  invalid,
  key,
  notSupported,
  parseQuantity,
  required,
  validateImmutableField,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type KubeObject,
  type LabelSelectorObject,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { statusPrepare, statusSubresource } from '../../status-subresource.js';
import { validateLabelSelector } from '../../apps/workload/selector.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { column } from '../../apps/workload/table.js';
import { BETA_STORAGE_CLASS_ANNOTATION, VOLUME_MODES, accessModesText, validateAccessModes, validateClassName, validatePositiveQuantity } from '../persistentvolumes/volume-common.js';

interface DataSource {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

export interface PersistentVolumeClaim extends KubeObject {
  spec?: {
    accessModes?: string[];
    selector?: LabelSelectorObject;
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
    volumeName?: string;
    storageClassName?: string;
    volumeMode?: string;
    dataSource?: DataSource;
    dataSourceRef?: DataSource;
  };
  status?: { phase?: string; accessModes?: string[]; capacity?: Record<string, string>; [field: string]: unknown };
}

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain', coreFinalizers: true };

function validateDataSource(ds: DataSource, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!ds.name) errs.push(required(`${path}.name`, ''));
  if (!ds.kind) errs.push(required(`${path}.kind`, ''));
  if (!ds.apiGroup && ds.kind !== 'PersistentVolumeClaim') errs.push(invalid(path, ds.kind ?? '', ''));
  return errs;
}

/** Upstream's ValidatePersistentVolumeClaimSpec. */
export function validateClaimSpec(pvc: PersistentVolumeClaim): FieldErrorList {
  const spec = pvc.spec ?? {};
  const errs = validateAccessModes(spec.accessModes, 'spec.accessModes', 'at least 1 access mode is required');
  if (spec.selector) errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const storage = spec.resources?.requests?.['storage'];
  const storagePath = key('spec.resources', 'storage');
  if (storage === undefined) errs.push(required(storagePath, ''));
  else errs.push(...validatePositiveQuantity(storage, storagePath));
  errs.push(...validateClassName(spec.storageClassName, 'spec.storageClassName'));
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode)) errs.push(notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  if (spec.dataSource) errs.push(...validateDataSource(spec.dataSource, 'spec.dataSource'));
  if (spec.dataSourceRef) errs.push(...validateDataSource(spec.dataSourceRef, 'spec.dataSourceRef'));
  if (spec.dataSource && spec.dataSourceRef && !isDeepStrictEqual(spec.dataSource, spec.dataSourceRef)) {
    errs.push(invalid('spec', 'spec.dataSource', 'must match dataSourceRef'));
  }
  return errs;
}

const quantityCmp = (a: string | undefined, b: string | undefined): number => {
  const x = parseQuantity(a ?? '0')?.nanos ?? 0n;
  const y = parseQuantity(b ?? '0')?.nanos ?? 0n;
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * Upstream's ValidatePersistentVolumeClaimUpdate with expansion on: the spec never changes except
 * volumeName once, the storage request of a bound claim (never below the old one), and a class
 * moving from the beta annotation to spec.storageClassName.
 */
export function validateClaimUpdate(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): FieldErrorList {
  const errs = validateClaimSpec(pvc);
  const next = structuredClone(pvc.spec ?? {});
  const prev = structuredClone(old.spec ?? {});
  if (!prev.volumeName) prev.volumeName = next.volumeName;
  const oldAnnotation = old.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  const newAnnotation = pvc.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  const upgrade = oldAnnotation !== undefined && prev.storageClassName === undefined && next.storageClassName === oldAnnotation && (newAnnotation === undefined || newAnnotation === oldAnnotation);
  if (upgrade) delete next.storageClassName;
  else if (newAnnotation !== oldAnnotation) errs.push(invalid(`metadata.annotations[${BETA_STORAGE_CLASS_ANNOTATION}]`, newAnnotation ?? '', 'field is immutable'));
  if (pvc.status?.phase === 'Bound' && next.resources?.requests) next.resources.requests['storage'] = old.spec?.resources?.requests?.['storage'] ?? '';
  if (!isDeepStrictEqual(dropUndefined(next), dropUndefined(prev))) errs.push(forbidden('spec', 'spec is immutable after creation except resources.requests for bound claims'));
  if (quantityCmp(pvc.spec?.resources?.requests?.['storage'], old.spec?.resources?.requests?.['storage']) < 0) {
    errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
  }
  errs.push(...validateImmutableField(pvc.spec?.volumeMode, old.spec?.volumeMode, 'volumeMode'));
  return errs;
}

function dropUndefined<T extends object>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}

/** Upstream's SetDefaults_PersistentVolumeClaim. Mutates pvc. */
function defaultClaim(pvc: PersistentVolumeClaim): void {
  const spec = (pvc.spec ??= {});
  spec.volumeMode ??= 'Filesystem';
  // Upstream's NormalizeDataSources: either of dataSource and dataSourceRef fills the other when they are the same kind of thing.
  if (spec.dataSource && !spec.dataSourceRef) spec.dataSourceRef = { ...spec.dataSource };
  else if (spec.dataSourceRef && !spec.dataSource && (!spec.dataSourceRef.apiGroup ? spec.dataSourceRef.kind === 'PersistentVolumeClaim' : true)) spec.dataSource = { ...spec.dataSourceRef };
  pvc.status ??= {};
  pvc.status.phase ||= 'Pending';
}

const statusStrategy = statusSubresource<PersistentVolumeClaim>(metaOptions, (pvc) => {
    const errs: FieldErrorList = [];
    if (!pvc.metadata.resourceVersion) errs.push(required('resourceVersion', ''));
    if (!pvc.spec?.accessModes?.length) errs.push(required('Spec.accessModes', ''));
    for (const [r, q] of Object.entries(pvc.status?.capacity ?? {})) {
      if ((parseQuantity(q)?.nanos ?? 0n) < 0n) errs.push(invalid(key('status.capacity', r), q, 'must be a valid resource quantity'));
    }
    return errs;
});

/** The class of a claim: the beta annotation wins over spec.storageClassName (upstream's GetPersistentVolumeClaimClass). */
function claimClass(pvc: PersistentVolumeClaim): string {
  return pvc.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] ?? pvc.spec?.storageClassName ?? '';
}

/** PersistentVolumeClaim behaviour (core/v1): status only through `status`; the spec is fixed but for expansion. */
export const persistentVolumeClaimStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  ...statusPrepare<PersistentVolumeClaim>(defaultClaim),
  validate: (pvc: PersistentVolumeClaim) => [...validateObjectMeta(pvc.metadata, metaOptions), ...validateClaimSpec(pvc)],
  validateUpdate: (pvc: PersistentVolumeClaim, old: PersistentVolumeClaim) => [
    ...validateObjectMetaUpdate(pvc.metadata, old.metadata, metaOptions),
    ...validateObjectMeta(pvc.metadata, metaOptions),
    ...validateClaimUpdate(pvc, old),
  ],
  selectableFields: (pvc: PersistentVolumeClaim) => ({ name: pvc.metadata.name ?? '' }),
  subresources: { status: statusStrategy },
  table: {
    columns: [
      nameColumn,
      column('Status', 'string', 'The phase of the claim.'),
      column('Volume', 'string', 'The volume bound to the claim.'),
      column('Capacity', 'string', 'The size of the bound volume.'),
      column('Access Modes', 'string', 'How the bound volume may be mounted.'),
      column('StorageClass', 'string', 'StorageClass of the pvc'),
      ageColumn,
      column('VolumeMode', 'string', 'Block or Filesystem.', 1),
    ],
    cells: (pvc: PersistentVolumeClaim) => {
      const spec = pvc.spec ?? {};
      const bound = !!spec.volumeName;
      return [
        pvc.metadata.name ?? '',
        pvc.metadata.deletionTimestamp ? 'Terminating' : (pvc.status?.phase ?? ''),
        spec.volumeName ?? '',
        bound ? (pvc.status?.capacity?.['storage'] ?? '0') : '',
        bound ? accessModesText(pvc.status?.accessModes) : '',
        claimClass(pvc),
        ageOf(pvc.metadata.creationTimestamp, new Date()),
        spec.volumeMode ?? '<unset>',
      ];
    },
  },
} satisfies ResourceStrategy<PersistentVolumeClaim>;
