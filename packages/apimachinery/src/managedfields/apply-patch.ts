import { newBadRequest, newInternalError, type StatusError } from '../errors/status-error.js';
import type { JsonObject, ManagedFieldsEntry } from '../meta/types.js';
import { newConflictError } from './conflict.js';
import {
  BEFORE_FIRST_APPLY_MANAGER,
  managedFieldsOf,
  setManagedFields,
  stripMeta,
  updateChain,
  withoutManagedFields,
  type FieldManagerScope,
} from './field-manager.js';
import { FieldSet } from './field-set.js';
import { allowedConflictsFromLastApplied, KUBECTL_MANAGER, syncLastApplied } from './last-applied.js';
import { isObject, TypedValueError } from './list-items.js';
import { decodeManagedFields, encodeManagedFields, formatTime, managerIdentifier, type Managed } from './managers.js';
import { fieldSetFromObject } from './to-field-set.js';
import { applyConfig, ConflictsError, type Conflict } from './updater.js';

/** Input of {@link applyPatch}. */
export interface ApplyPatchInput extends FieldManagerScope {
  /** Stored object; undefined when the apply creates it. */
  live: JsonObject | undefined;
  /** The parsed apply body (partial object). */
  applied: JsonObject;
  /** `fieldManager` of the request (validated by validateApplyRequest). */
  manager: string;
  /** `force` of the request. */
  force: boolean;
  /** When set, the body's apiVersion and kind must be `apiVersion` and this kind (upstream versionCheckManager). */
  kind?: string;
  /** Live managedFields; defaults to those of `live`. */
  managedFields?: ManagedFieldsEntry[];
}

/** The object to store (managedFields set inside) and its managedFields (undefined = none). */
export interface ApplyPatchResult {
  object: JsonObject;
  managedFields: ManagedFieldsEntry[] | undefined;
}

function parseGroupVersion(apiVersion: unknown): { group: string; version: string } | undefined {
  if (typeof apiVersion !== 'string' || apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] as string, version: parts[1] as string };
  return undefined;
}

/** Go's GroupVersionKind.String(): `group/version, Kind=kind`. */
function gvkString(obj: JsonObject): string {
  const gv = parseGroupVersion(obj['apiVersion']);
  if (!gv) return '/, Kind=';
  const kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
  return `${gv.group}/${gv.version}, Kind=${kind}`;
}

function objectRef(obj: JsonObject): string {
  const meta = isObject(obj['metadata']) ? obj['metadata'] : {};
  const ns = typeof meta['namespace'] === 'string' ? meta['namespace'] : '';
  const name = typeof meta['name'] === 'string' ? meta['name'] : '';
  return `${gvkString(obj)} ${ns}/${name}`;
}

/**
 * Server-side apply of `applied` by `manager` onto `live` (upstream FieldManager.Apply with its
 * chain: version check, kubectl last-applied handling, before-first-apply ownership, manager info,
 * entry time, strip meta, structured merge). Returns the object to store with its managedFields.
 * Throws StatusError: 400 for a wrong apiVersion/kind or a body carrying managedFields, 409
 * Conflict (one FieldManagerConflict cause per field) when other managers own fields the
 * configuration changes and `force` is false, 500 for bodies that do not fit the schema
 * (duplicate or missing list keys), as upstream.
 */
export function applyPatch(input: ApplyPatchInput): ApplyPatchResult {
  const { applied } = input;
  if (input.kind !== undefined && (applied['apiVersion'] !== input.apiVersion || applied['kind'] !== input.kind)) {
    throw newBadRequest(`invalid object type: ${gvkString(applied)}`);
  }
  const result = runWithKubectlUpgrade(input);
  if (input.manager === KUBECTL_MANAGER) syncLastApplied(result.object, applied);
  return result;
}

/** upstream lastAppliedManager: kubectl may take over fields it set with client-side apply. */
function runWithKubectlUpgrade(input: ApplyPatchInput): ApplyPatchResult {
  try {
    return run(input, input.force);
  } catch (e) {
    if (!(e instanceof ConflictsError)) throw e;
    if (input.manager !== KUBECTL_MANAGER || !input.live) throw newConflictError(e.conflicts);
    const allowed = allowedConflictsFromLastApplied(withoutManagedFields(input.live), input.schema);
    if (!allowed) throw newConflictError(e.conflicts);
    const remaining: Conflict[] = e.conflicts.filter((c) => !allowed.has(c.path));
    if (remaining.length > 0) throw newConflictError(remaining);
    return run(input, true);
  }
}

function run(input: ApplyPatchInput, force: boolean): ApplyPatchResult {
  const { applied, schema, apiVersion } = input;
  const appliedGv = parseGroupVersion(applied['apiVersion']);
  const appliedVersion = appliedGv ? (appliedGv.group ? `${appliedGv.group}/${appliedGv.version}` : appliedGv.version) : '';
  if (appliedVersion !== apiVersion) {
    throw newBadRequest(`Incorrect version specified in apply patch. Specified patch version: ${appliedVersion}, expected: ${apiVersion}`);
  }
  if (isObject(applied['metadata']) && applied['metadata']['managedFields'] !== undefined && applied['metadata']['managedFields'] !== null) {
    throw newBadRequest('metadata.managedFields must be nil');
  }
  let managed: Managed;
  try {
    managed = decodeManagedFields(input.managedFields ?? managedFieldsOf(input.live));
  } catch (e) {
    throw newInternalError(new Error(`failed to decode managed fields: ${(e as Error).message}`));
  }
  const live = input.live ? withoutManagedFields(input.live) : {};
  if (managed.fields.size === 0) {
    // Whoever set the existing fields is unknown: give them to a placeholder Update manager.
    try {
      managed = updateChain({}, live, managed, BEFORE_FIRST_APPLY_MANAGER, { ...input, subresource: input.subresource });
    } catch (e) {
      throw newInternalError(new Error(`failed to create manager for existing fields: ${(e as Error).message}`));
    }
  }
  typedCheck(() => fieldSetFromObject(applied, schema, true), `failed to create typed patch object (${objectRef(applied)})`);
  typedCheck(() => fieldSetFromObject(live, schema, false), `failed to create typed live object (${objectRef(live)})`);
  const id = managerIdentifier({ manager: input.manager || 'unknown', operation: 'Apply', subresource: input.subresource });
  const outcome = applyConfig(live, applied, apiVersion, managed, id, force, schema);
  stripMeta(outcome.managed, id);
  if (outcome.object !== undefined) outcome.managed.times.set(id, formatTime(input.now));
  const object = (isObject(outcome.object) ? outcome.object : live) as JsonObject;
  const managedFields = encodeManagedFields(outcome.managed);
  setManagedFields(object, managedFields);
  return { object, managedFields };
}

function typedCheck(fn: () => FieldSet, prefix: string): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof TypedValueError) throw newInternalError(new Error(`${prefix}: ${e.message}`)) as StatusError;
    throw e;
  }
}
