import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from '@cluster/apimachinery';
import { groupOf, type GcResource } from './discover.js';
import type { GcNode, OwnerRef } from './graph.js';

/**
 * What an owner reference of a dependent amounts to (upstream's classifyReferences):
 * - `solid`: the owner exists and is not deleting its dependents;
 * - `waiting`: the owner exists, being deleted in the foreground (its dependents go first);
 * - `dangling`: no object with that uid at the reference's coordinates.
 */
export type OwnerState = 'solid' | 'waiting' | 'dangling';

/**
 * How to learn an owner reference's state from what is held, before any request:
 * - `known`: the graph holds the owner at the reference's coordinates;
 * - `lookup`: ask the server (a quorum GET) at `namespace`/`name` of `resource`;
 * - `unresolvable`: its kind is not served (yet): look again later, never delete meanwhile;
 * - `invalid`: a cluster-scoped dependent naming a namespaced kind: the dependent is left alone.
 */
export type OwnerResolution =
  | { kind: 'known'; state: OwnerState }
  | { kind: 'lookup'; resource: GcResource; namespace: string }
  | { kind: 'unresolvable' }
  | { kind: 'invalid' };

/**
 * Resolves one owner reference of a dependent in `dependentNamespace` ('' when cluster-scoped).
 * A namespaced owner is always looked for in the dependent's namespace: an object with the uid in
 * another namespace does not count, as upstream. Pure.
 */
export function resolveOwnerRef(
  ref: OwnerRef,
  dependentNamespace: string,
  resourceOfKind: (group: string, kind: string) => GcResource | undefined,
  nodeOf: (uid: string) => GcNode | undefined,
): OwnerResolution {
  const group = groupOf(ref.apiVersion);
  const resource = resourceOfKind(group, ref.kind);
  if (!resource) return { kind: 'unresolvable' };
  if (resource.namespaced && dependentNamespace === '') return { kind: 'invalid' };
  const namespace = resource.namespaced ? dependentNamespace : '';
  const n = nodeOf(ref.uid);
  if (n && n.identity.group === group && n.identity.kind === ref.kind && n.identity.namespace === namespace && n.identity.name === ref.name) {
    return { kind: 'known', state: n.deletingDependents ? 'waiting' : 'solid' };
  }
  return { kind: 'lookup', resource, namespace };
}

/** An owner's state from a live read: absent (404) or another uid at its coordinates is dangling. Pure. */
export function ownerStateFromLookup(ref: OwnerRef, found: { uid: string; deletingDependents: boolean } | undefined): OwnerState {
  if (!found || found.uid !== ref.uid) return 'dangling';
  return found.deletingDependents ? 'waiting' : 'solid';
}

export type DeletePolicy = 'Background' | 'Foreground' | 'Orphan';

/** The write the collector makes for a dependent, given its owners. */
export type DependentPlan =
  | { op: 'none' }
  /** Some owners remain: only the references to dangling or waiting owners go. */
  | { op: 'remove-owner-refs'; uids: string[] }
  /** No owner remains: delete it; `unblock` first clears its blockOwnerDeletion (a Foreground cycle). */
  | { op: 'delete'; policy: DeletePolicy; unblock: boolean };

export interface DependentInput {
  /** The dependent's owner references and finalizers, as last read from the server. */
  owners: readonly OwnerRef[];
  finalizers: readonly string[];
  /** The state of each owner, by uid. */
  states: ReadonlyMap<string, OwnerState>;
  /** The graph holds objects that name this one as owner. */
  hasDependents: boolean;
  /** One of those is itself deleting its dependents (then this one is in a Foreground cycle). */
  dependentDeletingDependents: boolean;
}

/**
 * Decides a dependent's fate (upstream's attemptToDeleteItem once owners are classified): kept
 * while any owner is solid (references to absent or waiting owners removed); deleted in the
 * foreground when an owner waits for it and it has dependents of its own; otherwise deleted with the
 * policy its own finalizers ask for (Background by default). Pure.
 */
export function planDependent(input: DependentInput): DependentPlan {
  if (input.owners.length === 0) return { op: 'none' };
  const of = (s: OwnerState) => input.owners.filter((r) => (input.states.get(r.uid) ?? 'solid') === s).map((r) => r.uid);
  const solid = of('solid');
  const dangling = of('dangling');
  const waiting = of('waiting');
  if (solid.length > 0) {
    const drop = [...dangling, ...waiting];
    return drop.length === 0 ? { op: 'none' } : { op: 'remove-owner-refs', uids: drop };
  }
  if (waiting.length > 0 && input.hasDependents) {
    return { op: 'delete', policy: 'Foreground', unblock: input.dependentDeletingDependents };
  }
  const policy: DeletePolicy = input.finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS)
    ? 'Orphan'
    : input.finalizers.includes(FINALIZER_DELETE_DEPENDENTS)
      ? 'Foreground'
      : 'Background';
  return { op: 'delete', policy, unblock: false };
}

/** The write for an owner deleting its dependents (Foreground). */
export type DeletingOwnerPlan =
  | { op: 'remove-finalizer'; finalizer: string }
  /** Blocking dependents remain: these (not yet deleting their own) are looked at again. */
  | { op: 'wait'; attemptToDelete: string[] };

/**
 * An owner under `foregroundDeletion` (upstream's processDeletingDependentsItem): its finalizer
 * goes once no dependent with `blockOwnerDeletion: true` towards it remains. Pure.
 */
export function planDeletingOwner(ownerUid: string, dependents: readonly GcNode[]): DeletingOwnerPlan {
  const blocking = dependents.filter((d) => d.owners.some((r) => r.uid === ownerUid && r.blockOwnerDeletion === true));
  if (blocking.length === 0) return { op: 'remove-finalizer', finalizer: FINALIZER_DELETE_DEPENDENTS };
  return { op: 'wait', attemptToDelete: blocking.filter((d) => !d.deletingDependents).map((d) => d.identity.uid) };
}

/** The references left once those to `uids` go; undefined when none of them is there. Pure. */
export function withoutOwnerRefs(owners: readonly OwnerRef[], uids: readonly string[]): OwnerRef[] | undefined {
  const left = owners.filter((r) => !uids.includes(r.uid));
  return left.length === owners.length ? undefined : left;
}

/** The references with every blockOwnerDeletion cleared; undefined when none was set. Pure. */
export function unblockedOwnerRefs(owners: readonly OwnerRef[]): OwnerRef[] | undefined {
  if (!owners.some((r) => r.blockOwnerDeletion === true)) return undefined;
  return owners.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r));
}

/** The finalizers left once `finalizer` goes; undefined when it is not there. Pure. */
export function withoutFinalizer(finalizers: readonly string[], finalizer: string): string[] | undefined {
  return finalizers.includes(finalizer) ? finalizers.filter((f) => f !== finalizer) : undefined;
}
