import { checkedRequestInfo, type CheckedAttributes } from '../authorizer.js';
import type { UserInfo } from '../../authn/user.js';
import type { RegistrySet } from '../../registry/registry-set.js';
import { NodeAuthorizer } from './node-authorizer.js';
import { nodeIdentity } from './node-identity.js';
import type { PodShape } from './pod-references.js';

const D = 'example.org';
const node = (name: string): UserInfo => ({ username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });

function pod(ns: string, name: string, nodeName: string, extra: Partial<NonNullable<PodShape['spec']>> = {}, annotations?: Record<string, string>): PodShape {
  return { metadata: { namespace: ns, name, ...(annotations ? { annotations } : {}) }, spec: { nodeName, serviceAccountName: 'default', containers: [], ...extra } };
}

function authorizerWithPods(): NodeAuthorizer {
  const a = new NodeAuthorizer(() => ({}) as RegistrySet, { apiDomain: D });
  a.graph.replacePods([
    pod('ns', 'p1', 'n1', {
      serviceAccountName: 'sa1',
      imagePullSecrets: [{ name: 'pull' }],
      containers: [{ env: [{ valueFrom: { secretKeyRef: { name: 'env-secret' } } }], envFrom: [{ configMapRef: { name: 'env-cm' } }] }],
      volumes: [{ name: 'v', secret: { secretName: 'vol-secret' } }, { name: 'p', projected: { sources: [{ configMap: { name: 'proj-cm' } }] } }],
    }),
    pod('ns', 'p2', 'n2', { volumes: [{ name: 'v', secret: { secretName: 'other-secret' } }] }),
    pod('ns', 'unscheduled', '', { volumes: [{ name: 'v', secret: { secretName: 'pending-secret' } }] }),
    pod('ns', 'mirror', 'n1', { volumes: [{ name: 'v', secret: { secretName: 'mirror-secret' } }] }, { [`${D}/config.mirror`]: 'x' }),
  ]);
  return a;
}

const req = (a: CheckedAttributes) => checkedRequestInfo({ apiVersion: 'v1', ...a });
const coord = `coordination.${D}`;

describe('nodeIdentity', () => {
  test.each<[string, UserInfo, boolean, string]>([
    ['node', node('n1'), true, 'n1'],
    ['username without the group', { username: 'system:node:n1', groups: ['system:authenticated'] }, false, ''],
    ['group without the username prefix', { username: 'n1', groups: ['system:nodes'] }, false, ''],
    ['prefix only differs in case', { username: 'System:Node:n1', groups: ['system:nodes'] }, false, ''],
    ['group spelled differently', { username: 'system:node:n1', groups: ['system:node'] }, false, ''],
    ['empty node name', { username: 'system:node:', groups: ['system:nodes'] }, true, ''],
  ])('%s', (_n, user, isNode, nodeName) => {
    expect(nodeIdentity(user)).toEqual({ isNode, nodeName });
  });
});

