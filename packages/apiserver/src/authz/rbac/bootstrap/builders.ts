import type { BindingObject, PolicyRule, RoleObject, Subject } from '../types.js';
import { rbacGroup } from '../types.js';

/** Upstream's verb sets (bootstrappolicy Read, ReadUpdate, Write). */
export const READ = ['get', 'list', 'watch'];
export const READ_UPDATE = ['get', 'list', 'watch', 'update', 'patch'];
export const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
export const READ_WRITE = [...READ, ...WRITE];

/** Where upstream's kube-system objects live here (SPEC naming convention). */
export const SYSTEM_NAMESPACE = 'cluster-system';
/** Where upstream's kube-public objects live here. */
export const PUBLIC_NAMESPACE = 'cluster-public';

export const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
  verbs,
});
export const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ nonResourceURLs, verbs });

/** Names of the labels and annotations default policy carries, under the API domain. */
export function policyKeys(apiDomain: string) {
  const g = rbacGroup(apiDomain);
  return {
    autoupdate: `${g}/autoupdate`,
    bootstrapping: `${apiDomain}/bootstrapping`,
    aggregateTo: (role: 'admin' | 'edit' | 'view') => `${g}/aggregate-to-${role}`,
  };
}

/** Upstream's eventsRule(): write events in the core and events groups. */
export const eventsRule = (apiDomain: string): PolicyRule => rule(['create', 'update', 'patch'], ['', `events.${apiDomain}`], ['events']);

/** Metadata of every default object: the bootstrapping label and autoupdate annotation. */
export function defaultMeta(apiDomain: string, name: string, namespace?: string, labels: Record<string, string> = {}): RoleObject['metadata'] {
  const keys = policyKeys(apiDomain);
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { [keys.bootstrapping]: 'rbac-defaults', ...labels },
    annotations: { [keys.autoupdate]: 'true' },
  };
}

/** Subject constructors as upstream's binding builder makes them (users and groups in the RBAC group). */
export function subjects(apiDomain: string) {
  const g = rbacGroup(apiDomain);
  return {
    user: (name: string): Subject => ({ kind: 'User', apiGroup: g, name }),
    group: (name: string): Subject => ({ kind: 'Group', apiGroup: g, name }),
    serviceAccount: (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace }),
  };
}

/** A default ClusterRole with plain rules. */
export function clusterRole(apiDomain: string, name: string, rules: PolicyRule[]): RoleObject {
  return { apiVersion: `${rbacGroup(apiDomain)}/v1`, kind: 'ClusterRole', metadata: defaultMeta(apiDomain, name), rules };
}

/** A default ClusterRoleBinding of the ClusterRole of the same name; no `subjects` field when empty. */
export function clusterRoleBinding(apiDomain: string, name: string, subjectList: Subject[]): BindingObject {
  const g = rbacGroup(apiDomain);
  return {
    apiVersion: `${g}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: defaultMeta(apiDomain, name),
    roleRef: { apiGroup: g, kind: 'ClusterRole', name },
    ...(subjectList.length ? { subjects: subjectList } : {}),
  };
}

/** A default namespaced Role. */
export function namespacedRole(apiDomain: string, namespace: string, name: string, rules: PolicyRule[]): RoleObject {
  return { apiVersion: `${rbacGroup(apiDomain)}/v1`, kind: 'Role', metadata: defaultMeta(apiDomain, name, namespace), rules };
}

/** A default RoleBinding named `name` of the Role `role` in the same namespace. */
export function namespacedRoleBinding(apiDomain: string, namespace: string, name: string, role: string, subjectList: Subject[]): BindingObject {
  const g = rbacGroup(apiDomain);
  return {
    apiVersion: `${g}/v1`,
    kind: 'RoleBinding',
    metadata: defaultMeta(apiDomain, name, namespace),
    roleRef: { apiGroup: g, kind: 'Role', name: role },
    subjects: subjectList,
  };
}
