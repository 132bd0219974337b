import type { JsonObject, JsonValue, ManagedFieldsEntry } from '../meta/types.js';
import { capUpdateManagers } from './cap-managers.js';
import { fieldsOfNewObject } from './created-fields.js';
import { FieldSet } from './field-set.js';
import { toFieldsV1 } from './fields-v1.js';
import { isObject } from './list-items.js';
import {
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  formatTime,
  isResetManagedFields as isResetRequest,
  managerIdentifier,
  type Managed,
} from './managers.js';
import type { StructuredType } from './structured-type.js';
import { updateOwnership } from './updater.js';

/** Manager that takes ownership of existing fields when an object without managedFields is first applied. */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';
const CURRENT_OPERATION = 'current-operation';

/**
 * Fields nobody owns (upstream stripMetaManager): identity and server-maintained metadata. Exact
 * paths only, so `.metadata.labels...` stay owned.
 */
const STRIP_SET = FieldSet.of(
  [{ field: 'apiVersion' }],
  [{ field: 'kind' }],
  [{ field: 'metadata' }],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map(
    (f) => [{ field: 'metadata' }, { field: f }],
  ),
);

/** What every field-manager call needs to know about the resource. */
export interface FieldManagerScope {
  /** Structured type of the kind (see structuredTypeFromOpenApi). */
  schema: StructuredType;
  /** `v1` or `group/version` of the request. */
  apiVersion: string;
  /** Subresource written through (`status`...), '' or undefined for the main resource. */
  subresource?: string;
  /** Clock reading used for entry times. */
  now: Date;
}

const clone = <T extends JsonValue>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** `obj` (copied) without metadata.managedFields. */
export function withoutManagedFields(obj: JsonObject): JsonObject {
  const copy = clone(obj);
  const meta = copy['metadata'];
  if (isObject(meta)) delete meta['managedFields'];
  return copy;
}

/**
 * `obj` without metadata.managedFields for reading only: shares everything else with `obj`
 * (a deep copy of every object on every write showed up in profiles).
 */
function readOnlyWithoutManagedFields(obj: JsonObject): JsonObject {
  const meta = obj['metadata'];
  if (!isObject(meta) || !('managedFields' in meta)) return obj;
  const { managedFields: _dropped, ...rest } = meta;
  return { ...obj, metadata: rest };
}

export function managedFieldsOf(obj: JsonObject | undefined): ManagedFieldsEntry[] | undefined {
  const meta = obj?.['metadata'];
  const mf = isObject(meta) ? meta['managedFields'] : undefined;
  return Array.isArray(mf) ? (mf as unknown as ManagedFieldsEntry[]) : undefined;
}

/** Sets or removes metadata.managedFields of `obj` (mutated). */
export function setManagedFields(obj: JsonObject, entries: ManagedFieldsEntry[] | undefined): void {
  let meta = obj['metadata'];
  if (!isObject(meta)) {
    if (entries === undefined) return;
    meta = {};
    obj['metadata'] = meta;
  }
  if (entries === undefined) delete meta['managedFields'];
  else meta['managedFields'] = entries as unknown as JsonValue;
}

/** Drops the stripped fields from `id`'s set (mutates). */
export function stripMeta(managed: Managed, id: string): void {
  const vs = managed.fields.get(id);
  if (!vs) return;
  const set = vs.set.difference(STRIP_SET);
  if (set.isEmpty()) managed.fields.delete(id);
  else managed.fields.set(id, { ...vs, set });
}

/**
 * The Update half of upstream's manager chain below skip-non-applied: structured merge, strip
 * meta, the current-operation merge with the manager's previous entry and its time, build manager
 * info, then the cap on Update entries. Returns new managed fields.
 */
export function updateChain(live: JsonObject, updated: JsonObject, managed: Managed, manager: string, scope: FieldManagerScope): Managed {
  const id = managerIdentifier({
    manager: manager || 'unknown',
    operation: 'Update',
    apiVersion: scope.apiVersion,
    subresource: scope.subresource,
  });
  const out = updateOwnership(live, updated, scope.apiVersion, managed, CURRENT_OPERATION, scope.schema);
  stripMeta(out, CURRENT_OPERATION);
  const current = out.fields.get(CURRENT_OPERATION);
  if (current) {
    out.fields.delete(CURRENT_OPERATION);
    const previous = out.fields.get(id);
    out.fields.set(id, previous ? { ...current, set: current.set.union(previous.set) } : current);
    out.times.set(id, formatTime(scope.now));
  }
  capUpdateManagers(out);
  return out;
}

