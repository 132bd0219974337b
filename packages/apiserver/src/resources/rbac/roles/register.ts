import type { ResourceRegistration } from '../../../registry/registration.js';
import { rbacGroup } from '../../../authz/rbac/types.js';
import { roleStrategy } from './strategy.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

/** rbac/v1 roles (namespaced). */
export function roles(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: rbacGroup(apiDomain),
      version: 'v1',
      resource: 'roles',
      singularName: 'role',
      kind: 'Role',
      listKind: 'RoleList',
      namespaced: true,
      verbs: VERBS,
      definitionName: 'io.k8s.api.rbac.v1.Role',
    },
    strategy: roleStrategy(true),
  };
}

/** rbac/v1 clusterroles (cluster-scoped; may aggregate other cluster roles). */
export function clusterRoles(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: rbacGroup(apiDomain),
      version: 'v1',
      resource: 'clusterroles',
      singularName: 'clusterrole',
      kind: 'ClusterRole',
      listKind: 'ClusterRoleList',
      namespaced: false,
      verbs: VERBS,
      definitionName: 'io.k8s.api.rbac.v1.ClusterRole',
    },
    strategy: roleStrategy(false),
  };
}
