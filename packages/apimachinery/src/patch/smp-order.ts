// Element ordering for merged lists in strategic merge patch, as upstream's normalizeElementOrder
// family: patch order wins for items named in the patch, live order for the rest.
import type { JsonValue } from '../meta/types.js';
import { goFormat, isObject } from './json-value.js';
import {
  DELETE_DIRECTIVE,
  DIRECTIVE_MARKER,
  SET_ELEMENT_ORDER_PREFIX,
  errBadArgType,
  errMalformed,
  errNoMergeKey,
  goEqual,
  scalarKey,
} from './smp-support.js';

/** The value an element is identified by: its merge key for maps, itself otherwise. */
function identity(item: JsonValue | undefined, mergeKey: string, kind: string): JsonValue | undefined {
  if (kind !== 'map') return item;
  return isObject(item) ? (item[mergeKey] ?? null) : null;
}

function indexOf(list: readonly JsonValue[], item: JsonValue, mergeKey: string, kind: string): number {
  const id = identity(item, mergeKey, kind);
  return list.findIndex((v) => goEqual(identity(v, mergeKey, kind), id));
}

/** Index of the first map in `list` whose `key` equals `value`; errors on non-map elements. */
export function findMapByKey(list: readonly JsonValue[], key: string, value: JsonValue | undefined): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isObject(v)) throw errMalformed(`value for key ${i} is not a map`);
    if (Object.hasOwn(v, key) && goEqual(v[key], value)) return i;
  }
  return -1;
}

/** Splits a list of maps into those without and those with `$patch: delete`. */
export function extractToDeleteItems(list: readonly JsonValue[]): [JsonValue[], JsonValue[]] {
  const keep: JsonValue[] = [];
  const del: JsonValue[] = [];
  for (const v of list) {
    if (!isObject(v)) throw errBadArgType('map[string]interface {}', v);
    (v[DIRECTIVE_MARKER] === DELETE_DIRECTIVE ? del : keep).push(v);
  }
  return [keep, del];
}

function validateMergeKeyInLists(mergeKey: string, ...lists: readonly JsonValue[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) throw errBadArgType('map[string]interface {}', item);
      if (!Object.hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

/** Partitions scalars into those present in `partitionBy` and the rest. */
export function partitionPrimitives(list: readonly JsonValue[], partitionBy: readonly JsonValue[]): [JsonValue[], JsonValue[]] {
  const inPatch = new Set(partitionBy.map(scalarKey));
  const patch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of list) (inPatch.has(scalarKey(v)) ? patch : serverOnly).push(v);
  return [patch, serverOnly];
}

/** Partitions maps into those whose merge key appears in `partitionBy` and the rest. */
export function partitionMaps(
  list: readonly JsonValue[],
  partitionBy: readonly JsonValue[],
  mergeKey: string,
): [JsonValue[], JsonValue[]] {
  const patch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of list) {
    if (!isObject(v)) throw errBadArgType('map[string]interface {}', v);
    if (!Object.hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findMapByKey(partitionBy, mergeKey, v[mergeKey]) >= 0 ? patch : serverOnly).push(v);
  }
  return [patch, serverOnly];
}

/** Stable sort of `toSort` by position in `order`; `$patch: delete` maps go last. */
function normalizeSliceOrder(toSort: JsonValue[], order: readonly JsonValue[], mergeKey: string, kind: string): JsonValue[] {
  let del: JsonValue[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, toSort, order as JsonValue[]);
    [toSort, del] = extractToDeleteItems(toSort);
  }
  const rank = (v: JsonValue): number => {
    const i = indexOf(order, v, mergeKey, kind);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const sorted = toSort
    .map((v, i) => ({ v, i, r: rank(v) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((e) => e.v);
  return [...sorted, ...del];
}

/**
 * Interleaves server-only items (`left`) into patch items (`right`) keeping each list's order: a
 * server item goes first only when both it and the next patch item are in the live list and it
 * comes earlier there. Items new to the list therefore come before the remaining server items.
 */
function mergeSortedSlice(
  left: readonly JsonValue[],
  right: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string,
  kind: string,
): JsonValue[] {
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    const l = left[i];
    const r = right[j];
    if (l === undefined) {
      out.push(r as JsonValue);
      j++;
    } else if (r === undefined) {
      out.push(l);
      i++;
    } else {
      const li = indexOf(serverOrder, l, mergeKey, kind);
      const ri = indexOf(serverOrder, r, mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push(l);
        i++;
      } else {
        out.push(r);
        j++;
      }
    }
  }
  return out;
}

/** Orders a merged list: patch items by `patchOrder`, server-only items by `serverOrder`, interleaved. */
export function normalizeElementOrder(
  patch: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string,
  kind: string,
): JsonValue[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

/**
 * Checks that the patch list names its (non-deleted) items in the order `$setElementOrder` gives
 * and only items it lists, as upstream's validatePatchWithSetOrderList.
 */
export function validatePatchWithSetOrderList(
  patchList: readonly JsonValue[],
  setOrderList: readonly JsonValue[],
  mergeKey: string,
): void {
  if (setOrderList.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey ? extractToDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let s = 0;
  while (p < nonDelete.length && s < setOrderList.length) {
    const item = nonDelete[p];
    if (isObject(item) && Object.hasOwn(item, DIRECTIVE_MARKER)) {
      p++;
      continue;
    }
    const order = setOrderList[s];
    let equal: boolean;
    if (!mergeKey) {
      equal = goEqual(item, order);
    } else {
      if (!isObject(item)) throw errBadArgType('map[string]interface {}', item);
      if (!isObject(order)) throw errBadArgType('map[string]interface {}', order);
      if (!Object.hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      if (!Object.hasOwn(order, mergeKey)) throw errNoMergeKey(order, mergeKey);
      equal = goEqual(item[mergeKey], order[mergeKey]);
    }
    if (equal) p++;
    s++;
  }
  if (p < nonDelete.length && s >= setOrderList.length) {
    throw errMalformed(
      `the order in patch list:\n${goFormat(patchList as JsonValue[])}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goFormat(setOrderList as JsonValue[])}`,
    );
  }
}
