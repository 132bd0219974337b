import type { GcResource } from './discover.js';
import type { GcNode, OwnerRef } from './graph.js';
import {
  ownerStateFromLookup,
  planDeletingOwner,
  planDependent,
  resolveOwnerRef,
  unblockedOwnerRefs,
  withoutFinalizer,
  withoutOwnerRefs,
  type DependentPlan,
  type OwnerResolution,
  type OwnerState,
} from './reconcile.js';

const ref = (uid: string, extra: Partial<OwnerRef> = {}): OwnerRef => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `cm-${uid}`, uid, ...extra });

const CONFIGMAPS: GcResource = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, groupVersionPath: '/api/v1' };
const NAMESPACES: GcResource = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, groupVersionPath: '/api/v1' };
const WIDGETS: GcResource = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true, groupVersionPath: '/apis/example.com/v1' };
const kinds = new Map([CONFIGMAPS, NAMESPACES, WIDGETS].map((r) => [`${r.group}/${r.kind}`, r]));
const resourceOfKind = (g: string, k: string) => kinds.get(`${g}/${k}`);

function node(uid: string, o: { group?: string; kind?: string; resource?: string; namespace?: string; name?: string; owners?: OwnerRef[]; deletingDependents?: boolean } = {}): GcNode {
  return {
    identity: { group: o.group ?? '', resource: o.resource ?? 'configmaps', kind: o.kind ?? 'ConfigMap', namespace: o.namespace ?? 'ns', name: o.name ?? `cm-${uid}`, uid },
    owners: o.owners ?? [],
    beingDeleted: !!o.deletingDependents,
    deletingDependents: !!o.deletingDependents,
    orphaning: false,
  };
}

describe('resolveOwnerRef', () => {
  const graph = new Map<string, GcNode>([
    ['o1', node('o1')],
    ['o2', node('o2', { deletingDependents: true })],
    ['other-ns', node('other-ns', { namespace: 'elsewhere' })],
    ['ns1', node('ns1', { resource: 'namespaces', kind: 'Namespace', namespace: '', name: 'team' })],
    ['w1', node('w1', { group: 'example.com', resource: 'widgets', kind: 'Widget', name: 'w' })],
  ]);
  test.each<[string, OwnerRef, string, OwnerResolution]>([
    ['observed owner in the same namespace: solid', ref('o1'), 'ns', { kind: 'known', state: 'solid' }],
    ['observed owner deleting its dependents: waiting', ref('o2'), 'ns', { kind: 'known', state: 'waiting' }],
    ['owner not observed: asked of the server', ref('gone'), 'ns', { kind: 'lookup', resource: CONFIGMAPS, namespace: 'ns' }],
    ['uid held by an object in another namespace: looked up in the dependent’s', ref('other-ns', { name: 'cm-other-ns' }), 'ns', { kind: 'lookup', resource: CONFIGMAPS, namespace: 'ns' }],
    ['uid matches but the name does not: looked up', ref('o1', { name: 'renamed' }), 'ns', { kind: 'lookup', resource: CONFIGMAPS, namespace: 'ns' }],
    ['uid matches but the kind does not: looked up', ref('o1', { kind: 'Namespace', name: 'cm-o1' }), 'ns', { kind: 'lookup', resource: NAMESPACES, namespace: '' }],
    ['cluster-scoped owner of a namespaced dependent', ref('ns1', { kind: 'Namespace', name: 'team' }), 'ns', { kind: 'known', state: 'solid' }],
    ['cluster-scoped owner of a cluster-scoped dependent', ref('ns1', { kind: 'Namespace', name: 'team' }), '', { kind: 'known', state: 'solid' }],
    ['namespaced owner of a cluster-scoped dependent: invalid', ref('o1'), '', { kind: 'invalid' }],
    ['custom resource owner by group and kind (any version)', ref('w1', { apiVersion: 'example.com/v2', kind: 'Widget', name: 'w' }), 'ns', { kind: 'known', state: 'solid' }],
    ['kind not served: unresolvable', ref('x', { apiVersion: 'example.com/v1', kind: 'Gadget' }), 'ns', { kind: 'unresolvable' }],
    ['group not served: unresolvable', ref('x', { apiVersion: 'nope.io/v1' }), 'ns', { kind: 'unresolvable' }],
  ])('%s', (_n, r, ns, expected) => {
    expect(resolveOwnerRef(r, ns, resourceOfKind, (u) => graph.get(u))).toEqual(expected);
  });
});

describe('ownerStateFromLookup', () => {
  test.each<[string, { uid: string; deletingDependents: boolean } | undefined, OwnerState]>([
    ['404: dangling', undefined, 'dangling'],
    ['another uid at the coordinates (re-created): dangling', { uid: 'new', deletingDependents: false }, 'dangling'],
    ['same uid: solid', { uid: 'u', deletingDependents: false }, 'solid'],
    ['same uid, deleting its dependents: waiting', { uid: 'u', deletingDependents: true }, 'waiting'],
  ])('%s', (_n, found, state) => {
    expect(ownerStateFromLookup(ref('u'), found)).toBe(state);
  });
});

