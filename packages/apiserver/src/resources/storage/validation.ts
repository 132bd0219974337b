import { isDeepStrictEqual } from 'node:util';
import {
  duplicate,
  forbidden,
  invalid,
  index,
  isDNS1123Subdomain,
  isQualifiedName,
  notSupported,
  parseQuantity,
  required,
  tooLong,
  type FieldErrorList,
} from '@cluster/apimachinery';
import { validateLabelSelector } from '../apps/workload/selector.js';
import { validateClassName } from '../core/persistentvolumes/volume-common.js';
import type { CSIDriver, CSINode, CSIStorageCapacity, StorageClass, TopologySelectorTerm, VolumeAttachment, VolumeError } from './types.js';

const MAX_PARAMETER_SIZE = 256 * 1024;
const MAX_PARAMETER_COUNT = 512;
const MAX_ATTACHMENT_METADATA_SIZE = 256 * 1024;
const MAX_VOLUME_ERROR_LENGTH = 1024;
const CSI_NODE_ID_MAX_LENGTH = 256;
const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];

const qualifiedName = (value: string, path: string): FieldErrorList => isQualifiedName(value).map((m) => invalid(path, value, m));

/** Upstream's ValidateCSIDriverName: a DNS subdomain (case-insensitive) of at most 63 characters. */
export function validateCSIDriverName(name: string | undefined, path: string): FieldErrorList {
  const n = name ?? '';
  const errs: FieldErrorList = [];
  if (n === '') errs.push(required(path, ''));
  if (n.length > 63) errs.push(tooLong(path, 63));
  for (const m of isDNS1123Subdomain(n.toLowerCase())) errs.push(invalid(path, n, m));
  return errs;
}

function validateTopologies(terms: readonly TopologySelectorTerm[] | undefined, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const seen: string[] = [];
  (terms ?? []).forEach((term, i) => {
    const termPath = `${index(path, i)}.matchLabelExpressions`;
    const exprs = new Map<string, string[]>();
    (term.matchLabelExpressions ?? []).forEach((req, j) => {
      const p = index(termPath, j);
      const k = req.key ?? '';
      errs.push(...qualifiedName(k, `${p}.key`));
      if ((req.values ?? []).length === 0) errs.push(required(`${p}.values`, ''));
      if (exprs.has(k)) errs.push(duplicate(`${p}.key`, k));
      exprs.set(k, [...new Set(req.values ?? [])].sort());
    });
    const canonical = JSON.stringify([...exprs.entries()].sort());
    if (seen.includes(canonical)) errs.push(duplicate(termPath, ''));
    seen.push(canonical);
  });
  return errs;
}

/** Upstream's ValidateStorageClass (without the object metadata). */
export function validateStorageClass(sc: StorageClass): FieldErrorList {
  const errs: FieldErrorList = [];
  const provisioner = sc.provisioner ?? '';
  if (provisioner === '') errs.push(required('provisioner', ''));
  else errs.push(...qualifiedName(provisioner.toLowerCase(), 'provisioner'));
  const params = sc.parameters ?? {};
  if (Object.keys(params).length > MAX_PARAMETER_COUNT) {
    errs.push(tooLong('parameters', MAX_PARAMETER_COUNT));
  } else {
    let size = 0;
    for (const [k, v] of Object.entries(params)) {
      if (k === '') errs.push(invalid('parameters', k, 'field can not be empty.'));
      size += Buffer.byteLength(k) + Buffer.byteLength(v);
    }
    if (size > MAX_PARAMETER_SIZE) errs.push(tooLong('parameters', MAX_PARAMETER_SIZE));
  }
  if (sc.reclaimPolicy && !RECLAIM_POLICIES.includes(sc.reclaimPolicy)) errs.push(notSupported('reclaimPolicy', sc.reclaimPolicy, RECLAIM_POLICIES));
  if (sc.volumeBindingMode === undefined) errs.push(required('volumeBindingMode', ''));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode)) errs.push(notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  errs.push(...validateTopologies(sc.allowedTopologies, 'allowedTopologies'));
  return errs;
}

