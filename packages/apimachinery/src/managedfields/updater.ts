import type { JsonValue } from '../meta/types.js';
import { compareObjects, type Comparison } from './compare.js';
import { FieldSet } from './field-set.js';
import { deepEqual } from './list-items.js';
import { cloneManaged, type Managed } from './managers.js';
import { mergeObjects } from './merge.js';
import type { FieldPath } from './path-element.js';
import { removeItems } from './remove.js';
import { ensureNamedFieldsAreMembers, reconcileWithSchema } from './set-schema.js';
import type { StructuredType } from './structured-type.js';
import { fieldSetFromObject } from './to-field-set.js';

/** One field that another manager owns and an apply would change. */
export interface Conflict {
  /** Manager identifier (see managerIdentifier). */
  readonly manager: string;
  readonly path: FieldPath;
}

/** Thrown by {@link applyConfig} without force when other managers own changed fields. */
export class ConflictsError extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(`${conflicts.length} conflicts`);
    this.name = 'ConflictsError';
  }
}

/** Rule 10: adapts every manager's set to the current schema (mutates `managed`). */
function reconcile(managed: Managed, schema: StructuredType): void {
  for (const [id, vs] of managed.fields) {
    const set = reconcileWithSchema(vs.set, schema);
    if (set) managed.fields.set(id, { ...vs, set });
  }
}

/**
 * Takes fields changed between `oldObj` and `newObj` away from every manager but `workflow`
 * (SMD Updater.update). Without force, fields owned by others that were added or modified throw
 * {@link ConflictsError}; removed fields always leave the other owners. Mutates `managed`.
 */
function takeOwnership(oldObj: JsonValue, newObj: JsonValue, schema: StructuredType, managed: Managed, workflow: string, force: boolean): Comparison {
  const cmp = compareObjects(oldObj, newObj, schema);
  const changed = cmp.modified.union(cmp.added);
  const conflicts: Conflict[] = [];
  const conflictSets = new Map<string, FieldSet>();
  for (const [id, vs] of managed.fields) {
    if (id === workflow) continue;
    const c = vs.set.intersection(changed);
    if (!c.isEmpty()) {
      conflictSets.set(id, c);
      for (const path of c.paths()) conflicts.push({ manager: id, path });
    }
  }
  if (!force && conflicts.length > 0) throw new ConflictsError(conflicts);
  for (const [id, vs] of [...managed.fields]) {
    if (id === workflow) continue;
    let set = vs.set;
    const c = conflictSets.get(id);
    if (c) set = set.difference(c);
    if (!cmp.removed.isEmpty()) set = set.difference(cmp.removed);
    if (set.isEmpty()) managed.fields.delete(id);
    else if (set !== vs.set) managed.fields.set(id, { ...vs, set });
  }
  return cmp;
}

/**
 * Records a non-apply write (SMD Updater.Update): `manager` gains the fields added or modified
 * between `live` and `updated`, loses removed ones, and other managers lose all of them. Returns
 * new managed fields; inputs are not modified.
 */
export function updateOwnership(live: JsonValue, updated: JsonValue, apiVersion: string, managedIn: Managed, manager: string, schema: StructuredType): Managed {
  const managed = cloneManaged(managedIn);
  reconcile(managed, schema);
  const cmp = takeOwnership(live, updated, schema, managed, manager, true);
  const prev = managed.fields.get(manager)?.set ?? new FieldSet();
  const set = prev.difference(cmp.removed).union(cmp.modified).union(cmp.added);
  if (set.isEmpty()) managed.fields.delete(manager);
  else managed.fields.set(manager, { set, apiVersion, applied: false });
  return managed;
}

/** Result of {@link applyConfig}; `object` is undefined when the apply changes nothing. */
export interface ApplyOutcome {
  object: JsonValue | undefined;
  managed: Managed;
}

/**
 * Applies configuration `config` of `manager` to `live` (SMD Updater.Apply): merges it, makes the
 * manager own exactly the configuration's fields, removes fields the manager applied before but no
 * longer applies unless another manager owns them (SPEC 4.8 rule 6), then takes changed fields
 * from other managers. Throws {@link ConflictsError} without force, or TypedValueError for a
 * configuration that does not fit the schema. Inputs are not modified.
 */
export function applyConfig(live: JsonValue, config: JsonValue, apiVersion: string, managedIn: Managed, manager: string, force: boolean, schema: StructuredType): ApplyOutcome {
  const managed = cloneManaged(managedIn);
  reconcile(managed, schema);
  const configSet = fieldSetFromObject(config, schema, true);
  let merged: JsonValue = mergeObjects(live, config, schema) ?? {};
  const last = managed.fields.get(manager);
  managed.fields.set(manager, { set: configSet, apiVersion, applied: true });
  if (last && !last.set.isEmpty()) merged = prune(merged, managed, last.set, schema);
  takeOwnership(live, merged, schema, managed, manager, force);
  if (configSet.isEmpty()) managed.fields.delete(manager);
  return { object: deepEqual(live, merged) ? undefined : merged, managed };
}

/**
 * Removes what the manager applied last time and no longer applies, unless some manager
 * (including its new configuration) still owns it; the same as SMD's prune with its
 * add-back-owned and add-back-dangling passes.
 */
function prune(merged: JsonValue, managed: Managed, lastSet: FieldSet, schema: StructuredType): JsonValue {
  let owned = new FieldSet();
  for (const vs of managed.fields.values()) owned = owned.union(vs.set);
  const toRemove = ensureNamedFieldsAreMembers(lastSet, schema).difference(ensureNamedFieldsAreMembers(owned, schema));
  return removeItems(merged, toRemove, schema) ?? {};
}
