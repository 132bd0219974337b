import { checkedRequestInfo, type CheckedAttributes } from '../authorizer.js';
import type { UserInfo } from '../../authn/user.js';
import type { RegistrySet } from '../../registry/registry-set.js';
import { ruleAllows } from '../rbac/matching.js';
import { defaultClusterRoleBindings, defaultClusterRoles } from '../rbac/bootstrap/policy.js';
import { NodeAuthorizer } from './node-authorizer.js';
import { nodeRules } from './node-rules.js';
import type { PodShape } from './pod-references.js';
import { pvKubeletSecrets, type PersistentVolumeShape } from './pv-references.js';

// The Node authorizer for the storage kinds (upstream node_authorizer_test.go's PV/PVC/VA/CSINode
// cases): the graph node <- pod <- pvc <- pv <- secret and node <- volumeattachment, CSINodes by name.
const D = 'example.org';
const ST = `storage.${D}`;
const node = (name: string): UserInfo => ({ username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });
const req = (a: CheckedAttributes) => checkedRequestInfo({ apiVersion: 'v1', ...a });

const pod = (ns: string, name: string, nodeName: string, volumes: unknown[], annotations?: Record<string, string>): PodShape =>
  ({ metadata: { namespace: ns, name, ...(annotations ? { annotations } : {}) }, spec: { nodeName, containers: [], volumes } }) as PodShape;
const claimVol = (claimName: string) => ({ name: claimName, persistentVolumeClaim: { claimName } });
const pv = (name: string, claim: { namespace: string; name: string } | undefined, source: Record<string, unknown> = {}): PersistentVolumeShape =>
  ({ metadata: { name }, spec: { ...(claim ? { claimRef: claim } : {}), ...source } });
const va = (name: string, nodeName: string) => ({ metadata: { name }, spec: { nodeName, attacher: 'x', source: {} } });

function authorizer(): NodeAuthorizer {
  const a = new NodeAuthorizer(() => ({}) as RegistrySet, { apiDomain: D });
  a.graph.replacePods([
    pod('ns', 'p1', 'n1', [claimVol('c1'), { name: 'scratch', ephemeral: { volumeClaimTemplate: {} } }]),
    pod('ns', 'p2', 'n2', [claimVol('c2')]),
    pod('ns', 'mirror', 'n1', [claimVol('c-mirror')], { [`${D}/config.mirror`]: 'x' }),
    pod('ns', 'pending', '', [claimVol('c-pending')]),
  ]);
  a.graph.replacePVs([
    pv('pv1', { namespace: 'ns', name: 'c1' }, { csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { namespace: 'cred', name: 'publish' }, controllerPublishSecretRef: { namespace: 'cred', name: 'controller' } } }),
    pv('pv2', { namespace: 'ns', name: 'c2' }, { rbd: { monitors: ['m'], image: 'i', secretRef: { name: 'rbd-secret' } } }),
    pv('pv-eph', { namespace: 'ns', name: 'p1-scratch' }),
    pv('pv-mirror', { namespace: 'ns', name: 'c-mirror' }),
    pv('pv-free', undefined, { csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { namespace: 'cred', name: 'free' } } }),
    pv('pv-other-ns', { namespace: 'other', name: 'c1' }),
  ]);
  a.graph.replaceVolumeAttachments([va('va1', 'n1'), va('va2', 'n2'), va('va-none', '')]);
  return a;
}

