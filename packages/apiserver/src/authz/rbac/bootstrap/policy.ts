import type { BindingObject, PolicyRule, RoleObject, Subject } from '../types.js';
import { rbacGroup } from '../types.js';
import { nodeRules } from '../../node/node-rules.js';
import { clusterRoleBinding, PUBLIC_NAMESPACE, policyKeys, READ, READ_UPDATE, READ_WRITE, rule, subjects, SYSTEM_NAMESPACE, urls, WRITE } from './builders.js';

export { policyKeys };

/**
 * Upstream's default ClusterRoles (bootstrappolicy ClusterRoles()), with every group under
 * `apiDomain`. Pure data; `reconcileRole` decides what to write.
 */
export function defaultClusterRoles(apiDomain: string): RoleObject[] {
  const d = apiDomain;
  const keys = policyKeys(d);
  const role = (name: string, rules: PolicyRule[], labels: Record<string, string> = {}, aggregateFrom?: 'admin' | 'edit' | 'view'): RoleObject => ({
    apiVersion: `${rbacGroup(d)}/v1`,
    kind: 'ClusterRole',
    metadata: { name, labels: { [keys.bootstrapping]: 'rbac-defaults', ...labels }, annotations: { [keys.autoupdate]: 'true' } },
    ...(aggregateFrom
      ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [keys.aggregateTo(aggregateFrom)]: 'true' } }] }, rules: [] }
      : { rules }),
  });
  const eventsRule = rule(['create', 'update', 'patch'], ['', `events.${d}`], ['events']);
  const podsEtc = ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'];
  return [
    role('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    role('system:discovery', [
      urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/']),
    ]),
    role('system:monitoring', [
      urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*']),
    ]),
    role('system:basic-user', [
      rule(['create'], [`authorization.${d}`], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], [`authentication.${d}`], ['selfsubjectreviews']),
    ]),
    role('system:public-info-viewer', [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),
    // What an extension API server needs to delegate authentication and authorization back here.
    role('system:auth-delegator', [rule(['create'], [`authentication.${d}`], ['tokenreviews']), rule(['create'], [`authorization.${d}`], ['subjectaccessreviews'])]),
    role('admin', [], {}, 'admin'),
    role('edit', [], { [keys.aggregateTo('admin')]: 'true' }, 'edit'),
    role('view', [], { [keys.aggregateTo('edit')]: 'true' }, 'view'),
    role(
      'system:aggregate-to-admin',
      [
        rule(['create'], [`authorization.${d}`], ['localsubjectaccessreviews']),
        rule(READ_WRITE, [rbacGroup(d)], ['rolebindings', 'roles']),
      ],
      { [keys.aggregateTo('admin')]: 'true' },
    ),
    role(
      'system:aggregate-to-edit',
      [
        rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
        rule(['impersonate'], [''], ['serviceaccounts']),
        rule(WRITE, [''], podsEtc),
        rule(['create'], [''], ['pods/eviction']),
        rule(WRITE, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
        rule(['create'], [''], ['serviceaccounts/token']),
        rule(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
        rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
        rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
        rule(WRITE, ['policy'], ['poddisruptionbudgets']),
        rule(WRITE, [`networking.${d}`], ['ingresses', 'networkpolicies']),
        rule(WRITE, [`coordination.${d}`], ['leases']),
      ],
      { [keys.aggregateTo('edit')]: 'true' },
    ),
    role(
      'system:aggregate-to-view',
      [
        rule(READ, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
        rule(READ, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
        rule(READ, [''], ['namespaces']),
        rule(READ, [`discovery.${d}`], ['endpointslices']),
        rule(READ, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
        rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
        rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        rule(READ, [`networking.${d}`], ['ingresses', 'ingresses/status', 'networkpolicies']),
        rule(READ, [`coordination.${d}`], ['leases']),
      ],
      { [keys.aggregateTo('view')]: 'true' },
    ),
    // What node agents need (upstream's system:node role, NodeRules). Bound to nobody: the Node
    // authorizer grants it to each node, narrowed to the node's own objects.
    role('system:node', [...nodeRules(d).unscoped, ...nodeRules(d).scoped]),
    // Node-side agents (upstream's, unbound but for kube-proxy's below): the node problem detector,
    // full access to node agents' APIs, and kube-proxy.
    role('system:node-problem-detector', [rule(['get'], [''], ['nodes']), rule(['patch'], [''], ['nodes/status']), eventsRule]),
    role('system:kubelet-api-admin', [
      rule(READ, [''], ['nodes']),
      rule(['proxy'], [''], ['nodes']),
      rule(['*'], [''], ['nodes/proxy', 'nodes/metrics', 'nodes/spec', 'nodes/stats', 'nodes/log']),
    ]),
    role('system:node-proxier', [
      rule(['list', 'watch'], [''], ['services', 'endpoints']),
      rule(READ, [''], ['nodes']),
      eventsRule,
      rule(['list', 'watch'], [`discovery.${d}`], ['endpointslices']),
    ]),
    // The scheduler (upstream's system:kube-scheduler, CSIStorageCapacity on): binds pods and reads what they select or use.
    role('system:kube-scheduler', [
      eventsRule,
      rule(['create'], [`coordination.${d}`], ['leases']),
      { apiGroups: [`coordination.${d}`], resources: ['leases'], resourceNames: ['kube-scheduler'], verbs: ['get', 'update'] },
      rule(['create'], [''], ['endpoints']),
      { apiGroups: [''], resources: ['endpoints'], resourceNames: ['kube-scheduler'], verbs: ['get', 'update'] },
      rule(READ, [''], ['nodes']),
      rule(['get', 'list', 'watch', 'delete'], [''], ['pods']),
      rule(['create'], [''], ['pods/binding', 'bindings']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(READ, [''], ['services', 'replicationcontrollers']),
      rule(READ, ['apps', 'extensions'], ['replicasets']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(READ, ['policy'], ['poddisruptionbudgets']),
      rule(READ, [''], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['create'], [`authentication.${d}`], ['tokenreviews']),
      rule(['create'], [`authorization.${d}`], ['subjectaccessreviews']),
      rule(READ, [`storage.${d}`], ['csinodes']),
      rule(READ, [''], ['namespaces']),
      rule(READ, [`storage.${d}`], ['csidrivers']),
      rule(READ, [`storage.${d}`], ['csistoragecapacities']),
    ]),
    role('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], [`certificates.${d}`], ['certificatesigningrequests'])]),
    role(`system:certificates.${d}:certificatesigningrequests:nodeclient`, [
      rule(['create'], [`certificates.${d}`], ['certificatesigningrequests/nodeclient']),
    ]),
    role(`system:certificates.${d}:certificatesigningrequests:selfnodeclient`, [
      rule(['create'], [`certificates.${d}`], ['certificatesigningrequests/selfnodeclient']),
    ]),
    // Heapster's reads (unbound upstream too).
    role('system:heapster', [rule(READ, [''], ['events', 'pods', 'nodes', 'namespaces']), rule(READ, ['extensions'], ['deployments'])]),
    // An aggregator must see every service to know whether the ones it points to exist.
    role('system:kube-aggregator', [rule(READ, [''], ['services', 'endpoints'])]),
    // kube-controller-manager's own identity: leader election, the service accounts and tokens it
    // makes for the controllers' identities, and list/watch of everything for shared informers.
    role('system:kube-controller-manager', [
      eventsRule,
      rule(['create'], [`coordination.${d}`], ['leases']),
      rule(['get', 'update'], [`coordination.${d}`], ['leases'], ['kube-controller-manager']),
      rule(['create'], [''], ['endpoints']),
      rule(['get', 'update'], [''], ['endpoints'], ['kube-controller-manager']),
      rule(['create'], [''], ['secrets', 'serviceaccounts']),
      rule(['delete'], [''], ['secrets']),
      rule(['get'], [''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
      rule(['update'], [''], ['secrets', 'serviceaccounts']),
      rule(['create'], [`authentication.${d}`], ['tokenreviews']),
      rule(['create'], [`authorization.${d}`], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [''], ['serviceaccounts/token']),
    ]),
    role('system:kube-dns', [rule(['list', 'watch'], [''], ['endpoints', 'services'])]),
    // An external (out-of-tree) volume provisioner; unbound.
    role('system:persistent-volume-provisioner', [
      rule(['get', 'list', 'watch', 'create', 'delete'], [''], ['persistentvolumes']),
      rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
      rule(READ, [`storage.${d}`], ['storageclasses']),
      rule(['watch'], [''], ['events']),
      eventsRule,
    ]),
    // The scheduler's volume binding.
    role('system:volume-scheduler', [
      rule(READ_UPDATE, [''], ['persistentvolumes']),
      rule(READ, [`storage.${d}`], ['storageclasses']),
      rule(READ_UPDATE, [''], ['persistentvolumeclaims']),
    ]),
    // Only the service-account issuer's OIDC discovery documents.
    role('system:service-account-issuer-discovery', [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])]),
    // Who may approve requests for each built-in signer (SPEC 4.10; upstream's *-approver roles).
    ...['api-server-client', 'api-server-client-node-agent', 'node-agent-serving', 'legacy-unknown'].map((signer) =>
      role(`system:certificates.${d}:${signer}-approver`, [
        { apiGroups: [`certificates.${d}`], resources: ['signers'], resourceNames: [`${d}/${signer}`], verbs: ['approve'] },
      ]),
    ),
  ];
}

/** Upstream's default ClusterRoleBindings (bootstrappolicy ClusterRoleBindings()). */
export function defaultClusterRoleBindings(apiDomain: string): BindingObject[] {
  const { user, group, serviceAccount } = subjects(apiDomain);
  const binding = (name: string, ...who: Subject[]) => clusterRoleBinding(apiDomain, name, who);
  return [
    binding('cluster-admin', group('system:masters')),
    binding('system:monitoring', group('system:monitoring')),
    binding('system:discovery', group('system:authenticated')),
    binding('system:basic-user', group('system:authenticated')),
    binding('system:public-info-viewer', group('system:authenticated'), group('system:unauthenticated')),
    binding('system:node-proxier', user('system:kube-proxy')),
    binding('system:kube-controller-manager', user('system:kube-controller-manager')),
    binding('system:kube-dns', serviceAccount(SYSTEM_NAMESPACE, 'kube-dns')),
    binding('system:kube-scheduler', user('system:kube-scheduler')),
    binding('system:volume-scheduler', user('system:kube-scheduler')),
    // Upstream keeps this binding with no subjects since the Node authorizer replaced it.
    binding('system:node'),
    // Every service account may read the OIDC discovery documents of the issuer of its tokens.
    binding('system:service-account-issuer-discovery', group('system:serviceaccounts')),
  ];
}

/** Where extension API servers read how to trust this server's forwarded identities (upstream's kube-system). */
export const EXTENSION_AUTH_NAMESPACE = SYSTEM_NAMESPACE;
export const EXTENSION_AUTH_CONFIGMAP = 'extension-apiserver-authentication';

/** Where unauthenticated clients find the cluster's public bootstrap information (SPEC 4.12). */
export const CLUSTER_PUBLIC_NAMESPACE = PUBLIC_NAMESPACE;
export const CLUSTER_INFO_NAME = 'cluster-info';