/** Upstream's ValidateStorageClassUpdate: parameters, provisioner, reclaimPolicy and volumeBindingMode are fixed. */
export function validateStorageClassUpdate(sc: StorageClass, old: StorageClass): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!isDeepStrictEqual(sc.parameters ?? {}, old.parameters ?? {})) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (sc.provisioner !== old.provisioner) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (sc.reclaimPolicy !== old.reclaimPolicy) errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (sc.volumeBindingMode !== old.volumeBindingMode) errs.push(invalid('volumeBindingMode', sc.volumeBindingMode ?? '', 'field is immutable'));
  return errs;
}

/** Upstream's validateCSIDriverSpec (path spelled `attachedRequired` as upstream spells it). */
export function validateCSIDriverSpec(d: CSIDriver): FieldErrorList {
  const spec = d.spec ?? {};
  const errs: FieldErrorList = [];
  if (spec.attachRequired === undefined) errs.push(required('spec.attachedRequired', ''));
  if (spec.podInfoOnMount === undefined) errs.push(required('spec.podInfoOnMount', ''));
  if (spec.storageCapacity === undefined) errs.push(required('spec.storageCapacity', ''));
  if (spec.fsGroupPolicy !== undefined && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy)) errs.push(notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  errs.push(...validateTokenRequests(spec.tokenRequests));
  for (const m of spec.volumeLifecycleModes ?? []) if (!LIFECYCLE_MODES.includes(m)) errs.push(notSupported('spec.volumeLifecycleModes', m, LIFECYCLE_MODES));
  return errs;
}

