import type { ManagedFieldsEntry, ObjectMeta, OwnerReference } from '../meta/types.js';
import { parseApiVersion } from '../meta/types.js';
import { child, forbidden, index, invalid, required, tooLong, type FieldErrorList } from './field-error.js';
import {
  byteLength,
  isDNS1123Label,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegment,
  type NameValidator,
} from './name-rules.js';

/** Upstream's TotalAnnotationSizeLimitB: keys plus values, in bytes. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
/** Upstream's FieldManagerMaxLength. */
export const FIELD_MANAGER_MAX_LENGTH = 128;
/** Upstream's MaxSubresourceNameLength. */
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;
/** Upstream's IsNegativeErrorMsg. */
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';

export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

/**
 * Finalizer names that core-group objects may use without a domain prefix (upstream's
 * standardFinalizers). `kubernetes` is the namespace lifecycle finalizer that stock clients know.
 */
export const STANDARD_FINALIZERS: readonly string[] = ['kubernetes', FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS];

export interface ObjectMetaOptions {
  /** True for namespaced kinds: namespace is then required, otherwise forbidden. */
  namespaced: boolean;
  /** Rule for name and generateName; defaults to 'subdomain'. */
  nameValidator?: 'subdomain' | 'label' | 'pathSegment' | NameValidator;
  /** Path of the metadata, `metadata` by default. */
  fieldPath?: string;
  /**
   * Core-group objects (ConfigMap, Namespace, ...) also require a finalizer without '/' to be one of
   * STANDARD_FINALIZERS, as upstream's core ValidateObjectMeta does. Defaults to false.
   */
  coreFinalizers?: boolean;
}

function resolveNameValidator(v: ObjectMetaOptions['nameValidator']): NameValidator {
  if (typeof v === 'function') return v;
  if (v === 'label') return nameIsDNSLabel;
  if (v === 'pathSegment') return nameIsPathSegment;
  return nameIsDNSSubdomain;
}

/** Labels: keys are qualified names, values label values; errors point at the map itself, as upstream. */
export function validateLabels(labels: Record<string, string> | undefined, fldPath: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    errs.push(...validateLabelName(k, fldPath));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(fldPath, v, msg));
  }
  return errs;
}

/** One label key (also used for selector requirement keys and condition types). */
export function validateLabelName(name: string, fldPath: string): FieldErrorList {
  return isQualifiedName(name).map((msg) => invalid(fldPath, name, msg));
}

/** Annotations: keys are qualified names ignoring case; keys plus values at most 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined, fldPath: string): FieldErrorList {
  const errs: FieldErrorList = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(fldPath, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errs.push(tooLong(fldPath, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

/** Events may not own other objects (upstream's BannedOwners). */
const bannedOwners = new Set(['/v1, Kind=Event']);

function validateOwnerReference(ref: OwnerReference, fldPath: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const apiVersion = ref.apiVersion ?? '';
  // Upstream parses apiVersion leniently: more than one '/' yields an empty group and version.
  const gv = apiVersion.split('/').length > 2 ? { group: '', version: '' } : parseApiVersion(apiVersion);
  const kind = ref.kind ?? '';
  if (gv.version === '') errs.push(invalid(child(fldPath, 'apiVersion'), apiVersion, 'version must not be empty'));
  if (kind === '') errs.push(invalid(child(fldPath, 'kind'), kind, 'must not be empty'));
  if (!ref.name) errs.push(invalid(child(fldPath, 'name'), ref.name ?? '', 'must not be empty'));
  if (!ref.uid) errs.push(invalid(child(fldPath, 'uid'), ref.uid ?? '', 'must not be empty'));
  const gvk = `${gv.group}/${gv.version}, Kind=${kind}`;
  if (bannedOwners.has(gvk)) errs.push(invalid(fldPath, ref, `${gvk} is disallowed from being an owner`));
  return errs;
}

