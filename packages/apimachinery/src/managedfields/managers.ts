import type { JsonObject, ManagedFieldsEntry } from '../meta/types.js';
import { compareStrings } from './go-json.js';
import type { FieldSet } from './field-set.js';
import { fieldsV1ToSet, toFieldsV1 } from './fields-v1.js';

/** The fields one manager owns, at the API version it used; `applied` for Apply entries. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/**
 * Decoded managedFields: sets and times keyed by manager identifier (the JSON of the entry
 * without time, fieldsType, fieldsV1, and without apiVersion for Apply entries; see
 * {@link managerIdentifier}).
 */
export interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
}

export const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

/** Copies the maps (sets are immutable by convention). */
export const cloneManaged = (m: Managed): Managed => ({ fields: new Map(m.fields), times: new Map(m.times) });

/**
 * The identifier upstream keys managers by: Go's JSON of the entry with time, fieldsType and
 * fieldsV1 cleared, and apiVersion cleared for Apply (so an applier is one manager across versions).
 */
export function managerIdentifier(e: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const id: JsonObject = {};
  if (e.manager) id['manager'] = e.manager;
  if (e.operation) id['operation'] = e.operation;
  if (e.apiVersion && e.operation !== 'Apply') id['apiVersion'] = e.apiVersion;
  if (e.subresource) id['subresource'] = e.subresource;
  return JSON.stringify(id);
}

/** Parses an identifier back into its entry fields. */
export function parseManagerIdentifier(id: string): Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'> {
  return JSON.parse(id) as ManagedFieldsEntry;
}

/** Thrown by {@link decodeManagedFields} for entries upstream refuses to decode. */
export class ManagedFieldsDecodeError extends Error {}

/**
 * Decodes managedFields entries, as upstream's DecodeManagedFields: operation must be Apply or
 * Update, apiVersion non-empty, fieldsType `FieldsV1`, fieldsV1 parseable. Throws
 * {@link ManagedFieldsDecodeError} with upstream's wording. Later duplicates replace earlier ones.
 */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): Managed {
  const managed = emptyManaged();
  (entries ?? []).forEach((e, i) => {
    if (e === null || typeof e !== 'object') throw new ManagedFieldsDecodeError(`managed fields entry ${i} is not an object`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsDecodeError('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new ManagedFieldsDecodeError('apiVersion must not be empty');
    if (e.fieldsType === undefined || (e.fieldsType as string) === '') {
      throw new ManagedFieldsDecodeError(`missing fieldsType in managed fields entry ${i}`);
    }
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsDecodeError(`invalid fieldsType "${e.fieldsType as string}" in managed fields entry ${i}`);
    let set: FieldSet;
    try {
      set = fieldsV1ToSet(e.fieldsV1);
    } catch (err) {
      throw new ManagedFieldsDecodeError(`error decoding versioned set from entry ${i}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const id = managerIdentifier(e);
    managed.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    managed.times.set(id, e.time ?? undefined);
  });
  return managed;
}

const seconds = (t: string | undefined): number => {
  const ms = t ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

/**
 * Encodes decoded managed fields as entries in upstream's order (Apply before Update, then by time,
 * manager, apiVersion, subresource) and key order. Returns undefined when there are none, meaning
 * `metadata.managedFields` is to be removed.
 */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const info = parseManagerIdentifier(id);
    const e: ManagedFieldsEntry = {};
    if (info.manager) e.manager = info.manager;
    e.operation = vs.applied ? 'Apply' : (info.operation ?? 'Update');
    e.apiVersion = vs.apiVersion;
    const time = managed.times.get(id);
    if (time) e.time = time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = toFieldsV1(vs.set);
    if (info.subresource) e.subresource = info.subresource;
    out.push(e);
  }
  return out.sort(
    (p, q) =>
      compareStrings(p.operation ?? '', q.operation ?? '') ||
      seconds(p.time) - seconds(q.time) ||
      compareStrings(p.manager ?? '', q.manager ?? '') ||
      compareStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
      compareStrings(p.subresource ?? '', q.subresource ?? ''),
  );
}

/** The second {@link formatTime} formatted last, and its text: a create formats the same second twice or more. */
let formattedSecond = NaN;
let formattedText = '';

/**
 * RFC 3339 with second precision in UTC, as metav1.Time serializes. Throws a RangeError for an
 * invalid date, as `toISOString` does.
 */
export function formatTime(now: Date): string {
  const second = Math.floor(now.getTime() / 1000);
  if (second === formattedSecond) return formattedText;
  const iso = now.toISOString();
  // YYYY-MM-DDTHH:mm:ss.sssZ (years 0-9999): drop the milliseconds, which rounds down to the second.
  const text = iso.length === 24 ? `${iso.slice(0, 19)}Z` : new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  formattedSecond = second;
  formattedText = text;
  return text;
}

/**
 * Whether `entries` asks for a reset (SPEC 4.8 rule 9): a non-empty list whose entries are all
 * empty objects (`[{}]`). An empty list does not reset.
 */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries) || entries.length === 0) return false;
  const known = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'];
  // Go decodes into the typed entry first, so unknown keys and zero values do not count.
  return entries.every((e) => {
    if (e === null || typeof e !== 'object' || Array.isArray(e)) return false;
    const rec = e as Record<string, unknown>;
    return known.every((k) => rec[k] === undefined || rec[k] === null || rec[k] === '');
  });
}
