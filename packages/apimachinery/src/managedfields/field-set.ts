import { comparePathElements, serializePathElement, type FieldPath, type PathElement } from './path-element.js';

interface ChildNode {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * An immutable-by-convention set of field paths, stored as a trie like structured-merge-diff's
 * fieldpath.Set: at each level, `members` are paths that end here and `children` lead deeper. A
 * path can be both a member and have children (serialized as `".": {}`). Path elements are
 * identified by their FieldsV1 key, which is canonical.
 */
export class FieldSet {
  private readonly members = new Map<string, PathElement>();
  private readonly children = new Map<string, ChildNode>();

  /** A set of the given paths. */
  static of(...paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds `path` (mutates). The empty path matches nothing and is ignored, as upstream. */
  insert(path: FieldPath): this {
    const [head, ...rest] = path;
    if (!head) return this;
    const key = serializePathElement(head);
    if (rest.length === 0) this.members.set(key, head);
    else this.childFor(head, key).insert(rest);
    return this;
  }

  /** Adds `pe` (whose FieldsV1 key is `key`) as a member at this level (mutates). */
  insertMember(pe: PathElement, key = serializePathElement(pe)): void {
    this.members.set(key, pe);
  }

  /** The child set under `pe`, created when missing (mutates). */
  childFor(pe: PathElement, key = serializePathElement(pe)): FieldSet {
    let node = this.children.get(key);
    if (!node) {
      node = { pe, set: new FieldSet() };
      this.children.set(key, node);
    }
    return node.set;
  }

  /** Whether `path` is a member. */
  has(path: FieldPath): boolean {
    const [head, ...rest] = path;
    if (!head) return false;
    const key = serializePathElement(head);
    if (rest.length === 0) return this.members.has(key);
    return this.children.get(key)?.set.has(rest) ?? false;
  }

  /** Whether `pe` is a member at this level. */
  hasMember(pe: PathElement): boolean {
    return this.members.has(serializePathElement(pe));
  }

  /** The paths below `pe` (relative), empty when none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(serializePathElement(pe))?.set ?? new FieldSet();
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  /** Paths in either set. */
  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, pe] of other.members) out.members.set(k, pe);
    for (const [k, n] of this.children) {
      const o = other.children.get(k);
      out.children.set(k, { pe: n.pe, set: o ? n.set.union(o.set) : n.set.union(EMPTY) });
    }
    for (const [k, n] of other.children) if (!out.children.has(k)) out.children.set(k, { pe: n.pe, set: n.set.union(EMPTY) });
    return out;
  }

  /** Paths in both sets (exact paths; a member does not cover its children). */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (other.members.has(k)) out.members.set(k, pe);
    for (const [k, n] of this.children) {
      const o = other.children.get(k);
      if (!o) continue;
      const s = n.set.intersection(o.set);
      if (!s.isEmpty()) out.children.set(k, { pe: n.pe, set: s });
    }
    return out;
  }

  /** Paths in this set but not in `other` (exact paths). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!other.members.has(k)) out.members.set(k, pe);
    for (const [k, n] of this.children) {
      const o = other.children.get(k);
      const s = o ? n.set.difference(o.set) : n.set.union(EMPTY);
      if (!s.isEmpty()) out.children.set(k, { pe: n.pe, set: s });
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty();
  }

  /** Members of this level in upstream order. */
  sortedMembers(): PathElement[] {
    return [...this.members.values()].sort(comparePathElements);
  }

  /** Children of this level in upstream order. */
  sortedChildren(): ChildNode[] {
    return [...this.children.values()].sort((a, b) => comparePathElements(a.pe, b.pe));
  }

  /** Every member path: members of a level first, then each child in order (SMD Set.Iterate). */
  paths(prefix: FieldPath = []): FieldPath[] {
    const out: FieldPath[] = this.sortedMembers().map((pe) => [...prefix, pe]);
    for (const c of this.sortedChildren()) out.push(...c.set.paths([...prefix, c.pe]));
    return out;
  }

  /** Number of member paths. */
  size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.set.size();
    return n;
  }
}

const EMPTY = new FieldSet();