function validateTokenRequests(requests: NonNullable<CSIDriver['spec']>['tokenRequests']): FieldErrorList {
  const errs: FieldErrorList = [];
  const audiences = new Set<string>();
  (requests ?? []).forEach((r, i) => {
    const p = index('spec.tokenRequests', i);
    const audience = r.audience ?? '';
    if (audiences.has(audience)) {
      errs.push(duplicate(`${p}.audience`, audience));
      return;
    }
    audiences.add(audience);
    if (r.expirationSeconds === undefined) return;
    if (r.expirationSeconds < 600) errs.push(invalid(`${p}.expirationSeconds`, r.expirationSeconds, 'may not specify a duration less than 10 minutes'));
    if (r.expirationSeconds > 2 ** 32) errs.push(invalid(`${p}.expirationSeconds`, r.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  return errs;
}

/** Upstream's ValidateCSIDriverUpdate: attachRequired, fsGroupPolicy, podInfoOnMount and volumeLifecycleModes are fixed. */
export function validateCSIDriverUpdate(d: CSIDriver, old: CSIDriver): FieldErrorList {
  const errs = validateCSIDriverSpec(d);
  const fixed: Array<[string, string]> = [
    ['attachRequired', 'spec.attachedRequired'],
    ['fsGroupPolicy', 'spec.fsGroupPolicy'],
    ['podInfoOnMount', 'spec.podInfoOnMount'],
    ['volumeLifecycleModes', 'spec.volumeLifecycleModes'],
  ];
  for (const [k, path] of fixed) {
    const next = d.spec?.[k];
    if (!isDeepStrictEqual(next, old.spec?.[k])) errs.push(invalid(path, next ?? null, 'field is immutable'));
  }
  return errs;
}

/** Upstream's validateCSINodeSpec. */
export function validateCSINodeSpec(n: CSINode): FieldErrorList {
  const errs: FieldErrorList = [];
  const names = new Set<string>();
  (n.spec?.drivers ?? []).forEach((d, i) => {
    const p = index('spec.drivers', i);
    errs.push(...validateCSIDriverName(d.name, `${p}.name`));
    const nodeID = d.nodeID ?? '';
    if (nodeID === '') errs.push(required(`${p}.nodeID`, ''));
    if (nodeID.length > CSI_NODE_ID_MAX_LENGTH) errs.push(invalid(`${p}.nodeID`, nodeID, `must be ${CSI_NODE_ID_MAX_LENGTH} characters or less`));
    const count = d.allocatable?.count;
    if (count !== undefined && count < 0) errs.push(invalid(`${p}.allocatable.count`, count, 'must be greater than or equal to 0'));
    if (names.has(d.name ?? '')) errs.push(duplicate(`${p}.name`, d.name ?? ''));
    names.add(d.name ?? '');
    const keys = new Set<string>();
    for (const k of d.topologyKeys ?? []) {
      if (k === '') errs.push(required(p, ''));
      if (keys.has(k)) errs.push(duplicate(p, k));
      keys.add(k);
      errs.push(...qualifiedName(k, p));
    }
  });
  return errs;
}

/** Upstream's ValidateCSINodeUpdate: a driver present before and after is unchanged. */
export function validateCSINodeUpdate(n: CSINode, old: CSINode): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const o of old.spec?.drivers ?? []) {
    for (const d of n.spec?.drivers ?? []) {
      if (o.name === d.name && !isDeepStrictEqual(o, d)) errs.push(invalid('CSINodeDriver', d, 'field is immutable'));
    }
  }
  return errs;
}

function validateVolumeError(e: VolumeError | undefined, path: string): FieldErrorList {
  if (e?.message && e.message.length > MAX_VOLUME_ERROR_LENGTH) return [tooLong(`${path}.message`, MAX_ATTACHMENT_METADATA_SIZE)];
  return [];
}

/** Upstream's ValidateVolumeAttachment and ValidateVolumeAttachmentV1 (without the object metadata). */
export function validateVolumeAttachment(va: VolumeAttachment): FieldErrorList {
  const spec = va.spec ?? {};
  const errs: FieldErrorList = [];
  if (!spec.attacher) errs.push(required('spec.attacher', ''));
  const source = spec.source ?? {};
  const pvName = source.persistentVolumeName;
  if (source.inlineVolumeSpec === undefined && pvName === undefined) errs.push(required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (source.inlineVolumeSpec !== undefined && pvName !== undefined) errs.push(forbidden('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (pvName !== undefined && pvName === '') errs.push(required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  for (const m of isDNS1123Subdomain(spec.nodeName ?? '')) errs.push(invalid('spec.nodeName', spec.nodeName ?? '', m));
  let size = 0;
  for (const [k, v] of Object.entries(va.status?.attachmentMetadata ?? {})) size += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (size > MAX_ATTACHMENT_METADATA_SIZE) errs.push(tooLong('status.attachmentMetadata', MAX_ATTACHMENT_METADATA_SIZE));
  errs.push(...validateVolumeError(va.status?.attachError, 'status.attachError'));
  errs.push(...validateVolumeError(va.status?.detachError, 'status.detachError'));
  return errs;
}

/** The v1-only checks: the attacher is a CSI driver name and the volume name a valid one. */
export function validateVolumeAttachmentV1(va: VolumeAttachment): FieldErrorList {
  const errs = validateCSIDriverName(va.spec?.attacher, 'spec.attacher');
  const pvName = va.spec?.source?.persistentVolumeName;
  if (pvName) for (const m of isDNS1123Subdomain(pvName)) errs.push(invalid('spec.source.persistentVolumeName', pvName, m));
  return errs;
}

/** Upstream's ValidateCSIStorageCapacity (without the object metadata). */
export function validateCSIStorageCapacity(c: CSIStorageCapacity): FieldErrorList {
  const errs = validateLabelSelector(c.nodeTopology, 'nodeTopology');
  errs.push(...validateClassName(c.storageClassName, 'storageClassName'));
  if (!c.storageClassName) errs.push(...isDNS1123Subdomain('').map((m) => invalid('storageClassName', '', m)));
  for (const [field, q] of [['capacity', c.capacity], ['maximumVolumeSize', c.maximumVolumeSize]] as const) {
    if (q !== undefined && (parseQuantity(q)?.nanos ?? 0n) < 0n) errs.push(invalid(field, q, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** Upstream's ValidateCSIStorageCapacityUpdate: nodeTopology and storageClassName are fixed. */
export function validateCSIStorageCapacityUpdate(c: CSIStorageCapacity, old: CSIStorageCapacity): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!isDeepStrictEqual(c.nodeTopology, old.nodeTopology)) errs.push(invalid('nodeTopology', c.nodeTopology ?? null, 'field is immutable'));
  if (c.storageClassName !== old.storageClassName) errs.push(invalid('storageClassName', c.storageClassName ?? '', 'field is immutable'));
  return errs;
}