describe('NodeAuthorizer: volumes, attachments and CSINodes', () => {
  const a = authorizer();
  test.each<[string, UserInfo, CheckedAttributes, 'allow' | 'no-opinion']>([
    // Claims: get of one used by a bound pod; its status update for volume expansion.
    ['claim of a bound pod', node('n1'), { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'ns', name: 'c1' }, 'allow'],
    ['generated claim of an ephemeral volume', node('n1'), { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'ns', name: 'p1-scratch' }, 'allow'],
    ['claim of another node\'s pod', node('n1'), { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'ns', name: 'c2' }, 'no-opinion'],
    ['claim of a mirror pod', node('n1'), { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'ns', name: 'c-mirror' }, 'no-opinion'],
    ['claim of an unscheduled pod', node('n1'), { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'ns', name: 'c-pending' }, 'no-opinion'],
    ['same claim name, another namespace', node('n1'), { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'other', name: 'c1' }, 'no-opinion'],
    ['list claims', node('n1'), { verb: 'list', resource: 'persistentvolumeclaims', namespace: 'ns' }, 'no-opinion'],
    ['watch one claim by name', node('n1'), { verb: 'watch', resource: 'persistentvolumeclaims', namespace: 'ns', name: 'c1' }, 'no-opinion'],
    ['update a claim', node('n1'), { verb: 'update', resource: 'persistentvolumeclaims', namespace: 'ns', name: 'c1' }, 'no-opinion'],
    ['delete a claim', node('n1'), { verb: 'delete', resource: 'persistentvolumeclaims', namespace: 'ns', name: 'c1' }, 'no-opinion'],
    ['patch its claim\'s status', node('n1'), { verb: 'patch', resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'ns', name: 'c1' }, 'allow'],
    ['update its claim\'s status', node('n1'), { verb: 'update', resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'ns', name: 'c1' }, 'allow'],
    ['get its claim\'s status (upstream: update/patch only)', node('n1'), { verb: 'get', resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'ns', name: 'c1' }, 'no-opinion'],
    ['patch another node\'s claim status', node('n1'), { verb: 'patch', resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'ns', name: 'c2' }, 'no-opinion'],
    // PVs: get of one whose claimRef names a claim a bound pod uses.
    ['PV bound to its claim', node('n1'), { verb: 'get', resource: 'persistentvolumes', name: 'pv1' }, 'allow'],
    ['PV of an ephemeral claim', node('n1'), { verb: 'get', resource: 'persistentvolumes', name: 'pv-eph' }, 'allow'],
    ['PV whose claim another node\'s pod uses', node('n1'), { verb: 'get', resource: 'persistentvolumes', name: 'pv2' }, 'no-opinion'],
    ['that PV for its own node', node('n2'), { verb: 'get', resource: 'persistentvolumes', name: 'pv2' }, 'allow'],
    ['PV of a mirror pod\'s claim', node('n1'), { verb: 'get', resource: 'persistentvolumes', name: 'pv-mirror' }, 'no-opinion'],
    ['PV without a claim', node('n1'), { verb: 'get', resource: 'persistentvolumes', name: 'pv-free' }, 'no-opinion'],
    ['PV naming the claim in another namespace', node('n1'), { verb: 'get', resource: 'persistentvolumes', name: 'pv-other-ns' }, 'no-opinion'],
    ['unknown PV', node('n1'), { verb: 'get', resource: 'persistentvolumes', name: 'nope' }, 'no-opinion'],
    ['list PVs', node('n1'), { verb: 'list', resource: 'persistentvolumes' }, 'no-opinion'],
    ['update a PV', node('n1'), { verb: 'update', resource: 'persistentvolumes', name: 'pv1' }, 'no-opinion'],
    ['PV status', node('n1'), { verb: 'get', resource: 'persistentvolumes', subresource: 'status', name: 'pv1' }, 'no-opinion'],
    // Secrets through PVs: only those the node agent mounts with.
    ['CSI node-publish secret of its PV', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'cred', name: 'publish' }, 'allow'],
    ['CSI controller secret of its PV', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'cred', name: 'controller' }, 'no-opinion'],
    ['secret of another node\'s PV', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'rbd-secret' }, 'no-opinion'],
    ['rbd secret (claim namespace) for its node', node('n2'), { verb: 'get', resource: 'secrets', namespace: 'ns', name: 'rbd-secret' }, 'allow'],
    ['secret of an unclaimed PV', node('n1'), { verb: 'get', resource: 'secrets', namespace: 'cred', name: 'free' }, 'no-opinion'],
    // VolumeAttachments: get of one attached to the node.
    ['its attachment', node('n1'), { verb: 'get', apiGroup: ST, resource: 'volumeattachments', name: 'va1' }, 'allow'],
    ['another node\'s attachment', node('n1'), { verb: 'get', apiGroup: ST, resource: 'volumeattachments', name: 'va2' }, 'no-opinion'],
    ['attachment without a node', node('n1'), { verb: 'get', apiGroup: ST, resource: 'volumeattachments', name: 'va-none' }, 'no-opinion'],
    ['list attachments', node('n1'), { verb: 'list', apiGroup: ST, resource: 'volumeattachments' }, 'no-opinion'],
    ['update its attachment', node('n1'), { verb: 'update', apiGroup: ST, resource: 'volumeattachments', name: 'va1' }, 'no-opinion'],
    ['its attachment\'s status', node('n1'), { verb: 'patch', apiGroup: ST, resource: 'volumeattachments', subresource: 'status', name: 'va1' }, 'no-opinion'],
    ['create an attachment', node('n1'), { verb: 'create', apiGroup: ST, resource: 'volumeattachments' }, 'no-opinion'],
    ['create a PV', node('n1'), { verb: 'create', resource: 'persistentvolumes' }, 'no-opinion'],
    ['create a claim', node('n1'), { verb: 'create', resource: 'persistentvolumeclaims', namespace: 'ns' }, 'no-opinion'],
    ['deletecollection of PVs', node('n1'), { verb: 'deletecollection', resource: 'persistentvolumes' }, 'no-opinion'],
    ['a PV asked for under a namespace', node('n1'), { verb: 'get', resource: 'persistentvolumes', namespace: 'ns', name: 'pv1' }, 'no-opinion'],
    ['removed version, same group: another node\'s attachment', node('n1'), { apiVersion: 'v1beta1', verb: 'get', apiGroup: ST, resource: 'volumeattachments', name: 'va2' }, 'no-opinion'],
    // CSINodes: the node's own, by name (create: NodeRestriction reads the body).
    ['get own CSINode', node('n1'), { verb: 'get', apiGroup: ST, resource: 'csinodes', name: 'n1' }, 'allow'],
    ['patch own CSINode', node('n1'), { verb: 'patch', apiGroup: ST, resource: 'csinodes', name: 'n1' }, 'allow'],
    ['delete own CSINode', node('n1'), { verb: 'delete', apiGroup: ST, resource: 'csinodes', name: 'n1' }, 'allow'],
    ['create a CSINode', node('n1'), { verb: 'create', apiGroup: ST, resource: 'csinodes' }, 'allow'],
    ['get another node\'s CSINode', node('n1'), { verb: 'get', apiGroup: ST, resource: 'csinodes', name: 'n2' }, 'no-opinion'],
    ['update another node\'s CSINode', node('n1'), { verb: 'update', apiGroup: ST, resource: 'csinodes', name: 'n2' }, 'no-opinion'],
    ['list CSINodes', node('n1'), { verb: 'list', apiGroup: ST, resource: 'csinodes' }, 'no-opinion'],
    ['watch own CSINode', node('n1'), { verb: 'watch', apiGroup: ST, resource: 'csinodes', name: 'n1' }, 'no-opinion'],
    ['deletecollection of CSINodes', node('n1'), { verb: 'deletecollection', apiGroup: ST, resource: 'csinodes' }, 'no-opinion'],
    ['own CSINode, name differs in case', node('n1'), { verb: 'get', apiGroup: ST, resource: 'csinodes', name: 'N1' }, 'no-opinion'],
    ['own CSINode name with a suffix', node('n1'), { verb: 'get', apiGroup: ST, resource: 'csinodes', name: 'n1 ' }, 'no-opinion'],
    // Read-only kinds every node follows.
    ['list CSIDrivers', node('n1'), { verb: 'list', apiGroup: ST, resource: 'csidrivers' }, 'allow'],
    ['watch CSIDrivers', node('n1'), { verb: 'watch', apiGroup: ST, resource: 'csidrivers' }, 'allow'],
    ['create a CSIDriver', node('n1'), { verb: 'create', apiGroup: ST, resource: 'csidrivers' }, 'no-opinion'],
    ['get a RuntimeClass', node('n1'), { verb: 'get', apiGroup: `node.${D}`, resource: 'runtimeclasses', name: 'rc' }, 'allow'],
    ['delete a RuntimeClass', node('n1'), { verb: 'delete', apiGroup: `node.${D}`, resource: 'runtimeclasses', name: 'rc' }, 'no-opinion'],
    ['storage classes (not a node rule)', node('n1'), { verb: 'list', apiGroup: ST, resource: 'storageclasses' }, 'no-opinion'],
    ['evict a pod (NodeRestriction narrows it)', node('n1'), { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: 'ns', name: 'p1' }, 'allow'],
    // Forged and odd identities.
    ['forged: name without the nodes group', { username: 'system:node:n1', groups: ['system:authenticated'] }, { verb: 'get', apiGroup: ST, resource: 'volumeattachments', name: 'va1' }, 'no-opinion'],
    ['forged: group without the username prefix', { username: 'n1', groups: ['system:nodes'] }, { verb: 'get', apiGroup: ST, resource: 'csinodes', name: 'n1' }, 'no-opinion'],
    ['forged: empty node name and an empty-named CSINode', { username: 'system:node:', groups: ['system:nodes'] }, { verb: 'get', apiGroup: ST, resource: 'csinodes', name: '' }, 'no-opinion'],
    ['odd name: a node called "n1/../n2"', node('n1/../n2'), { verb: 'get', apiGroup: ST, resource: 'volumeattachments', name: 'va2' }, 'no-opinion'],
    ['odd name: a node called "n1:x"', node('n1:x'), { verb: 'get', resource: 'persistentvolumes', name: 'pv1' }, 'no-opinion'],
    ['service account named like a node', { username: 'system:serviceaccount:ns:n1', groups: ['system:serviceaccounts'] }, { verb: 'get', resource: 'persistentvolumes', name: 'pv1' }, 'no-opinion'],
  ])('%s', async (_n, user, attrs, decision) => {
    expect((await a.authorize({ user, info: req(attrs) })).decision).toBe(decision);
  });

  test('reasons follow upstream', async () => {
    const why = async (attrs: CheckedAttributes) => (await a.authorize({ user: node('n1'), info: req(attrs) })).reason;
    expect(await why({ verb: 'get', apiGroup: ST, resource: 'csinodes', name: 'n2' })).toBe('can only access CSINode with the same name as the requesting node');
    expect(await why({ verb: 'list', resource: 'persistentvolumes' })).toBe('can only get individual resources of this type');
    expect(await why({ verb: 'get', resource: 'persistentvolumes', name: 'pv2' })).toBe("no relationship found between node 'n1' and this object");
    expect(await why({ verb: 'get', resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'ns', name: 'c1' })).toBe('can only get/update/patch this type');
  });

  test('the graph follows changes: pod deleted or rebound, PV rebound, attachment moved', async () => {
    const b = authorizer();
    const can = async (n: string, attrs: CheckedAttributes) => (await b.authorize({ user: node(n), info: req(attrs) })).decision === 'allow';
    const getPv = { verb: 'get', resource: 'persistentvolumes', name: 'pv1' };
    const getSecret = { verb: 'get', resource: 'secrets', namespace: 'cred', name: 'publish' };
    expect(await can('n1', getPv)).toBe(true);
    // The pod goes: its claim, the claim's PV and the PV's secret go with it.
    b.graph.removePod(pod('ns', 'p1', 'n1', []));
    expect(await can('n1', getPv)).toBe(false);
    expect(await can('n1', getSecret)).toBe(false);
    expect(await can('n1', { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'ns', name: 'c1' })).toBe(false);
    // The same pod name comes back bound to n2: n2 reaches them, n1 does not.
    b.graph.upsertPod(pod('ns', 'p1', 'n2', [claimVol('c1')]));
    expect(await can('n2', getPv)).toBe(true);
    expect(await can('n2', getSecret)).toBe(true);
    expect(await can('n1', getPv)).toBe(false);
    // The PV is rebound to another claim: the old claim's node loses it.
    b.graph.upsertPV(pv('pv1', { namespace: 'ns', name: 'c-elsewhere' }, { csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { namespace: 'cred', name: 'publish' } } }));
    expect(await can('n2', getPv)).toBe(false);
    expect(await can('n2', getSecret)).toBe(false);
    // A PV deleted is unreachable; its secret too.
    b.graph.upsertPV(pv('pv1', { namespace: 'ns', name: 'c1' }, { csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { namespace: 'cred', name: 'publish' } } }));
    expect(await can('n2', getSecret)).toBe(true);
    b.graph.removePV(pv('pv1', undefined));
    expect(await can('n2', getPv)).toBe(false);
    expect(await can('n2', getSecret)).toBe(false);
    // An attachment moved to another node, then deleted.
    const getVa = { verb: 'get', apiGroup: ST, resource: 'volumeattachments', name: 'va1' };
    b.graph.upsertVolumeAttachment(va('va1', 'n2'));
    expect(await can('n1', getVa)).toBe(false);
    expect(await can('n2', getVa)).toBe(true);
    b.graph.removeVolumeAttachment(va('va1', 'n2'));
    expect(await can('n2', getVa)).toBe(false);
    // A relist replaces only its own kind's part of the graph.
    b.graph.replaceVolumeAttachments([va('va9', 'n1')]);
    expect(await can('n2', { verb: 'get', resource: 'persistentvolumes', name: 'pv2' })).toBe(true);
    expect(await can('n1', { ...getVa, name: 'va9' })).toBe(true);
  });

  test('a secret shared by many PVs: found from either side, and lost with the last path', async () => {
    const b = new NodeAuthorizer(() => ({}) as RegistrySet, { apiDomain: D });
    const shared = { csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { namespace: 'cred', name: 'shared' } } };
    b.graph.replacePVs(Array.from({ length: 50 }, (_, i) => pv(`pv${i}`, { namespace: 'ns', name: `c${i}` }, shared)));
    // n1 uses one claim (walked from its claims); n2 uses 60, more than the 50 PVs (walked from the PVs), one bound.
    b.graph.upsertPod(pod('ns', 'a', 'n1', [claimVol('c7')]));
    b.graph.upsertPod(pod('ns', 'b', 'n2', [...Array.from({ length: 59 }, (_, i) => claimVol(`other${i}`)), claimVol('c49')]));
    b.graph.upsertPod(pod('ns', 'c', 'n3', Array.from({ length: 60 }, (_, i) => claimVol(`other${i}`))));
    const has = (n: string) => b.graph.hasPath(n, 'secret', 'cred', 'shared');
    expect([has('n1'), has('n2'), has('n3'), has('n4')]).toEqual([true, true, false, false]);
    b.graph.removePV(pv('pv49', undefined));
    b.graph.removePod(pod('ns', 'a', 'n1', []));
    expect([has('n1'), has('n2')]).toEqual([false, false]);
    // Rebinding the PV brings it back for n2, through the other side of the index.
    b.graph.upsertPV(pv('pv49', { namespace: 'ns', name: 'other3' }, shared));
    expect(has('n2')).toBe(true);
    b.graph.replacePods([]);
    expect(has('n2')).toBe(false);
  });

  test('two pods on a node share a claim: removing one keeps the PV reachable', async () => {
    const b = authorizer();
    b.graph.upsertPod(pod('ns', 'p3', 'n1', [claimVol('c1')]));
    b.graph.removePod(pod('ns', 'p1', 'n1', []));
    expect((await b.authorize({ user: node('n1'), info: req({ verb: 'get', resource: 'persistentvolumes', name: 'pv1' }) })).decision).toBe('allow');
  });

  test('names with separator-like characters do not alias other objects', () => {
    const b = new NodeAuthorizer(() => ({}) as RegistrySet, { apiDomain: D });
    b.graph.upsertPod(pod('ns', 'p', 'n1', [claimVol('c')]));
    expect(b.graph.hasPath('n1', 'pvc', 'ns', 'c')).toBe(true);
    expect(b.graph.hasPath('n1', 'pvc', 'ns","c', '')).toBe(false);
    expect(b.graph.hasPath('n1', 'pvc', 'ns\u0000c', '')).toBe(false);
    expect(b.graph.hasPath('n1', 'pvc', '', 'ns/c')).toBe(false);
    expect(b.graph.hasPath('', 'pvc', 'ns', 'c')).toBe(false);
  });

  test('rulesFor lists its own CSINode, never another, and stays incomplete', async () => {
    const r = await a.rulesFor(node('n1'), 'ns');
    expect(r.incomplete).toBe(true);
    expect(r.rules).toContainEqual({ verbs: ['get', 'update', 'patch', 'delete'], apiGroups: [ST], resources: ['csinodes'], resourceNames: ['n1'] });
    expect(r.rules.some((x) => x.resources?.some((res) => ['persistentvolumes', 'persistentvolumeclaims', 'volumeattachments'].includes(res)))).toBe(false);
    expect(r.rules.some((x) => x.resources?.includes('csinodes') && !x.resourceNames && x.verbs.some((v) => v !== 'create'))).toBe(false);
  });
});

