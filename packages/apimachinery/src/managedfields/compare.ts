import type { JsonValue } from '../meta/types.js';
import { FieldSet } from './field-set.js';
import { deepEqual, indexListItems, isObject, own, withPrefix } from './list-items.js';
import type { FieldPath } from './path-element.js';
import { childOfMap, typeOfValue, type StructuredType } from './structured-type.js';

/** Fields added, modified and removed between two versions of an object (SMD Comparison). */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/**
 * Compares `lhs` (old) with `rhs` (new) under `schema`. Leaves (scalars, atomic lists/maps, and
 * lists/maps empty on both sides) are added, removed or modified by value; a granular list item,
 * map key or struct field that appears or disappears is itself reported as added or removed too.
 * Duplicate list keys are tolerated (first occurrence wins), as for stored objects.
 */
export function compareObjects(lhs: JsonValue | undefined, rhs: JsonValue | undefined, schema: StructuredType): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  if (lhs === undefined && rhs === undefined) return c;
  walk(lhs, rhs, schema, [], c);
  return c;
}

function leaf(lhs: JsonValue | undefined, rhs: JsonValue | undefined, path: FieldPath, c: Comparison): void {
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
  else if (!deepEqual(lhs, rhs)) c.modified.insert(path);
}

const isEmptyContainer = (v: JsonValue | undefined): boolean =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

function walk(lhs: JsonValue | undefined, rhs: JsonValue | undefined, declared: StructuredType, path: FieldPath, c: Comparison): void {
  const t = typeOfValue(declared, rhs !== undefined && rhs !== null ? rhs : lhs);
  const lt = typeOfValue(declared, lhs);
  // A side whose JSON kind differs from the other is compared as a whole value.
  if (t.kind !== lt.kind && lhs !== undefined && lhs !== null) return leaf(lhs, rhs, path, c);
  const bothEmpty = isEmptyContainer(lhs) && isEmptyContainer(rhs);
  if (t.kind === 'scalar' || t.kind === 'untyped') return leaf(lhs, rhs, path, c);
  if (t.kind === 'list') {
    if (t.listType === 'atomic' || bothEmpty) return leaf(lhs, rhs, path, c);
    const l = indexListItems(t, Array.isArray(lhs) ? lhs : [], false);
    const r = indexListItems(t, Array.isArray(rhs) ? rhs : [], false);
    for (const item of l.order) {
      withPrefix(item.pe, () => walk(item.value, r.byKey.get(item.key)?.value, t.element(), [...path, item.pe], c));
    }
    for (const item of r.order) {
      if (!l.byKey.has(item.key)) withPrefix(item.pe, () => walk(undefined, item.value, t.element(), [...path, item.pe], c));
    }
  } else {
    if (t.atomic || bothEmpty) return leaf(lhs, rhs, path, c);
    const lo = isObject(lhs) ? lhs : {};
    const ro = isObject(rhs) ? rhs : {};
    for (const [k, v] of Object.entries(lo)) {
      if (v === undefined) continue;
      withPrefix({ field: k }, () => walk(v, own(ro, k), childOfMap(t, k), [...path, { field: k }], c));
    }
    for (const [k, v] of Object.entries(ro)) {
      if (v === undefined || own(lo, k) !== undefined) continue;
      withPrefix({ field: k }, () => walk(undefined, v, childOfMap(t, k), [...path, { field: k }], c));
    }
  }
  // Post-item hook: a granular node that appears or disappears is owned as a whole too.
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}
