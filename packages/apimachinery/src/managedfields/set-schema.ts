import { FieldSet } from './field-set.js';
import type { PathElement } from './path-element.js';
import { childOfMap, UNTYPED, type StructuredType } from './structured-type.js';

function childType(t: StructuredType, pe: PathElement): StructuredType {
  if ('field' in pe) return t.kind === 'map' ? childOfMap(t, pe.field) : UNTYPED;
  return t.kind === 'list' ? t.element() : UNTYPED;
}

/**
 * `set` plus every declared struct field that has owned descendants, as a member (SMD
 * EnsureNamedFieldsAreMembers): owning `.spec.replicas` implies keeping `.spec`, while map keys are
 * not added. Used when deciding which previously applied fields to remove.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, t: StructuredType): FieldSet {
  const out = new FieldSet();
  for (const pe of set.sortedMembers()) out.insertMember(pe);
  for (const c of set.sortedChildren()) {
    if ('field' in c.pe && t.kind === 'map' && t.field(c.pe.field) !== undefined) out.insertMember(c.pe);
    const sub = ensureNamedFieldsAreMembers(c.set, childType(t, c.pe));
    if (!sub.isEmpty()) {
      const target = out.childFor(c.pe);
      for (const p of sub.paths()) target.insert(p);
    }
  }
  return out;
}

/**
 * Adapts a field set written under an older schema to the current one (SPEC 4.8 rule 10, SMD
 * ReconcileFieldSetWithSchema): owned paths below what is now an atomic list or map collapse into
 * ownership of that whole field. Returns undefined when nothing changed. The opposite change
 * (atomic to granular) needs no work: the owner keeps the whole field and element changes do not
 * intersect it, so they cause no conflicts.
 */
export function reconcileWithSchema(set: FieldSet, t: StructuredType): FieldSet | undefined {
  let changed = false;
  const out = new FieldSet();
  for (const pe of set.sortedMembers()) out.insertMember(pe);
  for (const c of set.sortedChildren()) {
    const ct = childType(t, c.pe);
    const atomic = (ct.kind === 'list' && ct.listType === 'atomic') || (ct.kind === 'map' && ct.atomic);
    if (atomic) {
      out.insertMember(c.pe);
      changed = true;
      continue;
    }
    const sub = reconcileWithSchema(c.set, ct) ?? c.set;
    if (sub !== c.set) changed = true;
    const target = out.childFor(c.pe);
    for (const p of sub.paths()) target.insert(p);
  }
  return changed ? out : undefined;
}
