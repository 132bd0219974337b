import type { KubeObject, LabelSelectorObject } from '@cluster/apimachinery';
import type { PolicyRule } from '../authorizer.js';

export type { PolicyRule };

/** rbac/v1 Subject: who a binding grants to. */
export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** rbac/v1 RoleRef: the role a binding grants; immutable once created. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** rbac/v1 Role (namespaced) and ClusterRole (cluster-scoped, optionally aggregated). */
export interface RoleObject extends KubeObject {
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: LabelSelectorObject[] | null } | null;
}

/** rbac/v1 RoleBinding (namespaced) and ClusterRoleBinding (cluster-scoped). */
export interface BindingObject extends KubeObject {
  subjects?: Subject[] | null;
  roleRef: RoleRef;
}

/** The four RBAC resources, as the index and the informers name them. */
export type RbacResource = 'roles' | 'rolebindings' | 'clusterroles' | 'clusterrolebindings';

export const RBAC_RESOURCES: readonly RbacResource[] = ['clusterroles', 'roles', 'clusterrolebindings', 'rolebindings'];

/** The RBAC API group under an API domain: `rbac.authorization.<domain>`. */
export function rbacGroup(apiDomain: string): string {
  return `rbac.authorization.${apiDomain}`;
}

/** Username a service account authenticates as. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}
