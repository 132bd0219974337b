import { isDeepStrictEqual } from 'node:util';
import {
  forbidden,
  invalid,
  key,
  notSupported,
  required,
  validateImmutableField,
  validateObjectMeta,
  type FieldErrorList,
  type KubeObject,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import { VOLUME_MODES, validateAccessModes, validateClassName, validatePositiveQuantity, validateVolumeNodeAffinity } from './volume-common.js';

export interface PersistentVolume extends KubeObject {
  spec?: {
    capacity?: Record<string, string>;
    accessModes?: string[];
    claimRef?: { namespace?: string; name?: string };
    persistentVolumeReclaimPolicy?: string;
    storageClassName?: string;
    volumeMode?: string;
    nodeAffinity?: { required?: { nodeSelectorTerms?: unknown[] } };
    mountOptions?: string[];
    [source: string]: unknown;
  };
  status?: { phase?: string; message?: string; reason?: string };
}

export const pvMetaOptions: ObjectMetaOptions = { namespaced: false, nameValidator: 'subdomain', coreFinalizers: true };

/** The keys of PersistentVolumeSource (a volume names exactly one). */
export const PV_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'iscsi', 'cinder', 'cephfs', 'fc', 'flocker', 'flexVolume',
  'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'local', 'storageos', 'csi',
] as const;
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

type Source = Record<string, unknown>;
const str = (s: Source, k: string) => (typeof s[k] === 'string' ? (s[k] as string) : '');

/** The checks of the common sources (hostPath, nfs, local, csi) upstream makes inside each source. */
function validateSource(name: string, s: Source, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const need = (k: string) => {
    if (str(s, k) === '') errs.push(required(`${path}.${k}`, ''));
  };
  switch (name) {
    case 'hostPath':
    case 'local':
      need('path');
      break;
    case 'nfs':
      need('server');
      need('path');
      if (str(s, 'path') !== '' && !str(s, 'path').startsWith('/')) errs.push(invalid(`${path}.path`, str(s, 'path'), 'must be an absolute path'));
      break;
    case 'csi':
      need('driver');
      need('volumeHandle');
      break;
  }
  return errs;
}

/** Upstream's ValidatePersistentVolumeSpec for a stored (not inline) volume. */
export function validatePersistentVolumeSpec(pv: PersistentVolume): FieldErrorList {
  const spec = pv.spec ?? {};
  const errs = validateAccessModes(spec.accessModes, 'spec.accessModes', '');
  const capacity = spec.capacity ?? {};
  const names = Object.keys(capacity);
  if (names.length === 0) errs.push(required('spec.capacity', ''));
  if (!('storage' in capacity) || names.length > 1) errs.push(notSupported('spec.capacity', capacity, ['storage']));
  for (const [r, q] of Object.entries(capacity)) errs.push(...validatePositiveQuantity(q, key('spec.capacity', r)));
  const policy = spec.persistentVolumeReclaimPolicy ?? '';
  if (policy !== '' && !RECLAIM_POLICIES.includes(policy)) errs.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  errs.push(...validateVolumeNodeAffinity(spec.nodeAffinity, 'spec.nodeAffinity'));
  let count = 0;
  for (const name of PV_SOURCES) {
    const s = spec[name];
    if (s === undefined || s === null) continue;
    if (count > 0) {
      errs.push(forbidden(`spec.${name}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errs.push(...validateSource(name, s as Source, `spec.${name}`));
  }
  if (count === 0) errs.push(required('spec', 'must specify a volume type'));
  const hostPath = spec.hostPath as Source | undefined;
  if (hostPath && str(hostPath, 'path').replace(/\/+$/, '') === '' && str(hostPath, 'path') !== '' && policy === 'Recycle') {
    errs.push(forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  errs.push(...validateClassName(spec.storageClassName, 'spec.storageClassName'));
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode)) errs.push(notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  return errs;
}

export function validatePersistentVolume(pv: PersistentVolume): FieldErrorList {
  return [...validateObjectMeta(pv.metadata, pvMetaOptions), ...validatePersistentVolumeSpec(pv)];
}

/** The volume source part of a spec (what upstream compares as PersistentVolumeSource). */
function sourceOf(spec: PersistentVolume['spec']): Source {
  return Object.fromEntries(PV_SOURCES.filter((k) => spec?.[k] !== undefined).map((k) => [k, spec![k]]));
}

/** Upstream's ValidatePersistentVolumeUpdate: the volume source and mode never change; node affinity once set neither. */
export function validatePersistentVolumeUpdate(pv: PersistentVolume, old: PersistentVolume): FieldErrorList {
  const errs = validatePersistentVolume(pv);
  const next = sourceOf(pv.spec);
  const prev = sourceOf(old.spec);
  // A CSI volume may gain a controllerExpandSecretRef.
  const nextCsi = next['csi'] as Source | undefined;
  const prevCsi = prev['csi'] as Source | undefined;
  if (nextCsi && prevCsi && prevCsi['controllerExpandSecretRef'] === undefined && nextCsi['controllerExpandSecretRef'] !== undefined) {
    const { controllerExpandSecretRef: _added, ...rest } = nextCsi;
    next['csi'] = rest;
  }
  if (!isDeepStrictEqual(next, prev)) errs.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  errs.push(...validateImmutableField(pv.spec?.volumeMode, old.spec?.volumeMode, 'volumeMode'));
  if (old.spec?.nodeAffinity) errs.push(...validateImmutableField(pv.spec?.nodeAffinity, old.spec.nodeAffinity, 'nodeAffinity'));
  return errs;
}
