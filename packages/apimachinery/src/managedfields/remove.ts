import type { JsonObject, JsonValue } from '../meta/types.js';
import type { FieldSet } from './field-set.js';
import { isObject, listItemPathElement, TypedValueError } from './list-items.js';
import { childOfMap, typeOfValue, type StructuredType } from './structured-type.js';

/**
 * `value` without the fields and items named in `toRemove` (each with its subtree), as SMD's
 * TypedValue.RemoveItems. Atomic values are never entered. A struct, map or list left empty by the
 * removal is returned as undefined so that the caller drops it, as built-in types omit nil maps and
 * slices. Unaddressable list items are kept.
 */
export function removeItems(value: JsonValue, toRemove: FieldSet, schema: StructuredType): JsonValue | undefined {
  if (toRemove.isEmpty()) return value;
  const t = typeOfValue(schema, value);
  if (t.kind === 'list') {
    if (!Array.isArray(value) || value.length === 0 || t.listType === 'atomic') return value;
    const out: JsonValue[] = [];
    value.forEach((item, i) => {
      let pe;
      try {
        pe = listItemPathElement(t, i, item);
      } catch (e) {
        if (!(e instanceof TypedValueError)) throw e;
        out.push(item);
        return;
      }
      if (toRemove.hasMember(pe)) return;
      const sub = toRemove.withPrefix(pe);
      const kept = sub.isEmpty() ? item : removeItems(item, sub, t.element());
      if (kept !== undefined) out.push(kept);
    });
    return out.length > 0 ? out : undefined;
  }
  if (t.kind !== 'map' || t.atomic || !isObject(value) || Object.keys(value).length === 0) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const pe = { field: k };
    if (toRemove.hasMember(pe)) continue;
    const sub = toRemove.withPrefix(pe);
    const kept = sub.isEmpty() ? v : removeItems(v, sub, childOfMap(t, k));
    if (kept !== undefined) out[k] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
