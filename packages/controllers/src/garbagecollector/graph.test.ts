import type { KubeObject } from '@cluster/apimachinery';
import { DependencyGraph, nodeOf, type OwnerRef } from './graph.js';

const CM = { group: '', resource: 'configmaps', kind: 'ConfigMap' };
const ref = (uid: string, block = false): OwnerRef => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid, blockOwnerDeletion: block });
const obj = (uid: string, o: { owners?: OwnerRef[]; deleting?: boolean; finalizers?: string[] } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: uid,
    namespace: 'ns',
    uid,
    ...(o.owners ? { ownerReferences: o.owners } : {}),
    ...(o.deleting ? { deletionTimestamp: '2030-01-01T00:00:00Z' } : {}),
    ...(o.finalizers ? { finalizers: o.finalizers } : {}),
  },
});
const up = (g: DependencyGraph, o: KubeObject) => g.upsert(nodeOf(CM, o));

describe('nodeOf', () => {
  test.each([
    ['alive', obj('a', { finalizers: ['foregroundDeletion'] }), { beingDeleted: false, deletingDependents: false, orphaning: false }],
    ['foreground', obj('a', { deleting: true, finalizers: ['foregroundDeletion'] }), { beingDeleted: true, deletingDependents: true, orphaning: false }],
    ['orphan', obj('a', { deleting: true, finalizers: ['orphan', 'x/y'] }), { beingDeleted: true, deletingDependents: false, orphaning: true }],
    ['background, held by another finalizer', obj('a', { deleting: true, finalizers: ['x/y'] }), { beingDeleted: true, deletingDependents: false, orphaning: false }],
  ])('%s', (_n, o, flags) => {
    expect(nodeOf(CM, o)).toMatchObject(flags);
  });
});

describe('DependencyGraph', () => {
  test('a new object with owners is looked at; one without is not', () => {
    const g = new DependencyGraph();
    expect(up(g, obj('o'))).toEqual({ attemptToDelete: [], attemptToOrphan: [] });
    expect(up(g, obj('d', { owners: [ref('o')] }))).toEqual({ attemptToDelete: ['d'], attemptToOrphan: [] });
    expect(g.dependentsOf('o').map((n) => n.identity.uid)).toEqual(['d']);
    // The same references again (a resync): nothing to look at.
    expect(up(g, obj('d', { owners: [ref('o')] }))).toEqual({ attemptToDelete: [], attemptToOrphan: [] });
  });

  test('an owner that goes has its dependents looked at, even before it was observed', () => {
    const g = new DependencyGraph();
    up(g, obj('d1', { owners: [ref('o')] }));
    up(g, obj('d2', { owners: [ref('o'), ref('p')] }));
    up(g, obj('o'));
    expect(g.remove('o').attemptToDelete.sort()).toEqual(['d1', 'd2']);
    expect(g.remove('never-seen')).toEqual({ attemptToDelete: [], attemptToOrphan: [] });
  });

  test('a Foreground owner: it and its dependents are looked at; each change of a dependent looks at it again', () => {
    const g = new DependencyGraph();
    up(g, obj('o'));
    up(g, obj('d', { owners: [ref('o', true)] }));
    expect(up(g, obj('o', { deleting: true, finalizers: ['foregroundDeletion'] })).attemptToDelete.sort()).toEqual(['d', 'o']);
    // Its blocking dependent goes: the owner is looked at again.
    expect(g.remove('d').attemptToDelete).toEqual(['o']);
    // A dependent dropping its reference also wakes the owner.
    up(g, obj('e', { owners: [ref('o', true)] }));
    expect(up(g, obj('e')).attemptToDelete).toEqual(['o']);
    expect(g.dependentsOf('o')).toEqual([]);
  });

  test('an Orphan owner goes to the orphan queue once', () => {
    const g = new DependencyGraph();
    up(g, obj('o'));
    expect(up(g, obj('o', { deleting: true, finalizers: ['orphan'] })).attemptToOrphan).toEqual(['o']);
    expect(up(g, obj('o', { deleting: true, finalizers: ['orphan', 'x/y'] })).attemptToOrphan).toEqual([]);
  });

  test('cycles do not loop: each change yields a bounded set of looks', () => {
    const g = new DependencyGraph();
    up(g, obj('a', { owners: [ref('b', true)] }));
    up(g, obj('b', { owners: [ref('a', true)] }));
    const c = up(g, obj('a', { owners: [ref('b', true)], deleting: true, finalizers: ['foregroundDeletion'] }));
    expect(c.attemptToDelete.sort()).toEqual(['a', 'b']);
    expect(g.remove('a').attemptToDelete.sort()).toEqual(['b']);
  });

  test('only objects that matter are held; an unheld owner that goes still wakes its dependents', () => {
    const g = new DependencyGraph();
    up(g, obj('plain'));
    up(g, obj('held-by-other-finalizer', { deleting: true, finalizers: ['x/y'] }));
    expect(g.size).toBe(0);
    up(g, obj('owner'));
    up(g, obj('dep', { owners: [ref('owner')] }));
    expect(g.size).toBe(1);
    // The owner's next change holds it, as it now has a dependent.
    up(g, obj('owner'));
    expect(g.get('owner')).toBeDefined();
    const g2 = new DependencyGraph();
    up(g2, obj('dep', { owners: [ref('unheld')] }));
    expect(g2.remove('unheld').attemptToDelete).toEqual(['dep']);
    // A dependent losing its last owner is let go.
    up(g2, obj('dep'));
    expect(g2.size).toBe(0);
  });

  test('withOwners: the held dependents of owners of one kind', () => {
    const g = new DependencyGraph();
    up(g, obj('d', { owners: [ref('o')] }));
    g.upsert(nodeOf(CM, { metadata: { name: 'w', namespace: 'ns', uid: 'w', ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'x', uid: 'x' }] } }));
    expect(g.withOwners({ group: '', kind: 'ConfigMap' })).toEqual(['d']);
    expect(g.withOwners({ group: 'example.com', kind: 'Widget' })).toEqual(['w']);
    expect(g.withOwners().sort()).toEqual(['d', 'w']);
  });

  test('dropResource forgets its nodes and their links', () => {
    const g = new DependencyGraph();
    up(g, obj('d', { owners: [ref('o')] }));
    g.upsert(nodeOf({ group: 'example.com', resource: 'widgets', kind: 'Widget' }, obj('w', { owners: [ref('o')] })));
    g.dropResource('example.com', 'widgets');
    expect(g.size).toBe(1);
    expect(g.dependentsOf('o').map((n) => n.identity.uid)).toEqual(['d']);
  });
});
