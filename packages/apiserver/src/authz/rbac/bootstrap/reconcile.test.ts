import { reconcileBinding, reconcileRole } from './reconcile.js';
import { defaultNamespacedRoleBindings, defaultNamespacedRoles } from './namespace-policy.js';
import { defaultClusterRoleBindings, defaultClusterRoles } from './policy.js';
import type { BindingObject, RoleObject } from '../types.js';

const KEY = 'rbac.authorization.k8s.io/autoupdate';
const get = (res: string) => ({ verbs: ['get'], apiGroups: [''], resources: [res] });
const role = (annotations: Record<string, string> | undefined, rules: RoleObject['rules'], extra: Partial<RoleObject> = {}): RoleObject => ({
  metadata: { name: 'r', resourceVersion: '5', ...(annotations ? { annotations } : {}) },
  rules,
  ...extra,
});
const expected: RoleObject = { metadata: { name: 'r', labels: { l: 'v' }, annotations: { [KEY]: 'true' } }, rules: [get('pods'), get('cm')] };

describe('reconcileRole', () => {
  test.each<[string, RoleObject | undefined, string, RoleObject['rules'] | undefined]>([
    ['missing: create', undefined, 'create', [get('pods'), get('cm')]],
    ['up to date', { ...role({ [KEY]: 'true' }, [get('pods'), get('cm')]), metadata: { name: 'r', labels: { l: 'v' }, annotations: { [KEY]: 'true' } } }, 'none', undefined],
    ['missing rules added, extra kept', role({ [KEY]: 'true' }, [get('secrets'), get('pods')]), 'update', [get('secrets'), get('pods'), get('cm')]],
    ['rules covered by a broader one', role({ [KEY]: 'true' }, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), 'update', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]],
    ['autoupdate false: left alone', role({ [KEY]: 'false' }, []), 'none', undefined],
    ['no annotation: reconciled (as upstream)', role(undefined, []), 'update', [get('pods'), get('cm')]],
  ])('%s', (_name, existing, op, rules) => {
    const plan = reconcileRole(existing, expected, KEY);
    expect(plan.op).toBe(op);
    if (plan.op !== 'none' && rules) expect(plan.object.rules).toEqual(rules);
    if (plan.op === 'update') {
      expect(plan.object.metadata.labels).toEqual({ l: 'v' });
      expect(plan.object.metadata.resourceVersion).toBe('5');
    }
  });

  test('an existing annotation value wins over the default', () => {
    const plan = reconcileRole(role({ [KEY]: 'true', mine: 'x' }, []), expected, KEY);
    expect(plan.op === 'update' && plan.object.metadata.annotations).toEqual({ [KEY]: 'true', mine: 'x' });
  });

  test('aggregation selectors are added, never removed', () => {
    const want: RoleObject = { metadata: { name: 'r' }, rules: [], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'true' } }] } };
    const existing = role({}, [get('x')], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { b: 'true' } }] } });
    const plan = reconcileRole(existing, want, KEY);
    expect(plan.op === 'update' && plan.object.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { b: 'true' } }, { matchLabels: { a: 'true' } }] });
    // Aggregated rules already there are not touched.
    expect(plan.op === 'update' && plan.object.rules).toEqual([get('x')]);
  });
});

describe('reconcileBinding', () => {
  const g = (name: string) => ({ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name });
  const want: BindingObject = {
    metadata: { name: 'b', annotations: { [KEY]: 'true' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'b' },
    subjects: [g('one'), g('two')],
  };
  const have = (subjects: BindingObject['subjects'], roleName = 'b', annotations: Record<string, string> = { [KEY]: 'true' }): BindingObject => ({
    metadata: { name: 'b', annotations },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
    subjects,
  });

  test.each<[string, BindingObject | undefined, string, BindingObject['subjects'] | undefined]>([
    ['missing: create', undefined, 'create', [g('one'), g('two')]],
    ['up to date', have([g('two'), g('one')]), 'none', undefined],
    ['missing subjects added, others kept', have([g('mine'), g('one')]), 'update', [g('mine'), g('one'), g('two')]],
    ['other roleRef: recreate', have([g('one'), g('two')], 'other'), 'recreate', [g('one'), g('two')]],
    ['autoupdate false: left alone', have([], 'other', { [KEY]: 'false' }), 'none', undefined],
  ])('%s', (_name, existing, op, subjects) => {
    const plan = reconcileBinding(existing, want, KEY);
    expect(plan.op).toBe(op);
    if (plan.op !== 'none' && subjects) expect(plan.object.subjects).toEqual(subjects);
    if (plan.op === 'recreate') expect(plan.object.roleRef.name).toBe('b');
  });
});

describe('default policy data', () => {
  test('every binding names a default role; groups follow the domain', () => {
    const roles = defaultClusterRoles('example.org');
    const names = new Set(roles.map((r) => r.metadata.name));
    for (const b of defaultClusterRoleBindings('example.org')) expect(names.has(b.roleRef.name)).toBe(true);
    expect(names.has('system:certificates.example.org:certificatesigningrequests:nodeclient')).toBe(true);
    const edit = roles.find((r) => r.metadata.name === 'edit')!;
    expect(edit.metadata.labels).toMatchObject({ 'example.org/bootstrapping': 'rbac-defaults', 'rbac.authorization.example.org/aggregate-to-admin': 'true' });
    expect(JSON.stringify(roles)).not.toContain('k8s.io');
  });

  test('system:node holds the node rules and is bound to nobody; the bootstrap roles exist', () => {
    const roles = defaultClusterRoles('example.org');
    const node = roles.find((r) => r.metadata.name === 'system:node')!;
    expect(node.rules).toContainEqual({ apiGroups: [''], resources: ['nodes/status'], verbs: ['update', 'patch'] });
    expect(node.rules).toContainEqual({ apiGroups: ['coordination.example.org'], resources: ['leases'], verbs: ['get', 'create', 'update', 'patch', 'delete'] });
    expect(JSON.stringify(node.rules)).not.toContain('"*"');
    const binding = defaultClusterRoleBindings('example.org').find((b) => b.metadata.name === 'system:node')!;
    expect(binding.roleRef.name).toBe('system:node');
    expect(binding.subjects).toBeUndefined();
    for (const name of ['system:node-bootstrapper', 'system:certificates.example.org:certificatesigningrequests:nodeclient', 'system:certificates.example.org:certificatesigningrequests:selfnodeclient']) {
      expect(roles.some((r) => r.metadata.name === name)).toBe(true);
    }
  });
  test('namespaced defaults: each binding names a Role of its own namespace; anonymous may read cluster-info', () => {
    const roles = defaultNamespacedRoles('example.org');
    for (const b of defaultNamespacedRoleBindings('example.org')) {
      expect(b.roleRef.kind).toBe('Role');
      expect(roles.some((r) => r.metadata.name === b.roleRef.name && r.metadata.namespace === b.metadata.namespace)).toBe(true);
    }
    const reader = defaultNamespacedRoleBindings('example.org').find((b) => b.metadata.namespace === 'cluster-public')!;
    expect(reader.subjects?.map((s) => s.name)).toEqual(['system:anonymous', 'system:unauthenticated']);
    expect(roles[0]!.rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }]);
    expect(JSON.stringify([...roles, reader])).not.toContain('k8s.io');
  });
});
