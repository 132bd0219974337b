import type { BindingObject, RoleObject, Subject } from '../types.js';
import { eventsRule, namespacedRole, namespacedRoleBinding, PUBLIC_NAMESPACE, READ, rule, subjects, SYSTEM_NAMESPACE } from './builders.js';
import { CONTROLLER_ROLE_PREFIX } from './controller-policy.js';
import { CLUSTER_INFO_NAME, EXTENSION_AUTH_CONFIGMAP } from './policy.js';

const EXTENSION_AUTH_READER = 'extension-apiserver-authentication-reader';
const CLUSTER_INFO_READER = 'system:bootstrap-signer-clusterinfo';
const BOOTSTRAP_SIGNER = `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`;
const CLOUD_PROVIDER = `${CONTROLLER_ROLE_PREFIX}cloud-provider`;
const TOKEN_CLEANER = `${CONTROLLER_ROLE_PREFIX}token-cleaner`;
const LOCK_CONTROLLER_MANAGER = 'system::leader-locking-kube-controller-manager';
const LOCK_SCHEDULER = 'system::leader-locking-kube-scheduler';

/**
 * Default namespaced Roles: upstream's bootstrappolicy NamespaceRoles() (v1.24; kube-system is the
 * system namespace here, kube-public the public one), plus the grant kubeadm adds so that anyone,
 * authenticated or not, may `get` the ConfigMap `cluster-public/cluster-info` (a joining machine
 * fetches it with nothing but a bootstrap token to verify it with).
 */
export function defaultNamespacedRoles(apiDomain: string): RoleObject[] {
  const d = apiDomain;
  const sys = (name: string, rules: RoleObject['rules'] & object) => namespacedRole(d, SYSTEM_NAMESPACE, name, rules);
  return [
    namespacedRole(d, PUBLIC_NAMESPACE, CLUSTER_INFO_READER, [rule(['get'], [''], ['configmaps'], [CLUSTER_INFO_NAME])]),
    // How to trust this server's forwarded identities, for extension API servers.
    sys(EXTENSION_AUTH_READER, [rule(READ, [''], ['configmaps'], [EXTENSION_AUTH_CONFIGMAP])]),
    // The bootstrap signer inspects bootstrap-token Secrets here and signs cluster-info there.
    sys(BOOTSTRAP_SIGNER, [rule(READ, [''], ['secrets'])]),
    // Deprecated upstream since 1.10; kept as upstream keeps it.
    sys(CLOUD_PROVIDER, [rule(['create', 'get', 'list', 'watch'], [''], ['configmaps'])]),
    // The token cleaner deletes expired bootstrap-token Secrets, in the system namespace only.
    sys(TOKEN_CLEANER, [rule(['get', 'list', 'watch', 'delete'], [''], ['secrets']), eventsRule(d)]),
    // Leader election on a named ConfigMap.
    sys(LOCK_CONTROLLER_MANAGER, [rule(['watch'], [''], ['configmaps']), rule(['get', 'update'], [''], ['configmaps'], ['kube-controller-manager'])]),
    sys(LOCK_SCHEDULER, [rule(['watch'], [''], ['configmaps']), rule(['get', 'update'], [''], ['configmaps'], ['kube-scheduler'])]),
    namespacedRole(d, PUBLIC_NAMESPACE, BOOTSTRAP_SIGNER, [
      rule(READ, [''], ['configmaps']),
      rule(['update'], [''], ['configmaps'], [CLUSTER_INFO_NAME]),
      eventsRule(d),
    ]),
  ];
}

/** Default namespaced RoleBindings: upstream's NamespaceRoleBindings() and the anonymous cluster-info reader. */
export function defaultNamespacedRoleBindings(apiDomain: string): BindingObject[] {
  const d = apiDomain;
  const { user, group, serviceAccount } = subjects(d);
  const sa = (name: string) => serviceAccount(SYSTEM_NAMESPACE, name);
  const sys = (name: string, role: string, ...who: Subject[]) => namespacedRoleBinding(d, SYSTEM_NAMESPACE, name, role, who);
  return [
    // Wildcard subjects never cover anonymous requests (SPEC 5.4), so both are named.
    namespacedRoleBinding(d, PUBLIC_NAMESPACE, CLUSTER_INFO_READER, CLUSTER_INFO_READER, [user('system:anonymous'), group('system:unauthenticated')]),
    sys(`system::${EXTENSION_AUTH_READER}`, EXTENSION_AUTH_READER, user('system:kube-controller-manager'), user('system:kube-scheduler')),
    sys(LOCK_CONTROLLER_MANAGER, LOCK_CONTROLLER_MANAGER, user('system:kube-controller-manager'), sa('kube-controller-manager')),
    sys(LOCK_SCHEDULER, LOCK_SCHEDULER, user('system:kube-scheduler'), sa('kube-scheduler')),
    sys(BOOTSTRAP_SIGNER, BOOTSTRAP_SIGNER, sa('bootstrap-signer')),
    sys(CLOUD_PROVIDER, CLOUD_PROVIDER, sa('cloud-provider')),
    sys(TOKEN_CLEANER, TOKEN_CLEANER, sa('token-cleaner')),
    namespacedRoleBinding(d, PUBLIC_NAMESPACE, BOOTSTRAP_SIGNER, BOOTSTRAP_SIGNER, [sa('bootstrap-signer')]),
  ];
}
