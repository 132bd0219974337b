import type { JsonObject, JsonValue } from '../meta/types.js';
import { indexListItems, isObject, own, withPrefix, type ListItem } from './list-items.js';
import { childOfMap, typeOfValue, type ListType, type StructuredType } from './structured-type.js';

/**
 * Merges an applied configuration `rhs` into the live object `lhs` under `schema` (SMD
 * TypedValue.Merge): leaves and atomic lists/maps take the applied value; structs and granular maps
 * merge key by key; map lists merge items by key and sets by value, keeping live-only items in
 * place and ordering shared items as the configuration does. Inputs are not modified.
 */
export function mergeObjects(lhs: JsonValue | undefined, rhs: JsonValue | undefined, schema: StructuredType): JsonValue | undefined {
  if (rhs === undefined) return lhs;
  const t = typeOfValue(schema, rhs !== null ? rhs : lhs);
  if (t.kind === 'scalar' || t.kind === 'untyped') return rhs;
  const lEmpty = lhs === undefined || lhs === null || (Array.isArray(lhs) && lhs.length === 0) || (isObject(lhs) && Object.keys(lhs).length === 0);
  const rEmpty = rhs === null || (Array.isArray(rhs) && rhs.length === 0) || (isObject(rhs) && Object.keys(rhs).length === 0);
  if (t.kind === 'list') {
    if (t.listType === 'atomic' || (lEmpty && rEmpty) || (lhs !== undefined && lhs !== null && !Array.isArray(lhs))) return rhs;
    return mergeList(t, Array.isArray(lhs) ? lhs : [], Array.isArray(rhs) ? rhs : []);
  }
  if (t.atomic || (lEmpty && rEmpty) || (lhs !== undefined && lhs !== null && !isObject(lhs))) return rhs;
  const lo = isObject(lhs) ? lhs : {};
  const ro = isObject(rhs) ? rhs : {};
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(lo)) {
    if (v === undefined) continue;
    const merged = withPrefix({ field: k }, () => mergeObjects(v, own(ro, k), childOfMap(t, k)));
    if (merged !== undefined) out[k] = merged;
  }
  for (const [k, v] of Object.entries(ro)) {
    if (v === undefined || own(lo, k) !== undefined) continue;
    const merged = withPrefix({ field: k }, () => mergeObjects(undefined, v, childOfMap(t, k)));
    if (merged !== undefined) out[k] = merged;
  }
  return out;
}

/**
 * SMD's list merge order: walk both lists; live-only items stay where they are, items of the
 * configuration come in its order, and a shared item is emitted when the configuration reaches it.
 */
function mergeList(t: ListType, lhs: readonly JsonValue[], rhs: readonly JsonValue[]): JsonValue[] {
  const l = indexListItems(t, lhs, false);
  const r = indexListItems(t, rhs, true);
  const shared = r.order.filter((i) => l.byKey.has(i.key));
  let sharedIdx = 0;
  let nextShared: ListItem | undefined = shared[sharedIdx++];
  const out: JsonValue[] = [];
  const emit = (lv: JsonValue | undefined, item: ListItem, rv: JsonValue | undefined): void => {
    const merged = withPrefix(item.pe, () => mergeObjects(lv, rv, t.element()));
    if (merged !== undefined) out.push(merged);
  };
  let li = 0;
  let ri = 0;
  while (li < l.order.length || ri < r.order.length) {
    const lItem = l.order[li];
    const rItem = r.order[ri];
    if (lItem && rItem) {
      if (lItem.key === rItem.key) {
        emit(lItem.value, lItem, rItem.value);
        li++;
        ri++;
        nextShared = shared[sharedIdx++];
        continue;
      }
      if (r.byKey.has(lItem.key) && nextShared !== undefined && nextShared.key !== lItem.key) {
        li++;
        continue;
      }
    }
    if (lItem && !r.byKey.has(lItem.key)) {
      emit(lItem.value, lItem, undefined);
      li++;
      continue;
    }
    if (rItem) {
      emit(l.byKey.get(rItem.key)?.value, rItem, rItem.value);
      ri++;
      if (nextShared !== undefined && nextShared.key === rItem.key) nextShared = shared[sharedIdx++];
    } else {
      // Only shared live items remain and the configuration is exhausted: they were emitted already.
      li++;
    }
  }
  return out;
}
