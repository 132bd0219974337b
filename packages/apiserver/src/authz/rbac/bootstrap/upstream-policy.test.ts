import type { UserInfo } from '../../../authn/user.js';
import type { RequestInfo } from '../../../request/request-info.js';
import type { RegistrySet } from '../../../registry/registry-set.js';
import { RbacAuthorizer } from '../rbac-authorizer.js';
import type { BindingObject, PolicyRule, RoleObject } from '../types.js';
import { controllerClusterRoleBindings, controllerClusterRoles } from './controller-policy.js';
import { defaultNamespacedRoleBindings, defaultNamespacedRoles } from './namespace-policy.js';
import { defaultClusterRoleBindings, defaultClusterRoles } from './policy.js';

// Upstream's v1.24 bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, default
// feature gates), with `k8s.io` groups under the API domain, kube-system as cluster-system and
// kube-public as cluster-public. The signer-named roles carry the SPEC's signer names.
const D = 'example.org';
const G = `rbac.authorization.${D}`;

const CONTROLLERS = [
  'attachdetach-controller', 'clusterrole-aggregation-controller', 'cronjob-controller', 'daemon-set-controller',
  'deployment-controller', 'disruption-controller', 'endpoint-controller', 'endpointslice-controller',
  'endpointslicemirroring-controller', 'expand-controller', 'ephemeral-volume-controller', 'generic-garbage-collector',
  'horizontal-pod-autoscaler', 'job-controller', 'namespace-controller', 'node-controller', 'persistent-volume-binder',
  'pod-garbage-collector', 'replicaset-controller', 'replication-controller', 'resourcequota-controller', 'route-controller',
  'service-account-controller', 'service-controller', 'statefulset-controller', 'ttl-controller', 'certificate-controller',
  'pvc-protection-controller', 'pv-protection-controller', 'ttl-after-finished-controller', 'root-ca-cert-publisher',
];

const CLUSTER_ROLES = [
  'cluster-admin', 'system:discovery', 'system:monitoring', 'system:basic-user', 'system:public-info-viewer', 'admin', 'edit', 'view',
  'system:aggregate-to-admin', 'system:aggregate-to-edit', 'system:aggregate-to-view', 'system:heapster', 'system:node',
  'system:node-problem-detector', 'system:kubelet-api-admin', 'system:node-bootstrapper', 'system:auth-delegator', 'system:kube-aggregator',
  'system:kube-controller-manager', 'system:kube-dns', 'system:persistent-volume-provisioner',
  `system:certificates.${D}:certificatesigningrequests:nodeclient`, `system:certificates.${D}:certificatesigningrequests:selfnodeclient`,
  'system:volume-scheduler', `system:certificates.${D}:legacy-unknown-approver`, `system:certificates.${D}:node-agent-serving-approver`,
  `system:certificates.${D}:api-server-client-approver`, `system:certificates.${D}:api-server-client-node-agent-approver`,
  'system:service-account-issuer-discovery', 'system:node-proxier', 'system:kube-scheduler',
];