describe('system:node ClusterRole', () => {
  // Upstream v1.24 NodeRules, as (verb, group, resource) triples with groups under the API domain.
  const upstream: Array<[string[], string, string[]]> = [
    [['create'], `authentication.${D}`, ['tokenreviews']],
    [['create'], `authorization.${D}`, ['subjectaccessreviews', 'localsubjectaccessreviews']],
    [['get', 'list', 'watch'], '', ['services']],
    [['create', 'get', 'list', 'watch'], '', ['nodes']],
    [['update', 'patch'], '', ['nodes/status', 'nodes']],
    [['create', 'update', 'patch'], '', ['events']],
    [['get', 'list', 'watch'], '', ['pods']],
    [['create', 'delete'], '', ['pods']],
    [['update', 'patch'], '', ['pods/status']],
    [['create'], '', ['pods/eviction']],
    [['get', 'list', 'watch'], '', ['secrets', 'configmaps']],
    [['get'], '', ['persistentvolumeclaims', 'persistentvolumes']],
    [['get'], '', ['endpoints']],
    [['create', 'get', 'list', 'watch'], `certificates.${D}`, ['certificatesigningrequests']],
    [['get', 'create', 'update', 'patch', 'delete'], `coordination.${D}`, ['leases']],
    [['get'], ST, ['volumeattachments']],
    [['create'], '', ['serviceaccounts/token']],
    [['get', 'update', 'patch'], '', ['persistentvolumeclaims/status']],
    [['get', 'watch', 'list'], ST, ['csidrivers']],
    [['get', 'create', 'update', 'patch', 'delete'], ST, ['csinodes']],
    [['get', 'list', 'watch'], `node.${D}`, ['runtimeclasses']],
  ];
  const expand = (rules: Array<{ verbs: string[]; apiGroups?: string[]; resources?: string[] }>) =>
    new Set(rules.flatMap((r) => r.verbs.flatMap((v) => (r.apiGroups ?? []).flatMap((g) => (r.resources ?? []).map((res) => `${v} ${g}/${res}`)))));

  test('holds exactly upstream\'s node rules', () => {
    const role = defaultClusterRoles(D).find((r) => r.metadata.name === 'system:node')!;
    const want = expand(upstream.map(([verbs, g, resources]) => ({ verbs, apiGroups: [g], resources })));
    expect([...expand(role.rules ?? [])].sort()).toEqual([...want].sort());
  });

  test('the node-side roles are upstream\'s; kube-proxy alone is bound, system:node to nobody', () => {
    const roles = defaultClusterRoles(D);
    const rulesOf = (name: string) => [...expand(roles.find((r) => r.metadata.name === name)!.rules ?? [])].sort();
    expect(rulesOf('system:node-proxier')).toEqual([...expand([
      { verbs: ['list', 'watch'], apiGroups: [''], resources: ['services', 'endpoints'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['nodes'] },
      { verbs: ['create', 'update', 'patch'], apiGroups: ['', `events.${D}`], resources: ['events'] },
      { verbs: ['list', 'watch'], apiGroups: [`discovery.${D}`], resources: ['endpointslices'] },
    ])].sort());
    expect(rulesOf('system:node-problem-detector')).toEqual([...expand([
      { verbs: ['get'], apiGroups: [''], resources: ['nodes'] },
      { verbs: ['patch'], apiGroups: [''], resources: ['nodes/status'] },
      { verbs: ['create', 'update', 'patch'], apiGroups: ['', `events.${D}`], resources: ['events'] },
    ])].sort());
    expect(rulesOf('system:kubelet-api-admin')).toContain('proxy /nodes');
    const bindings = defaultClusterRoleBindings(D);
    expect(bindings.find((b) => b.metadata.name === 'system:node-proxier')?.subjects).toEqual([{ kind: 'User', apiGroup: `rbac.authorization.${D}`, name: 'system:kube-proxy' }]);
    expect(bindings.find((b) => b.metadata.name === 'system:node')?.subjects).toBeUndefined();
    expect(bindings.some((b) => ['system:node-problem-detector', 'system:kubelet-api-admin'].includes(b.metadata.name ?? ''))).toBe(false);
  });

  test('every static rule the authorizer applies is one of them, and none names a graph-scoped kind', () => {
    const { unscoped, scoped } = nodeRules(D);
    const scopedKinds = new Set(scoped.flatMap((r) => r.resources ?? []).map((r) => r.split('/')[0]));
    for (const r of unscoped) for (const res of r.resources ?? []) expect(scopedKinds.has(res.split('/')[0]!) && res !== 'pods/eviction').toBe(false);
    // The static rules never reach a PV, claim, attachment or CSINode by themselves.
    for (const [resource, apiGroup] of [['persistentvolumes', ''], ['persistentvolumeclaims', ''], ['volumeattachments', ST], ['csinodes', ST]] as const) {
      expect(unscoped.some((r) => ruleAllows(req({ verb: 'get', apiGroup, resource, name: 'x' }), r))).toBe(false);
    }
  });
});

describe('pvKubeletSecrets', () => {
  test.each<[string, Record<string, unknown>, Array<{ namespace: string; name: string }>]>([
    ['azureFile without a namespace: the claim\'s', { azureFile: { secretName: 'az', shareName: 's' } }, [{ namespace: 'claim-ns', name: 'az' }]],
    ['azureFile with its namespace', { azureFile: { secretName: 'az', secretNamespace: 'x', shareName: 's' } }, [{ namespace: 'x', name: 'az' }]],
    ['cephfs without a namespace', { cephfs: { monitors: ['m'], secretRef: { name: 'ceph' } } }, [{ namespace: 'claim-ns', name: 'ceph' }]],
    ['cinder keeps its (empty) namespace', { cinder: { volumeID: 'v', secretRef: { name: 'cin' } } }, [{ namespace: '', name: 'cin' }]],
    ['flexVolume with a namespace', { flexVolume: { driver: 'd', secretRef: { name: 'flex', namespace: 'y' } } }, [{ namespace: 'y', name: 'flex' }]],
    ['iscsi', { iscsi: { targetPortal: 't', iqn: 'i', lun: 0, secretRef: { name: 'chap' } } }, [{ namespace: 'claim-ns', name: 'chap' }]],
    ['storageos', { storageos: { secretRef: { name: 'sos', namespace: 'z' } } }, [{ namespace: 'z', name: 'sos' }]],
    ['csi: node secrets only', { csi: { driver: 'd', volumeHandle: 'h', controllerPublishSecretRef: { name: 'c', namespace: 'n' }, controllerExpandSecretRef: { name: 'e', namespace: 'n' }, nodePublishSecretRef: { name: 'p', namespace: 'n' }, nodeStageSecretRef: { name: 's', namespace: 'n' } } }, [{ namespace: 'n', name: 'p' }, { namespace: 'n', name: 's' }]],
    ['empty names skipped', { rbd: { monitors: ['m'], image: 'i', secretRef: { name: '' } } }, []],
    ['hostPath has none', { hostPath: { path: '/x' } }, []],
  ])('%s', (_n, source, want) => {
    expect(pvKubeletSecrets({ metadata: { name: 'pv' }, spec: { claimRef: { namespace: 'claim-ns', name: 'c' }, ...source } })).toEqual(want);
  });
});
