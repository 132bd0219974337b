import type { JsonValue } from '../meta/types.js';
import { FieldSet } from './field-set.js';
import { indexListItems, isObject, TypedValueError } from './list-items.js';
import { serializePathElement, type PathElement } from './path-element.js';
import { childOfMap, typeOfValue, type StructuredType } from './structured-type.js';

/**
 * The fields a create sets: the same set as `compareObjects(undefined, obj, schema).added`, built
 * in one pass without the comparison's path arrays, closures and per-insert trie walks (on a
 * create every node of the object is new, so there is nothing to compare). Every node below the
 * root is a member; a granular list or map that is not empty also holds its items. Throws
 * TypedValueError (path from the root) for list items that cannot be addressed, as the comparison does.
 */
export function fieldsOfNewObject(obj: JsonValue, schema: StructuredType): FieldSet {
  const root = new FieldSet();
  // The root itself is the empty path, which a set does not hold: only its children count.
  addChildren(obj, schema, root);
  return root;
}

/** Adds the node `v` at `pe` under `parent`, and what it holds. */
function addNode(v: JsonValue, declared: StructuredType, parent: FieldSet, pe: PathElement, key: string): void {
  parent.insertMember(pe, key);
  if (v === null) return;
  const holder = { parent, pe, key, set: undefined as FieldSet | undefined };
  try {
    addChildren(v, declared, holder);
  } catch (e) {
    if (e instanceof TypedValueError) throw new TypedValueError([pe, ...e.path], e.detail);
    throw e;
  }
}

/** Where a node's children go: its set, made under the parent on the first child (as a trie insert would). */
interface Holder {
  readonly parent: FieldSet;
  readonly pe: PathElement;
  readonly key: string;
  set: FieldSet | undefined;
}

function childSet(into: FieldSet | Holder): FieldSet {
  if (into instanceof FieldSet) return into;
  into.set ??= into.parent.childFor(into.pe, into.key);
  return into.set;
}

/**
 * Adds the items of `v` (a granular, non-empty list or map under its type) to `into`; leaves,
 * atomic and empty containers have none. Mirrors compare.ts's walk with no old value.
 */
function addChildren(v: JsonValue, declared: StructuredType, into: FieldSet | Holder): void {
  const t = typeOfValue(declared, v);
  if (t.kind === 'scalar' || t.kind === 'untyped') return;
  if (t.kind === 'list') {
    if (t.listType === 'atomic' || !Array.isArray(v) || v.length === 0) return;
    const element = t.element();
    for (const item of indexListItems(t, v, false).order) addNode(item.value, element, childSet(into), item.pe, item.key);
    return;
  }
  if (t.atomic || !isObject(v) || Object.keys(v).length === 0) return;
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    const child = v[k];
    if (child === undefined) continue;
    const pe = { field: k };
    addNode(child, childOfMap(t, k), childSet(into), pe, serializePathElement(pe));
  }
}