describe('planDependent', () => {
  const states = (s: Record<string, OwnerState>) => new Map(Object.entries(s));
  const input = (owners: OwnerRef[], s: Record<string, OwnerState>, extra: { finalizers?: string[]; hasDependents?: boolean; cycle?: boolean } = {}) => ({
    owners,
    finalizers: extra.finalizers ?? [],
    states: states(s),
    hasDependents: extra.hasDependents ?? false,
    dependentDeletingDependents: extra.cycle ?? false,
  });
  test.each<[string, ReturnType<typeof input>, DependentPlan]>([
    ['no owners: kept', input([], {}), { op: 'none' }],
    ['owner exists: kept', input([ref('a')], { a: 'solid' }), { op: 'none' }],
    ['owner gone: deleted in the background', input([ref('a')], { a: 'dangling' }), { op: 'delete', policy: 'Background', unblock: false }],
    ['all owners gone: deleted', input([ref('a'), ref('b')], { a: 'dangling', b: 'dangling' }), { op: 'delete', policy: 'Background', unblock: false }],
    ['one owner gone, one left: only the dangling reference goes', input([ref('a'), ref('b')], { a: 'dangling', b: 'solid' }), { op: 'remove-owner-refs', uids: ['a'] }],
    ['a waiting owner beside a solid one: its reference goes', input([ref('a'), ref('b')], { a: 'waiting', b: 'solid' }), { op: 'remove-owner-refs', uids: ['a'] }],
    ['waiting owner, no dependents of its own: background', input([ref('a')], { a: 'waiting' }), { op: 'delete', policy: 'Background', unblock: false }],
    ['waiting owner, dependents of its own: foreground', input([ref('a')], { a: 'waiting' }, { hasDependents: true }), { op: 'delete', policy: 'Foreground', unblock: false }],
    ['foreground cycle: unblocks its references first', input([ref('a')], { a: 'waiting' }, { hasDependents: true, cycle: true }), { op: 'delete', policy: 'Foreground', unblock: true }],
    ['its own orphan finalizer decides the policy', input([ref('a')], { a: 'dangling' }, { finalizers: ['orphan'] }), { op: 'delete', policy: 'Orphan', unblock: false }],
    ['its own foregroundDeletion finalizer decides the policy', input([ref('a')], { a: 'dangling' }, { finalizers: ['foregroundDeletion'] }), { op: 'delete', policy: 'Foreground', unblock: false }],
  ])('%s', (_n, i, plan) => {
    expect(planDependent(i)).toEqual(plan);
  });
});

describe('planDeletingOwner', () => {
  const dep = (uid: string, block: boolean | undefined, deletingDependents = false) =>
    node(uid, { owners: [ref('owner', block === undefined ? {} : { blockOwnerDeletion: block }), ref('other', { blockOwnerDeletion: true })], deletingDependents });
  test.each<[string, GcNode[], ReturnType<typeof planDeletingOwner>]>([
    ['no dependents: finalizer removed', [], { op: 'remove-finalizer', finalizer: 'foregroundDeletion' }],
    ['only non-blocking dependents: finalizer removed', [dep('d1', false), dep('d2', undefined)], { op: 'remove-finalizer', finalizer: 'foregroundDeletion' }],
    ['a blocking dependent: waits and looks at it', [dep('d1', true), dep('d2', false)], { op: 'wait', attemptToDelete: ['d1'] }],
    ['a blocking dependent deleting its own: waits without another look', [dep('d1', true, true)], { op: 'wait', attemptToDelete: [] }],
  ])('%s', (_n, deps, plan) => {
    expect(planDeletingOwner('owner', deps)).toEqual(plan);
  });
});

describe('reference and finalizer edits', () => {
  test.each<[string, OwnerRef[], string[], OwnerRef[] | undefined]>([
    ['removes the named owner', [ref('a'), ref('b')], ['a'], [ref('b')]],
    ['removes the last', [ref('a')], ['a'], []],
    ['nothing to remove: undefined', [ref('a')], ['z'], undefined],
  ])('withoutOwnerRefs: %s', (_n, refs, uids, out) => {
    expect(withoutOwnerRefs(refs, uids)).toEqual(out);
  });
  test.each<[string, OwnerRef[], OwnerRef[] | undefined]>([
    ['clears every blockOwnerDeletion', [ref('a', { blockOwnerDeletion: true }), ref('b')], [ref('a', { blockOwnerDeletion: false }), ref('b')]],
    ['none set: undefined', [ref('a', { blockOwnerDeletion: false })], undefined],
  ])('unblockedOwnerRefs: %s', (_n, refs, out) => {
    expect(unblockedOwnerRefs(refs)).toEqual(out);
  });
  test.each<[string, string[], string | undefined, string[] | undefined]>([
    ['removes it, keeps others', ['a/b', 'orphan'], 'orphan', ['a/b']],
    ['absent: undefined', ['a/b'], 'orphan', undefined],
  ])('withoutFinalizer: %s', (_n, fins, f, out) => {
    expect(withoutFinalizer(fins, f!)).toEqual(out);
  });
});
