import type { ObjectMeta } from '../meta/types.js';
import { index, invalid, type FieldErrorList } from './field-error.js';
import { validateFinalizerName, validateKubeFinalizerName, validateObjectMeta, type ObjectMetaOptions } from './object-meta.js';
import { validateObjectMetaUpdate } from './object-meta-update.js';

/** The fields of a Namespace that validation reads. */
export interface NamespaceFields {
  metadata: ObjectMeta;
  spec?: { finalizers?: string[] | null } | null;
  status?: { phase?: string | null } | null;
}

const metaOptions: ObjectMetaOptions = { namespaced: false, nameValidator: 'label', coreFinalizers: true };

/** A spec.finalizers entry: a qualified name, and a standard name when it has no domain prefix. */
function validateNamespaceFinalizerName(name: string, fldPath: string): FieldErrorList {
  return [...validateFinalizerName(name, fldPath), ...validateKubeFinalizerName(name, fldPath)];
}

/** Validates a Namespace on create: name is a DNS label, spec.finalizers are valid finalizer names. */
export function validateNamespace(ns: NamespaceFields): FieldErrorList {
  const errs = validateObjectMeta(ns.metadata, metaOptions);
  // Upstream reports create-time spec.finalizers errors at the list path, without an index.
  for (const f of ns.spec?.finalizers ?? []) errs.push(...validateNamespaceFinalizerName(f, 'spec.finalizers'));
  return errs;
}

/** Validates a Namespace update. Spec changes are dropped by the strategy, so only metadata is checked. */
export function validateNamespaceUpdate(newNs: NamespaceFields, oldNs: NamespaceFields): FieldErrorList {
  return validateObjectMetaUpdate(newNs.metadata, oldNs.metadata, metaOptions);
}

/** Validates an update through the `finalize` subresource: metadata plus each spec.finalizers entry. */
export function validateNamespaceFinalizeUpdate(newNs: NamespaceFields, oldNs: NamespaceFields): FieldErrorList {
  const errs = validateObjectMetaUpdate(newNs.metadata, oldNs.metadata, metaOptions);
  (newNs.spec?.finalizers ?? []).forEach((f, i) => {
    errs.push(...validateNamespaceFinalizerName(f, index('spec.finalizers', i)));
  });
  return errs;
}

/** Validates an update through the `status` subresource: phase must agree with deletionTimestamp. */
export function validateNamespaceStatusUpdate(newNs: NamespaceFields, oldNs: NamespaceFields): FieldErrorList {
  const errs = validateObjectMetaUpdate(newNs.metadata, oldNs.metadata, metaOptions);
  const phase = newNs.status?.phase ?? '';
  if (!newNs.metadata.deletionTimestamp) {
    if (phase !== 'Active') {
      errs.push(invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty"));
    }
  } else if (phase !== 'Terminating') {
    errs.push(invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
  }
  return errs;
}
