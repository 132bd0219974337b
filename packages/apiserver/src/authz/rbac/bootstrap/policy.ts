import type { BindingObject, PolicyRule, RoleObject } from '../types.js';
import { rbacGroup } from '../types.js';
import { nodeRules } from '../../node/node-rules.js';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = [...READ, ...WRITE];

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ apiGroups, resources, verbs });
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ nonResourceURLs, verbs });

/** Names of the labels and annotations default policy carries, under the API domain. */
export function policyKeys(apiDomain: string) {
  const g = rbacGroup(apiDomain);
  return {
    autoupdate: `${g}/autoupdate`,
    bootstrapping: `${apiDomain}/bootstrapping`,
    aggregateTo: (role: 'admin' | 'edit' | 'view') => `${g}/aggregate-to-${role}`,
  };
}

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
  const g = rbacGroup(apiDomain);
  const keys = policyKeys(apiDomain);
  const binding = (role: string, groups: string[], users: string[] = []): BindingObject => ({
    apiVersion: `${g}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: role, labels: { [keys.bootstrapping]: 'rbac-defaults' }, annotations: { [keys.autoupdate]: 'true' } },
    roleRef: { apiGroup: g, kind: 'ClusterRole', name: role },
    ...(groups.length || users.length
      ? { subjects: [...groups.map((name) => ({ kind: 'Group', apiGroup: g, name })), ...users.map((name) => ({ kind: 'User', apiGroup: g, name }))] }
      : {}),
  });
  return [
    binding('cluster-admin', ['system:masters']),
    binding('system:monitoring', ['system:monitoring']),
    binding('system:discovery', ['system:authenticated']),
    binding('system:basic-user', ['system:authenticated']),
    binding('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    binding('system:node-proxier', [], ['system:kube-proxy']),
    binding('system:kube-scheduler', [], ['system:kube-scheduler']),
    // Upstream keeps this binding with no subjects since the Node authorizer replaced it.
    binding('system:node', []),
  ];
}

/** Where extension API servers read how to trust this server's forwarded identities (upstream's kube-system). */
export const EXTENSION_AUTH_NAMESPACE = 'cluster-system';
export const EXTENSION_AUTH_CONFIGMAP = 'extension-apiserver-authentication';
const EXTENSION_AUTH_READER = 'extension-apiserver-authentication-reader';

/** Where unauthenticated clients find the cluster's public bootstrap information (SPEC 4.12). */
export const CLUSTER_PUBLIC_NAMESPACE = 'cluster-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
const CLUSTER_INFO_READER = 'system:bootstrap-signer-clusterinfo';

/**
 * Default namespaced Roles (upstream's bootstrappolicy NamespaceRoles() plus the grant kubeadm
 * adds): anyone, authenticated or not, may `get` the ConfigMap `cluster-public/cluster-info`,
 * so that a joining machine can fetch it with nothing but a bootstrap token to verify it with.
 */
export function defaultNamespacedRoles(apiDomain: string): RoleObject[] {
  const keys = policyKeys(apiDomain);
  return [
    {
      apiVersion: `${rbacGroup(apiDomain)}/v1`,
      kind: 'Role',
      metadata: {
        name: CLUSTER_INFO_READER,
        namespace: CLUSTER_PUBLIC_NAMESPACE,
        labels: { [keys.bootstrapping]: 'rbac-defaults' },
        annotations: { [keys.autoupdate]: 'true' },
      },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO_NAME] }],
    },
    {
      apiVersion: `${rbacGroup(apiDomain)}/v1`,
      kind: 'Role',
      metadata: {
        name: EXTENSION_AUTH_READER,
        namespace: EXTENSION_AUTH_NAMESPACE,
        labels: { [keys.bootstrapping]: 'rbac-defaults' },
        annotations: { [keys.autoupdate]: 'true' },
      },
      rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: [EXTENSION_AUTH_CONFIGMAP] }],
    },
  ];
}

/** Default namespaced RoleBindings: the reader of cluster-info, for anonymous requests. */
export function defaultNamespacedRoleBindings(apiDomain: string): BindingObject[] {
  const g = rbacGroup(apiDomain);
  const keys = policyKeys(apiDomain);
  return [
    {
      apiVersion: `${g}/v1`,
      kind: 'RoleBinding',
      metadata: {
        name: CLUSTER_INFO_READER,
        namespace: CLUSTER_PUBLIC_NAMESPACE,
        labels: { [keys.bootstrapping]: 'rbac-defaults' },
        annotations: { [keys.autoupdate]: 'true' },
      },
      roleRef: { apiGroup: g, kind: 'Role', name: CLUSTER_INFO_READER },
      // Wildcard subjects never cover anonymous requests (SPEC 5.4), so both are named.
      subjects: [
        { kind: 'User', apiGroup: g, name: 'system:anonymous' },
        { kind: 'Group', apiGroup: g, name: 'system:unauthenticated' },
      ],
    },
  ];
}