const user = (name: string) => `User:${name}`;
const group = (name: string) => `Group:${name}`;
const sa = (name: string, ns = 'cluster-system') => `ServiceAccount:${ns}/${name}`;
// [binding name, the subjects upstream gives it]
const CLUSTER_BINDINGS: Array<[string, string[]]> = [
  ['cluster-admin', [group('system:masters')]],
  ['system:monitoring', [group('system:monitoring')]],
  ['system:discovery', [group('system:authenticated')]],
  ['system:basic-user', [group('system:authenticated')]],
  ['system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]],
  ['system:node-proxier', [user('system:kube-proxy')]],
  ['system:kube-controller-manager', [user('system:kube-controller-manager')]],
  ['system:kube-dns', [sa('kube-dns')]],
  ['system:kube-scheduler', [user('system:kube-scheduler')]],
  ['system:volume-scheduler', [user('system:kube-scheduler')]],
  ['system:node', []],
  ['system:service-account-issuer-discovery', [group('system:serviceaccounts')]],
  ...CONTROLLERS.map((c): [string, string[]] => [`system:controller:${c}`, [sa(c)]]),
];

// [namespace, name, role, subjects]; the first is kubeadm's cluster-info grant, the rest upstream's.
const NAMESPACED_BINDINGS: Array<[string, string, string, string[]]> = [
  ['cluster-public', 'system:bootstrap-signer-clusterinfo', 'system:bootstrap-signer-clusterinfo', [user('system:anonymous'), group('system:unauthenticated')]],
  ['cluster-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [user('system:kube-controller-manager'), user('system:kube-scheduler')]],
  ['cluster-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [user('system:kube-controller-manager'), sa('kube-controller-manager')]],
  ['cluster-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [user('system:kube-scheduler'), sa('kube-scheduler')]],
  ['cluster-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [sa('bootstrap-signer')]],
  ['cluster-system', 'system:controller:cloud-provider', 'system:controller:cloud-provider', [sa('cloud-provider')]],
  ['cluster-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', [sa('token-cleaner')]],
  ['cluster-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [sa('bootstrap-signer')]],
];

const subjectsOf = (b: BindingObject) => (b.subjects ?? []).map((s) => (s.kind === 'ServiceAccount' ? sa(s.name, s.namespace) : `${s.kind}:${s.name}`));
const allClusterRoles = () => [...defaultClusterRoles(D), ...controllerClusterRoles(D)];
const allClusterBindings = () => [...defaultClusterRoleBindings(D), ...controllerClusterRoleBindings(D)];
const rulesOf = (roles: RoleObject[], name: string): PolicyRule[] => roles.find((r) => r.metadata.name === name)!.rules ?? [];

describe('default policy against upstream v1.24', () => {
  test('cluster roles: upstream\'s names, once each', () => {
    const names = allClusterRoles().map((r) => r.metadata.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...CLUSTER_ROLES, ...CONTROLLERS.map((c) => `system:controller:${c}`)].sort());
  });

  test('cluster role bindings: upstream\'s names, roles and subjects', () => {
    const bindings = allClusterBindings();
    expect(bindings.map((b) => b.metadata.name).sort()).toEqual(CLUSTER_BINDINGS.map(([n]) => n).sort());
    for (const [name, subjects] of CLUSTER_BINDINGS) {
      const b = bindings.find((x) => x.metadata.name === name)!;
      expect([name, b.roleRef]).toEqual([name, { apiGroup: G, kind: 'ClusterRole', name }]);
      expect([name, subjectsOf(b)]).toEqual([name, subjects]);
    }
  });

  test('namespaced roles and bindings: upstream\'s, in the system and public namespaces', () => {
    const roles = defaultNamespacedRoles(D).map((r) => `${r.metadata.namespace}/${r.metadata.name}`);
    expect(roles.sort()).toEqual([
      'cluster-public/system:bootstrap-signer-clusterinfo', 'cluster-public/system:controller:bootstrap-signer',
      'cluster-system/extension-apiserver-authentication-reader', 'cluster-system/system::leader-locking-kube-controller-manager',
      'cluster-system/system::leader-locking-kube-scheduler', 'cluster-system/system:controller:bootstrap-signer',
      'cluster-system/system:controller:cloud-provider', 'cluster-system/system:controller:token-cleaner',
    ]);
    const bindings = defaultNamespacedRoleBindings(D);
    expect(bindings.map((b) => `${b.metadata.namespace}/${b.metadata.name}`).sort()).toEqual(NAMESPACED_BINDINGS.map(([ns, n]) => `${ns}/${n}`).sort());
    for (const [ns, name, role, subjects] of NAMESPACED_BINDINGS) {
      const b = bindings.find((x) => x.metadata.namespace === ns && x.metadata.name === name)!;
      expect(b.roleRef).toEqual({ apiGroup: G, kind: 'Role', name: role });
      expect([name, subjectsOf(b)]).toEqual([name, subjects]);
    }
  });

  test('every object carries the bootstrapping label and autoupdate annotation, and no k8s.io group', () => {
    const all = [...allClusterRoles(), ...allClusterBindings(), ...defaultNamespacedRoles(D), ...defaultNamespacedRoleBindings(D)];
    for (const o of all) {
      expect(o.metadata.labels?.[`${D}/bootstrapping`]).toBe('rbac-defaults');
      expect(o.metadata.annotations?.[`${G}/autoupdate`]).toBe('true');
    }
    expect(JSON.stringify(all)).not.toContain('k8s.io');
  });

  test('spot checks of upstream rules', () => {
    const roles = allClusterRoles();
    expect(rulesOf(roles, 'system:controller:namespace-controller')).toEqual([
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch', 'delete'] },
      { apiGroups: [''], resources: ['namespaces/finalize', 'namespaces/status'], verbs: ['update'] },
      { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'delete', 'deletecollection'] },
    ]);
    expect(rulesOf(roles, 'system:volume-scheduler')).toEqual([
      { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
      { apiGroups: [`storage.${D}`], resources: ['storageclasses'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
    ]);
    expect(rulesOf(roles, 'system:service-account-issuer-discovery')).toEqual([
      { nonResourceURLs: ['/.well-known/openid-configuration', '/openid/v1/jwks'], verbs: ['get'] },
    ]);
    expect(rulesOf(roles, 'system:kube-dns')).toEqual([{ apiGroups: [''], resources: ['endpoints', 'services'], verbs: ['list', 'watch'] }]);
    expect(rulesOf(roles, 'system:kube-controller-manager')).toContainEqual({ apiGroups: ['*'], resources: ['*'], verbs: ['list', 'watch'] });
    expect(rulesOf(roles, 'system:controller:clusterrole-aggregation-controller')).toEqual([
      { apiGroups: [G], resources: ['clusterroles'], verbs: ['escalate', 'get', 'list', 'watch', 'update', 'patch'] },
    ]);
    const cert = rulesOf(roles, 'system:controller:certificate-controller');
    expect(cert).toContainEqual({ apiGroups: [`certificates.${D}`], resources: ['signers'], resourceNames: [`${D}/api-server-client-node-agent`], verbs: ['approve'] });
    const hpa = rulesOf(roles, 'system:controller:horizontal-pod-autoscaler');
    // v1.24's HPA reads resource and custom metrics; external metrics came to its role later.
    expect(hpa).toContainEqual({ apiGroups: [`custom.metrics.${D}`], resources: ['*'], verbs: ['get', 'list'] });
    expect(hpa.some((r) => r.apiGroups?.includes(`external.metrics.${D}`))).toBe(false);
    const events = { apiGroups: ['', `events.${D}`], resources: ['events'], verbs: ['create', 'update', 'patch'] };
    expect(rulesOf(roles, 'system:controller:job-controller')).toContainEqual(events);
    const tokenCleaner = defaultNamespacedRoles(D).find((r) => r.metadata.name === 'system:controller:token-cleaner')!;
    expect(tokenCleaner.metadata.namespace).toBe('cluster-system');
    expect(tokenCleaner.rules).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'delete'] }, events]);
  });
});

describe('the defaults grant unprivileged identities nothing new', () => {
  const noRegistries = (): RegistrySet => {
    throw new Error('not used');
  };
  function loaded(): RbacAuthorizer {
    const a = new RbacAuthorizer(noRegistries, { apiDomain: D });
    a.index.replaceAll('clusterroles', allClusterRoles());
    a.index.replaceAll('clusterrolebindings', allClusterBindings());
    a.index.replaceAll('roles', defaultNamespacedRoles(D));
    a.index.replaceAll('rolebindings', defaultNamespacedRoleBindings(D));
    return a;
  }
  const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
  const anon: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
  const robot: UserInfo = { username: 'system:serviceaccount:default:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] };
  // A service account of the system namespace that no default binding names.
  const stranger: UserInfo = { username: 'system:serviceaccount:cluster-system:default', groups: ['system:serviceaccounts', 'system:serviceaccounts:cluster-system', 'system:authenticated'] };
  const nonResource = (rules: PolicyRule[]) => rules.filter((r) => r.nonResourceURLs?.length);

  test.each([['bob', bob], ['anonymous', anon], ['a service account', robot], ['an unbound system service account', stranger]])(
    '%s holds no resource rule but self reviews (and anonymous the cluster-info get)',
    async (_name, who) => {
      const a = loaded();
      for (const ns of ['', 'default', 'cluster-system', 'cluster-public']) {
        const { rules, incomplete } = await a.rulesFor(who, ns);
        expect(incomplete).toBe(false);
        const resourceRules = rules.filter((r) => !r.nonResourceURLs?.length);
        const allowed = resourceRules.filter((r) => !r.apiGroups?.some((g) => g === `authorization.${D}` || g === `authentication.${D}`));
        if (who === anon && ns === 'cluster-public') {
          expect(allowed).toEqual([{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'], verbs: ['get'] }]);
        } else {
          expect([ns, allowed]).toEqual([ns, []]);
        }
        for (const r of resourceRules.filter((x) => !allowed.includes(x))) expect(r.verbs).toEqual(['create']);
      }
      const urls = nonResource((await a.rulesFor(who, '')).rules).flatMap((r) => r.nonResourceURLs ?? []);
      // Service accounts alone gain upstream's OIDC discovery documents (read-only).
      const issuer = ['/.well-known/openid-configuration', '/openid/v1/jwks'];
      expect(issuer.every((u) => urls.includes(u))).toBe(who === robot || who === stranger);
      expect(urls.some((u) => u.includes('*') && !u.startsWith('/api') && !u.startsWith('/openapi') && !u.startsWith('/healthz') && !u.startsWith('/livez') && !u.startsWith('/readyz'))).toBe(false);
    },
  );

  const req = (verb: string, resource: string, namespace = '', apiGroup = ''): RequestInfo => ({
    isResourceRequest: true, path: '', verb, apiPrefix: apiGroup ? 'apis' : 'api', apiGroup, apiVersion: 'v1', namespace, resource, subresource: '', name: '', parts: [],
  });
  test.each<[string, RequestInfo]>([
    ['list secrets cluster-wide', req('list', 'secrets')],
    ['list secrets in the system namespace', req('list', 'secrets', 'cluster-system')],
    ['delete pods anywhere', req('delete', 'pods', 'default')],
    ['delete namespaces', req('delete', 'namespaces')],
    ['list nodes', req('list', 'nodes')],
    ['escalate clusterroles', req('escalate', 'clusterroles', '', G)],
    ['update the leader-election ConfigMap', req('update', 'configmaps', 'cluster-system')],
    ['watch everything', req('watch', 'pods')],
  ])('nobody unprivileged may %s', async (_name, info) => {
    const a = loaded();
    for (const who of [bob, anon, robot, stranger]) expect([who.username, (await a.authorize({ user: who, info })).decision]).toEqual([who.username, 'no-opinion']);
  });

  test('a controller\'s service account gets its role, and only through its own name', async () => {
    const a = loaded();
    const nsController: UserInfo = { username: 'system:serviceaccount:cluster-system:namespace-controller', groups: ['system:serviceaccounts', 'system:authenticated'] };
    expect((await a.authorize({ user: nsController, info: req('deletecollection', 'pods', 'default') })).decision).toBe('allow');
    expect((await a.authorize({ user: nsController, info: req('create', 'pods', 'default') })).decision).toBe('no-opinion');
    const elsewhere: UserInfo = { username: 'system:serviceaccount:default:namespace-controller', groups: ['system:serviceaccounts', 'system:authenticated'] };
    expect((await a.authorize({ user: elsewhere, info: req('deletecollection', 'pods', 'default') })).decision).toBe('no-opinion');
  });
});
