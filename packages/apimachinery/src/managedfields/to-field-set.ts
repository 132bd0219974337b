import type { JsonValue } from '../meta/types.js';
import { FieldSet } from './field-set.js';
import { indexListItems, isObject, withPrefix } from './list-items.js';
import type { FieldPath } from './path-element.js';
import { childOfMap, isNamedField, typeOfValue, type StructuredType } from './structured-type.js';

/**
 * All field paths set in `value` of type `schema`, as SMD's TypedValue.ToFieldSet: scalars and
 * atomic lists/maps are leaves; associative-list items and map keys (undeclared fields) are members
 * themselves; declared struct fields are members only when null or an empty map. Throws
 * TypedValueError for items that cannot be addressed or, with `rejectDuplicates` (default true, as
 * for applied configurations), duplicate list keys.
 */
export function fieldSetFromObject(value: JsonValue, schema: StructuredType, rejectDuplicates = true): FieldSet {
  const set = new FieldSet();
  walk(value, schema, [], set, rejectDuplicates);
  return set;
}

function walk(value: JsonValue, declared: StructuredType, path: FieldPath, set: FieldSet, strict: boolean): void {
  const t = typeOfValue(declared, value);
  if (t.kind === 'scalar' || t.kind === 'untyped') {
    set.insert(path);
    return;
  }
  if (t.kind === 'list') {
    if (t.listType === 'atomic') {
      set.insert(path);
      return;
    }
    if (!Array.isArray(value)) return;
    const { order } = indexListItems(t, value, strict);
    for (const item of order) {
      const p = [...path, item.pe];
      withPrefix(item.pe, () => walk(item.value, t.element(), p, set, strict));
      set.insert(p);
    }
    return;
  }
  if (t.atomic) {
    set.insert(path);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const pe = { field: key };
    const p = [...path, pe];
    withPrefix(pe, () => walk(v, childOfMap(t, key), p, set, strict));
    if (v === null || (isObject(v) && Object.keys(v).length === 0) || !isNamedField(t, key)) set.insert(p);
  }
}