/**
 * What {@link updateChain} gives for a create that brings no managed fields of its own: one Update
 * entry of the manager owning every field the object sets (identity and server metadata
 * stripped), or none when that is nothing. Built directly: there is nothing to compare against,
 * no other manager to take fields from, and a single entry is under the cap.
 */
function createdEntries(updated: JsonObject, input: UpdateManagedFieldsInput): ManagedFieldsEntry[] | undefined {
  const set = fieldsOfNewObject(updated, input.schema).difference(STRIP_SET);
  if (set.isEmpty()) return undefined;
  return [
    {
      manager: input.manager || 'unknown',
      operation: 'Update',
      apiVersion: input.apiVersion,
      time: formatTime(input.now),
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(set),
    },
  ];
}

/** Input of {@link updateManagedFields}. */
export interface UpdateManagedFieldsInput extends FieldManagerScope {
  /** Stored object; undefined on create. */
  live: JsonObject | undefined;
  /** Object about to be stored, as the client sent it (its managedFields included). */
  updated: JsonObject;
  /** Field manager name (defaulted by the caller from the user agent; '' becomes "unknown"). */
  manager: string;
  /**
   * SPEC 4.8 rule 9: after a `[{}]` reset, the requester owns the fields its request changed
   * (default true). Upstream skips tracking instead; false reproduces that.
   */
  ownFieldsAfterReset?: boolean;
}

/**
 * Managed fields after a non-apply write (create, update, non-apply patch), as upstream's
 * FieldManager.UpdateNoErrors. Uses the request's managedFields when they decode and are non-empty
 * (so clients may edit them), otherwise the live ones; `[{}]` resets them first (rule 9). The
 * manager gains what it changed; removed fields leave every owner. An update of an object that has
 * no managedFields stays untracked. Never throws: on any failure the result is undefined, meaning
 * "store no managedFields", as upstream. Returns entries to store, or undefined to remove the field.
 */
export function updateManagedFields(input: UpdateManagedFieldsInput): ManagedFieldsEntry[] | undefined {
  try {
    const liveMf = managedFieldsOf(input.live);
    const newMf = isObject(input.updated['metadata']) ? input.updated['metadata']['managedFields'] : undefined;
    const decodeOrEmpty = (e: ManagedFieldsEntry[] | undefined): Managed => {
      try {
        return decodeManagedFields(e);
      } catch {
        return emptyManaged();
      }
    };
    let managed: Managed;
    let reset = false;
    if (input.subresource) managed = decodeOrEmpty(liveMf);
    else if (isResetRequest(newMf)) {
      managed = emptyManaged();
      reset = true;
    } else {
      let fromRequest: Managed | undefined;
      try {
        fromRequest = Array.isArray(newMf) ? decodeManagedFields(newMf as unknown as ManagedFieldsEntry[]) : undefined;
      } catch {
        fromRequest = undefined;
      }
      managed = fromRequest && fromRequest.fields.size > 0 ? fromRequest : decodeOrEmpty(liveMf);
    }
    // Compared, never modified: views suffice.
    const live = input.live ? readOnlyWithoutManagedFields(input.live) : {};
    const updated = readOnlyWithoutManagedFields(input.updated);
    if (managed.fields.size === 0) {
      if (!input.live && !input.subresource) return createdEntries(updated, input);
      const liveMeta = live['metadata'];
      const isCreate = !input.live || !(isObject(liveMeta) && typeof liveMeta['uid'] === 'string' && liveMeta['uid'] !== '');
      if (!isCreate && !(reset && (input.ownFieldsAfterReset ?? true))) return undefined;
    }
    return encodeManagedFields(updateChain(live, updated, managed, input.manager, input));
  } catch {
    return undefined;
  }
}
