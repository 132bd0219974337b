import type { BindingObject, PolicyRule, RoleObject } from '../types.js';
import { rbacGroup } from '../types.js';
import { clusterRole, clusterRoleBinding, eventsRule, READ, rule, subjects, SYSTEM_NAMESPACE } from './builders.js';

/** Prefix of every controller role; the rest of the name is the controller's service account. */
export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

/**
 * The rules of each controller of upstream's kube-controller-manager (v1.24 bootstrappolicy
 * controller_policy.go with default feature gates), in upstream's order, groups under `d`.
 */
function controllerRules(d: string): Array<[string, PolicyRule[]]> {
  const events = eventsRule(d);
  const storage = `storage.${d}`;
  const discovery = `discovery.${d}`;
  const certificates = `certificates.${d}`;
  const signers = (...names: string[]) => names.map((n) => `${d}/${n}`);
  return [
    ['attachdetach-controller', [
      rule(['list', 'watch'], [''], ['persistentvolumes', 'persistentvolumeclaims']),
      rule(READ, [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(['list', 'watch'], [''], ['pods']),
      events,
      rule(['get', 'create', 'delete', 'list', 'watch'], [storage], ['volumeattachments']),
      rule(['get', 'watch', 'list'], [storage], ['csidrivers']),
      rule(['get', 'watch', 'list'], [storage], ['csinodes']),
    ]],
    // Full rights on ClusterRoles (escalate included) so that it can write any aggregated rule.
    ['clusterrole-aggregation-controller', [rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [rbacGroup(d)], ['clusterroles'])]],
    ['cronjob-controller', [
      rule(['get', 'list', 'watch', 'update'], ['batch'], ['cronjobs']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['cronjobs/status']),
      rule(['update'], ['batch'], ['cronjobs/finalizers']),
      rule(['list', 'delete'], [''], ['pods']),
      events,
    ]],
    ['daemon-set-controller', [
      rule(READ, ['extensions', 'apps'], ['daemonsets']),
      rule(['update'], ['extensions', 'apps'], ['daemonsets/status']),
      rule(['update'], ['extensions', 'apps'], ['daemonsets/finalizers']),
      rule(['list', 'watch'], [''], ['nodes']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
      rule(['create'], [''], ['pods/binding']),
      rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], ['apps'], ['controllerrevisions']),
      events,
    ]],
    ['deployment-controller', [
      rule(['get', 'list', 'watch', 'update'], ['extensions', 'apps'], ['deployments']),
      rule(['update'], ['extensions', 'apps'], ['deployments/status']),
      rule(['update'], ['extensions', 'apps'], ['deployments/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], ['apps', 'extensions'], ['replicasets']),
      rule(['get', 'list', 'watch', 'update'], [''], ['pods']),
      events,
    ]],
    ['disruption-controller', [
      rule(READ, ['extensions', 'apps'], ['deployments']),
      rule(READ, ['apps', 'extensions'], ['replicasets']),
      rule(READ, [''], ['replicationcontrollers']),
      rule(READ, ['policy'], ['poddisruptionbudgets']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
      rule(['get'], ['*'], ['*/scale']),
      events,
    ]],
    ['endpoint-controller', [
      rule(READ, [''], ['services', 'pods']),
      rule(['get', 'list', 'create', 'update', 'delete'], [''], ['endpoints']),
      rule(['create'], [''], ['endpoints/restricted']),
      events,
    ]],
    ['endpointslice-controller', [
      rule(READ, [''], ['services', 'pods', 'nodes']),
      // Owner references with blockOwnerDeletion on the Service need its finalizers.
      rule(['update'], [''], ['services/finalizers']),
      rule(['get', 'list', 'create', 'update', 'delete'], [discovery], ['endpointslices']),
      events,
    ]],
    ['endpointslicemirroring-controller', [
      rule(READ, [''], ['services', 'endpoints']),
      rule(['update'], [''], ['services/finalizers']),
      rule(['update'], [''], ['endpoints/finalizers']),
      rule(['get', 'list', 'create', 'update', 'delete'], [discovery], ['endpointslices']),
      events,
    ]],
    ['expand-controller', [
      rule(['get', 'list', 'watch', 'update', 'patch'], [''], ['persistentvolumes']),
      rule(['update', 'patch'], [''], ['persistentvolumeclaims/status']),
      rule(READ, [''], ['persistentvolumeclaims']),
      // In-tree glusterfs volume plugin.
      rule(READ, [storage], ['storageclasses']),
      rule(['get'], [''], ['services', 'endpoints']),
      rule(['get'], [''], ['secrets']),
      events,
    ]],
    ['ephemeral-volume-controller', [
      rule(READ, [''], ['pods']),
      rule(['update'], [''], ['pods/finalizers']),
      rule(['get', 'list', 'watch', 'create'], [''], ['persistentvolumeclaims']),
      events,
    ]],
    // Lists, watches and updates any kind to collect orphans.
    ['generic-garbage-collector', [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), events]],
    ['horizontal-pod-autoscaler', [
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(['update'], ['autoscaling'], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(['list'], [''], ['pods']),
      rule(['get'], [''], ['services/proxy'], ['https:heapster:', 'http:heapster:']),
      rule(['list'], [`metrics.${d}`], ['pods']),
      rule(['get', 'list'], [`custom.metrics.${d}`], ['*']),
      events,
    ]],
    ['job-controller', [
      rule(['get', 'list', 'watch', 'update', 'patch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['jobs/status']),
      rule(['update'], ['batch'], ['jobs/finalizers']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
      events,
    ]],
    ['namespace-controller', [
      rule(['get', 'list', 'watch', 'delete'], [''], ['namespaces']),
      rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
      rule(['get', 'list', 'delete', 'deletecollection'], ['*'], ['*']),
    ]],
    ['node-controller', [
      rule(['get', 'list', 'update', 'delete', 'patch'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      // Pod eviction from unhealthy nodes.
      rule(['update'], [''], ['pods/status']),
      rule(['list', 'delete'], [''], ['pods']),
      events,
    ]],
    ['persistent-volume-binder', [
      rule(['get', 'list', 'watch', 'update', 'create', 'delete'], [''], ['persistentvolumes']),
      rule(['update'], [''], ['persistentvolumes/status']),
      rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['persistentvolumeclaims/status']),
      rule(['list', 'watch', 'get', 'create', 'delete'], [''], ['pods']),
      // In-tree glusterfs and openstack volume plugins, and the recycler's pod watch.
      rule(READ, [storage], ['storageclasses']),
      rule(['get', 'create', 'update', 'delete'], [''], ['endpoints']),
      rule(['get', 'create', 'delete'], [''], ['services']),
      rule(['get'], [''], ['secrets']),
      rule(['get', 'list'], [''], ['nodes']),
      rule(['watch'], [''], ['events']),
      events,
    ]],
    ['pod-garbage-collector', [rule(['list', 'watch', 'delete'], [''], ['pods']), rule(['get', 'list'], [''], ['nodes'])]],
    ['replicaset-controller', [
      rule(['get', 'list', 'watch', 'update'], ['apps', 'extensions'], ['replicasets']),
      rule(['update'], ['apps', 'extensions'], ['replicasets/status']),
      rule(['update'], ['apps', 'extensions'], ['replicasets/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
      events,
    ]],
    ['replication-controller', [
      rule(['get', 'list', 'watch', 'update'], [''], ['replicationcontrollers']),
      rule(['update'], [''], ['replicationcontrollers/status']),
      rule(['update'], [''], ['replicationcontrollers/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
      events,
    ]],
    // Quota may count any kind, so it may list and watch them all.
    ['resourcequota-controller', [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [''], ['resourcequotas/status']), events]],
    ['route-controller', [rule(['list', 'watch'], [''], ['nodes']), rule(['patch'], [''], ['nodes/status']), events]],
    ['service-account-controller', [rule(['create'], [''], ['serviceaccounts']), events]],
    ['service-controller', [
      rule(READ, [''], ['services']),
      rule(['patch', 'update'], [''], ['services/status']),
      rule(['list', 'watch'], [''], ['nodes']),
      events,
    ]],
    ['statefulset-controller', [
      rule(['list', 'watch'], [''], ['pods']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(['update'], ['apps'], ['statefulsets/status']),
      rule(['update'], ['apps'], ['statefulsets/finalizers']),
      rule(['get', 'create', 'delete', 'update', 'patch'], [''], ['pods']),
      rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], ['apps'], ['controllerrevisions']),
      rule(['get', 'create'], [''], ['persistentvolumeclaims']),
      events,
    ]],
    ['ttl-controller', [rule(['update', 'patch', 'list', 'watch'], [''], ['nodes']), events]],
    ['certificate-controller', [
      rule(['get', 'list', 'watch', 'delete'], [certificates], ['certificatesigningrequests']),
      rule(['update'], [certificates], ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
      rule(['approve'], [certificates], ['signers'], signers('api-server-client-node-agent')),
      rule(['sign'], [certificates], ['signers'], signers('legacy-unknown', 'api-server-client', 'api-server-client-node-agent', 'node-agent-serving')),
      rule(['create'], [`authorization.${d}`], ['subjectaccessreviews']),
      events,
    ]],
    ['pvc-protection-controller', [
      rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
      rule(['list', 'watch', 'get'], [''], ['pods']),
      events,
    ]],
    ['pv-protection-controller', [rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumes']), events]],
    ['ttl-after-finished-controller', [rule(['get', 'list', 'watch', 'delete'], ['batch'], ['jobs']), events]],
    ['root-ca-cert-publisher', [rule(['create', 'update'], [''], ['configmaps']), events]],
  ];
}

/** Upstream's controller ClusterRoles (`system:controller:<name>`). */
export function controllerClusterRoles(apiDomain: string): RoleObject[] {
  return controllerRules(apiDomain).map(([name, rules]) => clusterRole(apiDomain, CONTROLLER_ROLE_PREFIX + name, rules));
}

/**
 * Upstream's controller ClusterRoleBindings: each role to the service account of the controller's
 * name in the system namespace (what kube-controller-manager's --use-service-account-credentials uses).
 */
export function controllerClusterRoleBindings(apiDomain: string): BindingObject[] {
  const { serviceAccount } = subjects(apiDomain);
  return controllerRules(apiDomain).map(([name]) => clusterRoleBinding(apiDomain, CONTROLLER_ROLE_PREFIX + name, [serviceAccount(SYSTEM_NAMESPACE, name)]));
}