describe('NodeAuthorizer decisions', () => {
  const a = authorizerWithPods();
  test.each<[string, UserInfo, CheckedAttributes, 'allow' | 'no-opinion']>([
    // Secrets and configmaps: only those of pods bound to the node, read verbs, named.
    ['secret of a bound pod (volume)', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'vol-secret' }, 'allow'],
    ['secret of a bound pod (env)', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'env-secret' }, 'allow'],
    ['image pull secret', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'pull' }, 'allow'],
    ['watch of one referenced secret', node('n1'), { verb: 'watch', resource: 'secrets', namespace: 'ns', name: 'vol-secret' }, 'allow'],
    ['list of every secret', node('n1'), { verb: 'list', resource: 'secrets', namespace: 'ns' }, 'no-opinion'],
    ['secret of another node\'s pod', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'other-secret' }, 'no-opinion'],
    ['the same secret for its node', node('n2'), { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'other-secret' }, 'allow'],
    ['secret of an unscheduled pod', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'pending-secret' }, 'no-opinion'],
    ['secret named by a mirror pod', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'mirror-secret' }, 'no-opinion'],
    ['same name in another namespace', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'other', name: 'vol-secret' }, 'no-opinion'],
    ['update of a referenced secret', node('n1'), { verb: 'update', resource: 'secrets', namespace: 'ns', name: 'vol-secret' }, 'no-opinion'],
    ['delete of a referenced secret', node('n1'), { verb: 'delete', resource: 'secrets', namespace: 'ns', name: 'vol-secret' }, 'no-opinion'],
    ['configmap (envFrom)', node('n1'), { verb: 'get', resource: 'configmaps', namespace: 'ns', name: 'env-cm' }, 'allow'],
    ['configmap (projected)', node('n1'), { verb: 'get', resource: 'configmaps', namespace: 'ns', name: 'proj-cm' }, 'allow'],
    ['unreferenced configmap', node('n1'), { verb: 'get', resource: 'configmaps', namespace: 'ns', name: 'cluster-info' }, 'no-opinion'],
    ['forged: empty node name', { username: 'system:node:', groups: ['system:nodes'] }, { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'vol-secret' }, 'no-opinion'],
    ['forged: name without group', { username: 'system:node:n1', groups: [] }, { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'vol-secret' }, 'no-opinion'],
    ['forged: group without prefix', { username: 'n1', groups: ['system:nodes'] }, { verb: 'get', resource: 'nodes', name: 'n1' }, 'no-opinion'],
    ['non-node user', { username: 'alice', groups: [] }, { verb: 'get', resource: 'pods', namespace: 'ns', name: 'p1' }, 'no-opinion'],
    // Service account tokens: only for accounts of pods bound to the node.
    ['token for a bound pod\'s account', node('n1'), { verb: 'create', resource: 'serviceaccounts', subresource: 'token', namespace: 'ns', name: 'sa1' }, 'allow'],
    ['token for another account', node('n1'), { verb: 'create', resource: 'serviceaccounts', subresource: 'token', namespace: 'ns', name: 'admin' }, 'no-opinion'],
    ['get of a bound pod\'s account', node('n1'), { verb: 'get', resource: 'serviceaccounts', namespace: 'ns', name: 'sa1' }, 'no-opinion'],
    // Leases: its own, in the node-lease namespace.
    ['own lease', node('n1'), { verb: 'update', apiGroup: coord, resource: 'leases', namespace: 'cluster-node-lease', name: 'n1' }, 'allow'],
    ['create a lease (name checked by admission)', node('n1'), { verb: 'create', apiGroup: coord, resource: 'leases', namespace: 'cluster-node-lease' }, 'allow'],
    ['another node\'s lease', node('n1'), { verb: 'update', apiGroup: coord, resource: 'leases', namespace: 'cluster-node-lease', name: 'n2' }, 'no-opinion'],
    ['own name in another namespace', node('n1'), { verb: 'get', apiGroup: coord, resource: 'leases', namespace: 'cluster-system', name: 'n1' }, 'no-opinion'],
    ['list leases', node('n1'), { verb: 'list', apiGroup: coord, resource: 'leases', namespace: 'cluster-node-lease' }, 'no-opinion'],
    // Static node rules.
    ['read nodes', node('n1'), { verb: 'list', resource: 'nodes' }, 'allow'],
    ['update a node (NodeRestriction narrows it)', node('n1'), { verb: 'patch', resource: 'nodes', name: 'n2' }, 'allow'],
    ['node status', node('n1'), { verb: 'update', resource: 'nodes', subresource: 'status', name: 'n1' }, 'allow'],
    ['delete a node', node('n1'), { verb: 'delete', resource: 'nodes', name: 'n1' }, 'no-opinion'],
    ['read pods', node('n1'), { verb: 'watch', resource: 'pods' }, 'allow'],
    ['create (mirror) pods', node('n1'), { verb: 'create', resource: 'pods', namespace: 'ns' }, 'allow'],
    ['update a pod spec', node('n1'), { verb: 'update', resource: 'pods', namespace: 'ns', name: 'p1' }, 'no-opinion'],
    ['pod status', node('n1'), { verb: 'patch', resource: 'pods', subresource: 'status', namespace: 'ns', name: 'p1' }, 'allow'],
    ['events', node('n1'), { verb: 'create', resource: 'events', namespace: 'ns' }, 'allow'],
    ['events.<domain> events (upstream grants core events only)', node('n1'), { verb: 'create', apiGroup: `events.${D}`, resource: 'events', namespace: 'ns' }, 'no-opinion'],
    ['csr create', node('n1'), { verb: 'create', apiGroup: `certificates.${D}`, resource: 'certificatesigningrequests' }, 'allow'],
    ['csr approve', node('n1'), { verb: 'update', apiGroup: `certificates.${D}`, resource: 'certificatesigningrequests', subresource: 'approval', name: 'x' }, 'no-opinion'],
    ['tokenreviews', node('n1'), { verb: 'create', apiGroup: `authentication.${D}`, resource: 'tokenreviews' }, 'allow'],
    ['clusterroles', node('n1'), { verb: 'list', apiGroup: `rbac.authorization.${D}`, resource: 'clusterroles' }, 'no-opinion'],
    ['namespaces', node('n1'), { verb: 'create', resource: 'namespaces' }, 'no-opinion'],
    ['non-resource path', node('n1'), { verb: 'get', path: '/metrics' }, 'no-opinion'],
  ])('%s', async (_n, user, attrs, decision) => {
    expect((await a.authorize({ user, info: req(attrs) })).decision).toBe(decision);
  });

  test('reasons name the missing relationship, as upstream', async () => {
    const r = await a.authorize({ user: node('n1'), info: req({ verb: 'get', resource: 'secrets', namespace: 'ns', name: 'other-secret' }) });
    expect(r.reason).toBe("no relationship found between node 'n1' and this object");
    expect((await a.authorize({ user: { username: 'system:node:', groups: ['system:nodes'] }, info: req({ verb: 'get', resource: 'nodes' }) })).reason).toBe('unknown node for user "system:node:"');
  });

  test('the graph follows pod changes: rebinding and deletion drop access', async () => {
    const b = authorizerWithPods();
    const get = (n: string, name: string) => b.authorize({ user: node(n), info: req({ verb: 'get', resource: 'secrets', namespace: 'ns', name }) });
    b.graph.upsertPod(pod('ns', 'p2', 'n1', { volumes: [{ name: 'v', secret: { secretName: 'other-secret' } }] }));
    expect((await get('n1', 'other-secret')).decision).toBe('allow');
    expect((await get('n2', 'other-secret')).decision).toBe('no-opinion');
    // Two pods on n1 reference vol-secret: removing one keeps it reachable.
    b.graph.upsertPod(pod('ns', 'p3', 'n1', { volumes: [{ name: 'v', secret: { secretName: 'vol-secret' } }] }));
    b.graph.removePod(pod('ns', 'p1', 'n1'));
    expect((await get('n1', 'vol-secret')).decision).toBe('allow');
    expect((await get('n1', 'env-secret')).decision).toBe('no-opinion');
    b.graph.removePod(pod('ns', 'p3', 'n1'));
    expect((await get('n1', 'vol-secret')).decision).toBe('no-opinion');
    // An ephemeral container added later brings its references.
    b.graph.upsertPod(pod('ns', 'p2', 'n1', { ephemeralContainers: [{ envFrom: [{ secretRef: { name: 'debug' } }] }] }));
    expect((await get('n1', 'debug')).decision).toBe('allow');
    expect((await get('n1', 'other-secret')).decision).toBe('no-opinion');
  });

  test('rulesFor: static node rules, never a wildcard, always incomplete; nothing for others', async () => {
    const r = await a.rulesFor(node('n1'), 'cluster-node-lease');
    expect(r.incomplete).toBe(true);
    expect(JSON.stringify(r.rules)).not.toContain('"*"');
    expect(r.rules).toContainEqual({ verbs: ['get', 'update', 'patch', 'delete'], apiGroups: [coord], resources: ['leases'], resourceNames: ['n1'] });
    expect(r.rules.some((x) => x.resources?.includes('secrets'))).toBe(false);
    expect(await a.rulesFor({ username: 'alice', groups: ['system:nodes'] }, 'ns')).toEqual({ rules: [], incomplete: false });
  });
});
