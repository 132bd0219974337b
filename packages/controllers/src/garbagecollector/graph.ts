import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS, type KubeObject } from '@cluster/apimachinery';
import { groupOf } from './discover.js';

/** An owner reference as the collector reads it. */
export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Where an object lives: enough to address it and to match an owner reference against it. */
export interface Identity {
  group: string;
  /** The plural resource name, e.g. `configmaps`. */
  resource: string;
  kind: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
  uid: string;
}

/** One observed object of the dependency graph (upstream's `node`, without locks). */
export interface GcNode {
  identity: Identity;
  owners: readonly OwnerRef[];
  /** `deletionTimestamp` is set. */
  beingDeleted: boolean;
  /** Being deleted under `foregroundDeletion`: waits for its blocking dependents. */
  deletingDependents: boolean;
  /** Being deleted under `orphan`: its dependents lose their reference to it first. */
  orphaning: boolean;
}

/** The uids a change asks the collector to look at again, per queue. */
export interface GraphChanges {
  attemptToDelete: string[];
  attemptToOrphan: string[];
}

/** The node an observed object (metadata is enough) makes, for a resource of `group`/`resource`/`kind`. */
export function nodeOf(res: { group: string; resource: string; kind: string }, obj: KubeObject): GcNode {
  const m = obj.metadata;
  const finalizers = m.finalizers ?? [];
  const beingDeleted = !!m.deletionTimestamp;
  return {
    identity: { group: res.group, resource: res.resource, kind: res.kind, namespace: m.namespace ?? '', name: m.name ?? '', uid: m.uid ?? '' },
    owners: (m.ownerReferences ?? []) as OwnerRef[],
    beingDeleted,
    deletingDependents: beingDeleted && finalizers.includes(FINALIZER_DELETE_DEPENDENTS),
    orphaning: beingDeleted && finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS),
  };
}

function sameOwners(a: readonly OwnerRef[], b: readonly OwnerRef[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((r, i) => {
    const o = b[i]!;
    return r.uid === o.uid && r.name === o.name && r.kind === o.kind && r.apiVersion === o.apiVersion && !!r.blockOwnerDeletion === !!o.blockOwnerDeletion;
  });
}

/**
 * The dependency graph of every observed object (upstream's GraphBuilder `uidToNode`): nodes by
 * uid, and for every owner uid (observed or not) the uids of the objects naming it. Each change
 * returns what must be looked at again; the graph never calls the API. Not safe for concurrent
 * mutation (one event loop drives it).
 */
export class DependencyGraph {
  private readonly nodes = new Map<string, GcNode>();
  private readonly dependents = new Map<string, Set<string>>();

  get size(): number {
    return this.nodes.size;
  }

  get(uid: string): GcNode | undefined {
    return this.nodes.get(uid);
  }

  /** Whether some observed object names `uid` as an owner. */
  hasDependents(uid: string): boolean {
    return this.dependents.has(uid);
  }

  /** The uids of the held objects naming an owner of `group`/`kind` (any group and kind when omitted). */
  withOwners(of?: { group: string; kind: string }): string[] {
    const out: string[] = [];
    for (const [uid, n] of this.nodes) {
      if (n.owners.some((r) => !of || (r.kind === of.kind && groupOf(r.apiVersion) === of.group))) out.push(uid);
    }
    return out;
  }

  /** The observed objects that name `uid` as an owner. */
  dependentsOf(uid: string): GcNode[] {
    const out: GcNode[] = [];
    for (const d of this.dependents.get(uid) ?? []) {
      const n = this.nodes.get(d);
      if (n) out.push(n);
    }
    return out;
  }

  /**
   * Adds or replaces the node of an observed object. Only objects that matter to collection are
   * held (with owners, with dependents, or deleting under a collector finalizer): the rest cost
   * nothing but their informer entry, and are asked of the server when named as an owner.
   */
  upsert(node: GcNode): GraphChanges {
    const uid = node.identity.uid;
    const old = this.nodes.get(uid);
    if (node.owners.length > 0 || node.deletingDependents || node.orphaning || this.dependents.has(uid)) this.nodes.set(uid, node);
    else this.nodes.delete(uid);
    const del = new Set<string>();
    const orphan: string[] = [];
    const oldOwners = old?.owners ?? [];
    for (const r of oldOwners) if (!node.owners.some((n) => n.uid === r.uid)) this.unlink(r.uid, uid);
    for (const r of node.owners) this.link(r.uid, uid);
    // Its owners decide whether it stays: look when it appears or its references change.
    if (node.owners.length > 0 && (!old || !sameOwners(old.owners, node.owners))) del.add(uid);
    // Starts a Foreground deletion: its dependents go first, then it is looked at again.
    if (node.deletingDependents && !old?.deletingDependents) {
      del.add(uid);
      for (const d of this.dependents.get(uid) ?? []) del.add(d);
    }
    if (node.orphaning && !old?.orphaning) orphan.push(uid);
    // An owner waiting for its dependents may have lost a blocking one.
    for (const r of [...oldOwners, ...node.owners]) if (this.nodes.get(r.uid)?.deletingDependents) del.add(r.uid);
    return { attemptToDelete: [...del], attemptToOrphan: orphan };
  }

  /**
   * Removes the node of an object that is gone (held or not): the objects naming it as owner and
   * its owners waiting for their dependents are looked at.
   */
  remove(uid: string): GraphChanges {
    const old = this.nodes.get(uid);
    this.nodes.delete(uid);
    const del = new Set<string>(this.dependents.get(uid) ?? []);
    for (const r of old?.owners ?? []) {
      this.unlink(r.uid, uid);
      if (this.nodes.get(r.uid)?.deletingDependents) del.add(r.uid);
    }
    return { attemptToDelete: [...del], attemptToOrphan: [] };
  }

  /** Forgets every node of a resource no longer served, without asking for any look. */
  dropResource(group: string, resource: string): void {
    for (const [uid, n] of this.nodes) {
      if (n.identity.group !== group || n.identity.resource !== resource) continue;
      this.nodes.delete(uid);
      for (const r of n.owners) this.unlink(r.uid, uid);
    }
  }

  private link(owner: string, dependent: string): void {
    let set = this.dependents.get(owner);
    if (!set) this.dependents.set(owner, (set = new Set()));
    set.add(dependent);
  }

  private unlink(owner: string, dependent: string): void {
    const set = this.dependents.get(owner);
    if (!set) return;
    set.delete(dependent);
    if (set.size === 0) this.dependents.delete(owner);
  }
}