/** Required fields of each owner reference, and at most one controller. Paths carry no index, as upstream. */
export function validateOwnerReferences(refs: OwnerReference[] | undefined, fldPath: string): FieldErrorList {
  const errs: FieldErrorList = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    errs.push(...validateOwnerReference(ref, fldPath));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController !== '') {
        errs.push(
          invalid(
            fldPath,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** One finalizer name: a qualified name. */
export function validateFinalizerName(name: string, fldPath: string): FieldErrorList {
  return isQualifiedName(name).map((msg) => invalid(fldPath, name, msg));
}

/** Core-group rule: a finalizer without a domain prefix must be a standard one. */
export function validateKubeFinalizerName(name: string, fldPath: string): FieldErrorList {
  if (name.split('/').length === 1 && !STANDARD_FINALIZERS.includes(name)) {
    return [invalid(fldPath, name, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

/** Finalizer names, and the orphan/foregroundDeletion conflict. */
export function validateFinalizers(finalizers: string[] | undefined, fldPath: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const list = finalizers ?? [];
  for (const f of list) errs.push(...validateFinalizerName(f, fldPath));
  if (list.includes(FINALIZER_ORPHAN_DEPENDENTS) && list.includes(FINALIZER_DELETE_DEPENDENTS)) {
    errs.push(
      invalid(
        fldPath,
        list,
        `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`,
      ),
    );
  }
  return errs;
}

/** The core-group finalizer rule over metadata.finalizers, indexed paths as upstream. */
export function validateCoreFinalizers(finalizers: string[] | undefined, fldPath: string): FieldErrorList {
  return (finalizers ?? []).flatMap((f, i) => validateKubeFinalizerName(f, index(fldPath, i)));
}

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** A field manager name: at most 128 bytes, printable characters only. */
export function validateFieldManager(manager: string, fldPath: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLong(fldPath, FIELD_MANAGER_MAX_LENGTH));
  let pos = 0; // byte offset, as Go's range over a string reports
  for (const ch of manager) {
    if (!printable.test(ch)) {
      const code = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      errs.push(invalid(fldPath, manager, `invalid character U+${code} (at position ${pos})`));
    }
    pos += byteLength(ch);
  }
  return errs;
}

/** Managed fields entries: operation, fieldsType, manager and subresource. */
export function validateManagedFields(entries: ManagedFieldsEntry[] | undefined, fldPath: string): FieldErrorList {
  const errs: FieldErrorList = [];
  (entries ?? []).forEach((e, i) => {
    const p = index(fldPath, i);
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      errs.push(invalid(child(p, 'operation'), e.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') {
      errs.push(invalid(child(p, 'fieldsType'), e.fieldsType, 'must be `FieldsV1`'));
    }
    errs.push(...validateFieldManager(e.manager ?? '', child(p, 'manager')));
    if (byteLength(e.subresource ?? '') > MAX_SUBRESOURCE_NAME_LENGTH) {
      errs.push(tooLong(child(p, 'subresource'), MAX_SUBRESOURCE_NAME_LENGTH));
    }
  });
  return errs;
}

/** Checks shared by create and update: namespace, generation, labels, annotations, owners, finalizers, managedFields. */
export function validateObjectMetaCommon(meta: ObjectMeta, opts: ObjectMetaOptions): FieldErrorList {
  const p = opts.fieldPath ?? 'metadata';
  const errs: FieldErrorList = [];
  const ns = meta.namespace ?? '';
  if (opts.namespaced) {
    if (ns === '') errs.push(required(child(p, 'namespace')));
    else for (const msg of isDNS1123Label(ns)) errs.push(invalid(child(p, 'namespace'), ns, msg));
  } else if (ns !== '') {
    errs.push(forbidden(child(p, 'namespace'), 'not allowed on this type'));
  }
  const generation = meta.generation ?? 0;
  if (generation < 0) errs.push(invalid(child(p, 'generation'), generation, IS_NEGATIVE_ERROR_MSG));
  errs.push(...validateLabels(meta.labels, child(p, 'labels')));
  errs.push(...validateAnnotations(meta.annotations, child(p, 'annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, child(p, 'ownerReferences')));
  errs.push(...validateFinalizers(meta.finalizers, child(p, 'finalizers')));
  errs.push(...validateManagedFields(meta.managedFields, child(p, 'managedFields')));
  if (opts.coreFinalizers) errs.push(...validateCoreFinalizers(meta.finalizers, child(p, 'finalizers')));
  return errs;
}

/**
 * Validates metadata of an object being created (upstream ValidateObjectMeta). Expects name generation
 * to have run already, so a missing name is an error even when generateName is set.
 */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaOptions): FieldErrorList {
  const p = opts.fieldPath ?? 'metadata';
  const nameFn = resolveNameValidator(opts.nameValidator);
  const errs: FieldErrorList = [];
  const generateName = meta.generateName ?? '';
  if (generateName !== '') {
    for (const msg of nameFn(generateName, true)) errs.push(invalid(child(p, 'generateName'), generateName, msg));
  }
  const name = meta.name ?? '';
  if (name === '') errs.push(required(child(p, 'name'), 'name or generateName is required'));
  else for (const msg of nameFn(name, false)) errs.push(invalid(child(p, 'name'), name, msg));
  errs.push(...validateObjectMetaCommon(meta, opts));
  return errs;
}
