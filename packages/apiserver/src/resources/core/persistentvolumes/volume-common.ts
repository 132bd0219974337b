import { forbidden, invalid, isDNS1123Subdomain, notSupported, parseQuantity, required, type FieldErrorList } from '@cluster/apimachinery';

/** Access modes of volumes and claims (ReadWriteOncePod is GA upstream since 1.29 and accepted here). */
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];
/** The annotation that named a class before spec.storageClassName existed; still read first for claims. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** kubectl's short form of a list of access modes (upstream's GetAccessModesAsString). */
export function accessModesText(modes: readonly string[] | undefined): string {
  const has = (m: string) => (modes ?? []).includes(m);
  return [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ]
    .filter(([m]) => has(m!))
    .map(([, s]) => s)
    .join(',');
}

/** Upstream's access mode checks of volume and claim specs: supported values, ReadWriteOncePod alone. */
export function validateAccessModes(modes: readonly string[] | undefined, path: string, requiredDetail: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!modes || modes.length === 0) errs.push(required(path, requiredDetail));
  let once = false;
  let other = false;
  for (const m of modes ?? []) {
    if (!ACCESS_MODES.includes(m)) errs.push(notSupported(path, m, ACCESS_MODES));
    if (m === 'ReadWriteOncePod') once = true;
    else if (ACCESS_MODES.includes(m)) other = true;
  }
  if (once && other) errs.push(forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** Upstream's ValidateClassName (a DNS subdomain). */
export function validateClassName(name: string | undefined, path: string): FieldErrorList {
  if (!name) return [];
  return isDNS1123Subdomain(name).map((m) => invalid(path, name, m));
}

/** Upstream's ValidatePositiveQuantityValue: a storage size above zero. */
export function validatePositiveQuantity(text: string, path: string): FieldErrorList {
  const q = parseQuantity(text);
  if (q && q.nanos <= 0n) return [invalid(path, text, 'must be greater than zero')];
  return [];
}

/** Upstream's VolumeNodeAffinity check: `required` holds at least one node selector term. */
export function validateVolumeNodeAffinity(affinity: { required?: { nodeSelectorTerms?: unknown[] } } | undefined, path: string): FieldErrorList {
  if (!affinity) return [];
  if (!affinity.required) return [required(`${path}.required`, 'must specify required node constraints')];
  if ((affinity.required.nodeSelectorTerms ?? []).length === 0) return [required(`${path}.required.nodeSelectorTerms`, 'must have at least one node selector term')];
  return [];
}
