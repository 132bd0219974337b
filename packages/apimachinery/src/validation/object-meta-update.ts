import type { ObjectMeta } from '../meta/types.js';
import { child, forbidden, invalid, type FieldErrorList } from './field-error.js';
import { validateObjectMeta, type ObjectMetaOptions } from './object-meta.js';

/** Upstream's FieldImmutableErrorMsg. */
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';

/** Renders a string list the way Go's %#v renders a []string. */
function goStringSlice(list: readonly string[]): string {
  return `[]string{${list.map((s) => JSON.stringify(s)).join(', ')}}`;
}

/** Forbids finalizers that old does not have (used once deletion has started). */
export function validateNoNewFinalizers(
  newFinalizers: string[] | undefined,
  oldFinalizers: string[] | undefined,
  fldPath: string,
): FieldErrorList {
  const old = new Set(oldFinalizers ?? []);
  const extra = [...new Set((newFinalizers ?? []).filter((f) => !old.has(f)))].sort();
  if (extra.length === 0) return [];
  return [
    forbidden(
      fldPath,
      `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`,
    ),
  ];
}

type TimeValue = string | null | undefined;

/** Semantic equality of two timestamps: RFC 3339 text at second precision, unset == null. */
function sameTime(a: TimeValue, b: TimeValue): boolean {
  if (!a || !b) return !a && !b;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  if (Number.isNaN(ta) || Number.isNaN(tb)) return a === b;
  return Math.floor(ta / 1000) === Math.floor(tb / 1000);
}

/** `Invalid value: <new>: field is immutable` when the values differ. */
export function validateImmutableField(
  newVal: unknown,
  oldVal: unknown,
  fldPath: string,
  equal: (a: unknown, b: unknown) => boolean = Object.is,
): FieldErrorList {
  return equal(newVal, oldVal) ? [] : [invalid(fldPath, newVal ?? null, FIELD_IMMUTABLE_ERROR_MSG)];
}

/**
 * The update-only metadata checks of upstream ValidateObjectMetaAccessorUpdate: no new finalizers
 * while deleting, resourceVersion present, generation not decremented, and name, namespace, uid,
 * creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds unchanged.
 * Callers copy system fields from the old object first (as upstream's BeforeUpdate does: uid when
 * empty, creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds, and resourceVersion for an
 * unconditional update), so that only real attempts to change them are reported.
 */
export function validateObjectMetaUpdateOnly(
  newMeta: ObjectMeta,
  oldMeta: ObjectMeta,
  fldPath = 'metadata',
): FieldErrorList {
  const p = fldPath;
  const errs: FieldErrorList = [];
  if (oldMeta.deletionTimestamp) {
    errs.push(...validateNoNewFinalizers(newMeta.finalizers, oldMeta.finalizers, child(p, 'finalizers')));
  }
  if (!newMeta.resourceVersion) {
    errs.push(invalid(child(p, 'resourceVersion'), newMeta.resourceVersion ?? '', 'must be specified for an update'));
  }
  const newGen = newMeta.generation ?? 0;
  if (newGen < (oldMeta.generation ?? 0)) {
    errs.push(invalid(child(p, 'generation'), newGen, 'must not be decremented'));
  }
  const str = (v: string | undefined): string => v ?? '';
  errs.push(...validateImmutableField(str(newMeta.name), str(oldMeta.name), child(p, 'name')));
  errs.push(...validateImmutableField(str(newMeta.namespace), str(oldMeta.namespace), child(p, 'namespace')));
  errs.push(...validateImmutableField(str(newMeta.uid), str(oldMeta.uid), child(p, 'uid')));
  const timeEq = (a: unknown, b: unknown): boolean => sameTime(a as TimeValue, b as TimeValue);
  const ts = (name: 'creationTimestamp' | 'deletionTimestamp'): FieldErrorList =>
    validateImmutableField(newMeta[name], oldMeta[name], child(p, name), timeEq);
  errs.push(...ts('creationTimestamp'), ...ts('deletionTimestamp'));
  errs.push(
    ...validateImmutableField(
      newMeta.deletionGracePeriodSeconds,
      oldMeta.deletionGracePeriodSeconds,
      child(p, 'deletionGracePeriodSeconds'),
      (a, b) => (a ?? null) === (b ?? null),
    ),
  );
  return errs;
}

/**
 * Validates metadata on update: every create-time check on the new metadata (name syntax, namespace,
 * labels, annotations, owner references, finalizers, managedFields) followed by the update-only checks
 * of validateObjectMetaUpdateOnly. This is the union of upstream's ValidateObjectMetaAccessor and
 * ValidateObjectMetaAccessorUpdate, each error reported once.
 * Without opts it does what upstream's generic validateCommonFields does: the path-segment name rule,
 * with the scope taken from whether the old object has a namespace.
 */
export function validateObjectMetaUpdate(
  newMeta: ObjectMeta,
  oldMeta: ObjectMeta,
  opts: ObjectMetaOptions = { namespaced: Boolean(oldMeta.namespace), nameValidator: 'pathSegment' },
): FieldErrorList {
  return [...validateObjectMeta(newMeta, opts), ...validateObjectMetaUpdateOnly(newMeta, oldMeta, opts.fieldPath)];
}
