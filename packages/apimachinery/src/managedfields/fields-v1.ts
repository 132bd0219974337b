import type { JsonObject, JsonValue } from '../meta/types.js';
import { FieldSet } from './field-set.js';
import {
  comparePathElements,
  deserializePathElement,
  serializePathElement,
  type PathElement,
} from './path-element.js';

/**
 * Serializes a set as a FieldsV1 object exactly as upstream: keys in path-element order, `{}` for
 * a member leaf, and `".": {}` first inside a child that is also a member.
 */
export function toFieldsV1(set: FieldSet): JsonObject {
  return emit(set, false);
}

function emit(set: FieldSet, includeSelf: boolean): JsonObject {
  const out: JsonObject = {};
  const members = set.sortedMembers();
  const children = set.sortedChildren();
  if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = {};
  const entries = new Map<string, { pe: PathElement; member: boolean; child?: FieldSet }>();
  for (const pe of members) entries.set(serializePathElement(pe), { pe, member: true });
  for (const c of children) {
    const key = serializePathElement(c.pe);
    entries.set(key, { pe: c.pe, member: entries.has(key), child: c.set });
  }
  const ordered = [...entries.entries()].sort((a, b) => comparePathElements(a[1].pe, b[1].pe));
  for (const [key, e] of ordered) out[key] = e.child ? emit(e.child, e.member) : {};
  return out;
}

/** Thrown when a FieldsV1 value cannot be decoded. */
export class FieldsV1Error extends Error {}

/**
 * Parses a FieldsV1 object into a set. Unknown key prefixes are dropped (as upstream); malformed
 * keys or non-object values throw {@link FieldsV1Error}. `undefined`/`null` give the empty set.
 */
export function fieldsV1ToSet(fields: JsonValue | undefined): FieldSet {
  const set = new FieldSet();
  if (fields === undefined || fields === null) return set;
  if (typeof fields !== 'object' || Array.isArray(fields)) throw new FieldsV1Error('FieldsV1 must be a JSON object');
  read(fields, set);
  return set;
}

/** Fills `into` with the children of `node`; returns whether `node` itself is a member. */
function read(node: JsonObject, into: FieldSet): boolean {
  let isMember = false;
  let hasChildren = false;
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined) continue;
    if (key === '.') {
      isMember = true;
      continue;
    }
    let pe;
    try {
      pe = deserializePathElement(key);
    } catch (e) {
      throw new FieldsV1Error(`parsing key as path element: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!pe) continue;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new FieldsV1Error(`expected an object for key ${JSON.stringify(key)}`);
    }
    hasChildren = true;
    const child = new FieldSet();
    const childIsMember = read(value, child);
    if (childIsMember) into.insertMember(pe);
    if (!child.isEmpty()) {
      const target = into.childFor(pe);
      for (const p of child.paths()) target.insert(p);
    }
  }
  // An object with no children (`{}`) is a leaf member of its parent.
  return isMember || !hasChildren;
}
