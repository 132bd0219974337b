import type { ResourceRegistration } from '../../../registry/registration.js';
import { rbacGroup } from '../../../authz/rbac/types.js';
import { bindingStrategy } from './strategy.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

/** rbac/v1 rolebindings (namespaced). */
export function roleBindings(apiDomain: string): ResourceRegistration {
  const group = rbacGroup(apiDomain);
  return {
    info: {
      group,
      version: 'v1',
      resource: 'rolebindings',
      singularName: 'rolebinding',
      kind: 'RoleBinding',
      listKind: 'RoleBindingList',
      namespaced: true,
      verbs: VERBS,
      definitionName: 'io.k8s.api.rbac.v1.RoleBinding',
    },
    strategy: bindingStrategy(true, group),
  };
}

/** rbac/v1 clusterrolebindings (cluster-scoped). */
export function clusterRoleBindings(apiDomain: string): ResourceRegistration {
  const group = rbacGroup(apiDomain);
  return {
    info: {
      group,
      version: 'v1',
      resource: 'clusterrolebindings',
      singularName: 'clusterrolebinding',
      kind: 'ClusterRoleBinding',
      listKind: 'ClusterRoleBindingList',
      namespaced: false,
      verbs: VERBS,
      definitionName: 'io.k8s.api.rbac.v1.ClusterRoleBinding',
    },
    strategy: bindingStrategy(false, group),
  };
}
