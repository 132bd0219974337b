import { newForbidden, type KubeObject } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';
import { isDefaultStorageClass } from '../resources/storage/types.js';

const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

interface ClaimLike extends KubeObject {
  spec?: { storageClassName?: string | null; [field: string]: unknown };
}

/**
 * The class a new claim gets (upstream's DefaultStorageClass, v1.24): none when it names one
 * (spec.storageClassName, even "", or the beta annotation) or no StorageClass is marked default;
 * the default's name when exactly one is. An error text when several are marked. Pure.
 */
export function defaultStorageClassFor(claim: ClaimLike, classes: readonly KubeObject[]): { className?: string; error?: string } {
  if (claim.metadata.annotations?.[BETA_CLASS_ANNOTATION] !== undefined) return {};
  if (claim.spec?.storageClassName !== undefined && claim.spec.storageClassName !== null) return {};
  const defaults = classes.filter(isDefaultStorageClass);
  if (defaults.length > 1) return { error: `Internal error occurred: ${defaults.length} default StorageClasses were found` };
  return defaults.length === 1 ? { className: defaults[0]!.metadata.name ?? '' } : {};
}

/**
 * Upstream's DefaultStorageClass admission plugin: a PersistentVolumeClaim created without a class
 * gets the StorageClass annotated `storageclass.kubernetes.io/is-default-class: "true"`; two or
 * more such classes make the create 403 Forbidden. `listClasses` reads the current StorageClasses.
 */
export function defaultStorageClassAdmission(listClasses: () => Promise<readonly KubeObject[]>): AdmissionPlugin {
  const defaultClaim = async (a: AdmissionAttributes, claim: ClaimLike): Promise<void> => {
    const { className, error } = defaultStorageClassFor(claim, await listClasses());
    if (error) throw newForbidden({ group: '', resource: 'persistentvolumeclaims' }, a.name, error);
    if (className) claim.spec = { ...(claim.spec ?? {}), storageClassName: className };
  };
  return {
    name: 'DefaultStorageClass',
    // Not an async function: for every other kind it returns at once, without a promise.
    admit(a) {
      if (a.operation !== 'CREATE' || a.subresource || a.resource.group !== '' || a.resource.resource !== 'persistentvolumeclaims' || !a.object) return;
      return defaultClaim(a, a.object as ClaimLike);
    },
    validate() {},
  };
}
