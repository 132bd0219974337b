import { fieldErrorMessage } from '@cluster/apimachinery';
import { defaultBinding, validateBinding, validateBindingUpdate, validatePolicyRule, validateRole } from './validation.js';
import type { BindingObject, PolicyRule, RoleObject } from '../../authz/rbac/types.js';

const G = 'rbac.authorization.k8s.io';
const msgs = (errs: ReturnType<typeof validatePolicyRule>) => errs.map(fieldErrorMessage);

describe('validatePolicyRule', () => {
  test.each<[string, PolicyRule, boolean, string[]]>([
    ['ok resource rule', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, true, []],
    ['no verbs', { verbs: [], apiGroups: [''], resources: ['pods'] }, true, ['r.verbs: Required value: verbs must contain at least one value']],
    ['no groups, no resources', { verbs: ['get'] }, false, [
      'r.apiGroups: Required value: resource rules must supply at least one api group',
      'r.resources: Required value: resource rules must supply at least one resource',
    ]],
    ['urls in a cluster role', { verbs: ['get'], nonResourceURLs: ['/x'] }, false, []],
    ['urls in a namespaced role', { verbs: ['get'], nonResourceURLs: ['/x'] }, true, ['r.nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs']],
    ['urls mixed with resources', { verbs: ['get'], nonResourceURLs: ['/x'], resources: ['pods'] }, false, [
      'r.nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs',
    ]],
  ])('%s', (_name, rule, namespaced, want) => {
    expect(msgs(validatePolicyRule(rule, namespaced, 'r'))).toEqual(want);
  });
});

describe('validateRole', () => {
  test.each<[string, RoleObject, boolean, string[]]>([
    ['name with a slash', { metadata: { name: 'a/b', namespace: 'ns' }, rules: [] }, true, ["metadata.name: Invalid value: \"a/b\": may not contain '/'"]],
    ['colons are fine', { metadata: { name: 'system:x' }, rules: [] }, false, []],
    ['empty aggregation rule', { metadata: { name: 'x' }, aggregationRule: { clusterRoleSelectors: [] } }, false, [
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]],
  ])('%s', (_name, role, namespaced, want) => {
    expect(msgs(validateRole(role, namespaced))).toEqual(want);
  });
});

describe('bindings', () => {
  const b = (over: Partial<BindingObject>, namespace?: string): BindingObject => ({
    metadata: { name: 'b', resourceVersion: '1', ...(namespace ? { namespace } : {}) },
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' },
    subjects: [],
    ...over,
  });
  test.each<[string, BindingObject, boolean, string[]]>([
    ['ok', b({ subjects: [{ kind: 'User', apiGroup: G, name: 'u' }] }, 'ns'), true, []],
    ['role in a cluster binding', b({ roleRef: { apiGroup: G, kind: 'Role', name: 'r' } }), false, ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']],
    ['wrong apiGroup', b({ roleRef: { apiGroup: 'x', kind: 'Role', name: 'r' } }, 'ns'), true, [`roleRef.apiGroup: Unsupported value: "x": supported values: "${G}"`]],
    ['no role name', b({ roleRef: { apiGroup: G, kind: 'Role', name: '' } }, 'ns'), true, ['roleRef.name: Required value']],
    ['sa without namespace in a cluster binding', b({ subjects: [{ kind: 'ServiceAccount', name: 'sa' }] }), false, ['subjects[0].namespace: Required value']],
    ['sa without namespace in a role binding', b({ subjects: [{ kind: 'ServiceAccount', name: 'sa' }] }, 'ns'), true, []],
    ['sa with an apiGroup', b({ subjects: [{ kind: 'ServiceAccount', name: 'sa', apiGroup: G }] }, 'ns'), true, [`subjects[0].apiGroup: Unsupported value: "${G}": supported values: ""`]],
    ['user without the rbac group', b({ subjects: [{ kind: 'User', name: 'u' }] }, 'ns'), true, [`subjects[0].apiGroup: Unsupported value: "": supported values: "${G}"`]],
    ['unknown kind, no name', b({ subjects: [{ kind: 'Robot', name: '' }] }, 'ns'), true, [
      'subjects[0].name: Required value',
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ]],
  ])('%s', (_name, obj, namespaced, want) => {
    expect(msgs(validateBinding(obj, namespaced, G))).toEqual(want);
  });

  test('roleRef cannot change', () => {
    const old = b({}, 'ns');
    const errs = msgs(validateBindingUpdate(b({ roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'edit' } }, 'ns'), old, true, G));
    expect(errs.some((m) => m.startsWith('roleRef: Invalid value:') && m.endsWith('cannot change roleRef'))).toBe(true);
    expect(validateBindingUpdate(b({ subjects: [{ kind: 'Group', apiGroup: G, name: 'g' }] }, 'ns'), old, true, G)).toEqual([]);
  });

  test('defaulting fills the RBAC group for roleRef, users and groups only', () => {
    const obj = b({ roleRef: { apiGroup: '', kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }, { kind: 'ServiceAccount', name: 's' }] }, 'ns');
    defaultBinding(obj, G);
    expect(obj.roleRef.apiGroup).toBe(G);
    expect(obj.subjects).toEqual([{ kind: 'User', name: 'u', apiGroup: G }, { kind: 'ServiceAccount', name: 's' }]);
  });
});
