import { newNotFound, type KubeObject } from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { AdmissionAttributes } from './admission.js';
import { nodeRestriction } from './node-restriction.js';

const D = 'example.org';
const info = (group: string, resource: string, namespaced: boolean): ResourceInfo => ({
  group, version: 'v1', resource, singularName: resource, kind: 'X', listKind: 'XList', namespaced, verbs: [], definitionName: 'X',
});
const PODS = info('', 'pods', true);
const NODES = info('', 'nodes', false);
const SAS = info('', 'serviceaccounts', true);
const LEASES = info(`coordination.${D}`, 'leases', true);
const SECRETS = info('', 'secrets', true);
const PVCS = info('', 'persistentvolumeclaims', true);
const CSINODES = info(`storage.${D}`, 'csinodes', false);
const claim = (status: Record<string, unknown> = {}, meta: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({
  metadata: { name: 'c1', namespace: 'ns', resourceVersion: '5', managedFields: [{ manager: 'a' }], ...meta },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: 'pv1', ...spec },
  status: { phase: 'Bound', capacity: { storage: '1Gi' }, ...status },
}) as KubeObject;

const n1: UserInfo = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const objects: Record<string, KubeObject> = {
  'nodes//n1': { metadata: { name: 'n1', uid: 'uid-n1' } },
  'pods/ns/mine': { metadata: { name: 'mine', namespace: 'ns', uid: 'uid-mine' }, spec: { nodeName: 'n1' } } as KubeObject,
  'pods/ns/theirs': { metadata: { name: 'theirs', namespace: 'ns', uid: 'uid-theirs' }, spec: { nodeName: 'n2' } } as KubeObject,
};
const getter = (res: string) => async (ns: string, name: string) => {
  const o = objects[`${res}/${ns}/${name}`];
  if (!o) throw newNotFound({ group: '', resource: res }, name);
  return o;
};
const plugin = nodeRestriction(D, { getNode: getter('nodes'), getPod: getter('pods') });

type A = Partial<AdmissionAttributes> & Pick<AdmissionAttributes, 'operation' | 'resource'>;
const run = async (a: A): Promise<number | undefined> => {
  try {
    await plugin.validate({ subresource: '', namespace: '', name: '', dryRun: false, user: n1, ...a });
    return undefined;
  } catch (e) {
    return (e as { status: { code: number } }).status.code;
  }
};

const mirror = (extra: Record<string, unknown> = {}, owner: Record<string, unknown> = {}) => ({
  metadata: {
    name: 'static-web-n1',
    namespace: 'ns',
    annotations: { [`${D}/config.mirror`]: 'hash' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-n1', controller: true, ...owner }],
  },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }], ...extra },
}) as KubeObject;
const nodeObj = (labels: Record<string, string> = {}, spec: Record<string, unknown> = {}) => ({ metadata: { name: 'n1', labels }, spec }) as KubeObject;

describe('NodeRestriction admission', () => {
  test.each<[string, A, number | undefined]>([
    // Nodes: only its own, and not its taints or restricted labels.
    ['create own node', { operation: 'CREATE', resource: NODES, name: 'n1', object: nodeObj({ [`${D}/hostname`]: 'n1', 'topology.example.org/zone': 'z' }) }, undefined],
    ['create another node', { operation: 'CREATE', resource: NODES, name: 'n2', object: { metadata: { name: 'n2' } } }, 403],
    ['update another node', { operation: 'UPDATE', resource: NODES, name: 'n2', object: nodeObj(), oldObject: nodeObj() }, 403],
    ['update another node\'s status', { operation: 'UPDATE', resource: NODES, subresource: 'status', name: 'n2', object: nodeObj(), oldObject: nodeObj() }, 403],
    ['delete another node', { operation: 'DELETE', resource: NODES, name: 'n2' }, 403],
    ['update own status', { operation: 'UPDATE', resource: NODES, subresource: 'status', name: 'n1', object: nodeObj(), oldObject: nodeObj() }, undefined],
    ['create with a node-restriction label', { operation: 'CREATE', resource: NODES, name: 'n1', object: nodeObj({ [`node-restriction.${D}/pool`]: 'x' }) }, 403],
    ['add a node-restriction label', { operation: 'UPDATE', resource: NODES, name: 'n1', object: nodeObj({ [`a.node-restriction.${D}/x`]: 'y' }), oldObject: nodeObj() }, 403],
    ['remove a node-restriction label', { operation: 'UPDATE', resource: NODES, name: 'n1', object: nodeObj(), oldObject: nodeObj({ [`node-restriction.${D}/pool`]: 'x' }) }, 403],
    ['set a node-role label (domain, not a kubelet label)', { operation: 'UPDATE', resource: NODES, name: 'n1', object: nodeObj({ [`node-role.${D}/control-plane`]: '' }), oldObject: nodeObj() }, 403],
    ['set a kubelet-namespace label', { operation: 'UPDATE', resource: NODES, name: 'n1', object: nodeObj({ [`kubelet.${D}/x`]: 'y', [`node.${D}/y`]: 'z' }), oldObject: nodeObj() }, undefined],
    ['set a label of its own domain', { operation: 'UPDATE', resource: NODES, name: 'n1', object: nodeObj({ 'example.com/team': 'a' }), oldObject: nodeObj() }, undefined],
    ['change its taints', { operation: 'UPDATE', resource: NODES, name: 'n1', object: nodeObj({}, { taints: [] }), oldObject: nodeObj({}, { taints: [{ key: 'k', effect: 'NoSchedule' }] }) }, 403],
    ['taints the same, key order differs', { operation: 'UPDATE', resource: NODES, name: 'n1', object: nodeObj({}, { taints: [{ effect: 'NoSchedule', key: 'k' }] }), oldObject: nodeObj({}, { taints: [{ key: 'k', effect: 'NoSchedule' }] }) }, undefined],
    ['create with a configSource', { operation: 'CREATE', resource: NODES, name: 'n1', object: nodeObj({}, { configSource: { configMap: {} } }) }, 403],
    // Pods: mirror pods bound to itself, owned by its Node, referencing nothing.
    ['create a mirror pod', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: mirror() }, undefined],
    ['create a regular pod', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: { metadata: { name: 'p' }, spec: { nodeName: 'n1' } } as KubeObject }, 403],
    ['mirror pod bound to another node', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: mirror({ nodeName: 'n2' }) }, 403],
    ['mirror pod without owner', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: { ...mirror(), metadata: { ...mirror().metadata, ownerReferences: [] } } as KubeObject }, 403],
    ['mirror pod owned by another node', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: mirror({}, { name: 'n2' }) }, 403],
    ['mirror pod with a stale node uid', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: mirror({}, { uid: 'old' }) }, 403],
    ['mirror pod with blockOwnerDeletion', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: mirror({}, { blockOwnerDeletion: true }) }, 403],
    ['mirror pod owner not controller', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: mirror({}, { controller: false }) }, 403],
    ['mirror pod with a secret volume', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: mirror({ volumes: [{ name: 'v', secret: { secretName: 's' } }] }) }, 403],
    ['mirror pod with a configmap env', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: mirror({ containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'cm' } }] }] }) }, 403],
    ['mirror pod with a service account', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: mirror({ serviceAccountName: 'default' }) }, 403],
    ['mirror pod with a claim', { operation: 'CREATE', resource: PODS, namespace: 'ns', object: mirror({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] }) }, 403],
    ['delete own pod', { operation: 'DELETE', resource: PODS, namespace: 'ns', name: 'mine', oldObject: objects['pods/ns/mine'] }, undefined],
    ['delete another node\'s pod', { operation: 'DELETE', resource: PODS, namespace: 'ns', name: 'theirs', oldObject: objects['pods/ns/theirs'] }, 403],
    ['update a pod', { operation: 'UPDATE', resource: PODS, namespace: 'ns', name: 'mine', object: objects['pods/ns/mine'], oldObject: objects['pods/ns/mine'] }, 403],
    ['own pod status', { operation: 'UPDATE', resource: PODS, subresource: 'status', namespace: 'ns', name: 'mine', object: objects['pods/ns/mine'], oldObject: objects['pods/ns/mine'] }, undefined],
    ['another node\'s pod status', { operation: 'UPDATE', resource: PODS, subresource: 'status', namespace: 'ns', name: 'theirs', object: objects['pods/ns/theirs'], oldObject: objects['pods/ns/theirs'] }, 403],
    ['labels through pod status', { operation: 'UPDATE', resource: PODS, subresource: 'status', namespace: 'ns', name: 'mine', object: { ...objects['pods/ns/mine']!, metadata: { name: 'mine', labels: { a: 'b' } } }, oldObject: objects['pods/ns/mine'] }, 403],
    ['ephemeral containers', { operation: 'UPDATE', resource: PODS, subresource: 'ephemeralcontainers', namespace: 'ns', name: 'mine', object: objects['pods/ns/mine'], oldObject: objects['pods/ns/mine'] }, 403],
    // Leases: its own, in the node-lease namespace.
    ['create own lease', { operation: 'CREATE', resource: LEASES, namespace: 'cluster-node-lease', object: { metadata: { name: 'n1' } } }, undefined],
    ['create another node\'s lease', { operation: 'CREATE', resource: LEASES, namespace: 'cluster-node-lease', object: { metadata: { name: 'n2' } } }, 403],
    ['update another node\'s lease', { operation: 'UPDATE', resource: LEASES, namespace: 'cluster-node-lease', name: 'n2', object: { metadata: { name: 'n2' } } }, 403],
    ['lease in another namespace', { operation: 'CREATE', resource: LEASES, namespace: 'cluster-system', object: { metadata: { name: 'n1' } } }, 403],
    // Tokens: bound to a pod on itself.
    ['token bound to own pod', { operation: 'CREATE', resource: SAS, subresource: 'token', namespace: 'ns', name: 'default', object: { metadata: {}, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'uid-mine' } } } as KubeObject }, undefined],
    ['unbound token', { operation: 'CREATE', resource: SAS, subresource: 'token', namespace: 'ns', name: 'default', object: { metadata: {}, spec: {} } as KubeObject }, 403],
    ['token bound to a secret', { operation: 'CREATE', resource: SAS, subresource: 'token', namespace: 'ns', name: 'default', object: { metadata: {}, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'u' } } } as KubeObject }, 403],
    ['token bound to a pod without uid', { operation: 'CREATE', resource: SAS, subresource: 'token', namespace: 'ns', name: 'default', object: { metadata: {}, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'mine' } } } as KubeObject }, 403],
    ['token bound to a pod with another uid', { operation: 'CREATE', resource: SAS, subresource: 'token', namespace: 'ns', name: 'default', object: { metadata: {}, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'x' } } } as KubeObject }, 403],
    ['token bound to another node\'s pod', { operation: 'CREATE', resource: SAS, subresource: 'token', namespace: 'ns', name: 'default', object: { metadata: {}, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'theirs', uid: 'uid-theirs' } } } as KubeObject }, 403],
    ['token bound to a missing pod', { operation: 'CREATE', resource: SAS, subresource: 'token', namespace: 'ns', name: 'default', object: { metadata: {}, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'gone', uid: 'u' } } } as KubeObject }, 404],
    // Evictions: only of pods bound to itself.
    ['evict own pod', { operation: 'CREATE', resource: PODS, subresource: 'eviction', namespace: 'ns', name: 'mine', object: { metadata: { name: 'mine' } } }, undefined],
    ['evict another node\'s pod', { operation: 'CREATE', resource: PODS, subresource: 'eviction', namespace: 'ns', name: 'theirs', object: { metadata: { name: 'theirs' } } }, 403],
    ['forged: URL names another node\'s pod, body names its own', { operation: 'CREATE', resource: PODS, subresource: 'eviction', namespace: 'ns', name: 'theirs', object: { metadata: { name: 'mine' } } }, 403],
    ['eviction naming the pod in the body only', { operation: 'CREATE', resource: PODS, subresource: 'eviction', namespace: 'ns', object: { metadata: { name: 'mine' } } }, undefined],
    ['eviction naming no pod', { operation: 'CREATE', resource: PODS, subresource: 'eviction', namespace: 'ns', object: { metadata: {} } }, 403],
    ['eviction of a missing pod', { operation: 'CREATE', resource: PODS, subresource: 'eviction', namespace: 'ns', name: 'gone', object: { metadata: { name: 'gone' } } }, 404],
    // Claims: only status.capacity and status.conditions, through the status subresource.
    ['claim status: capacity and conditions', { operation: 'UPDATE', resource: PVCS, subresource: 'status', namespace: 'ns', name: 'c1', object: claim({ capacity: { storage: '2Gi' }, conditions: [{ type: 'FileSystemResizePending', status: 'True' }] }, { resourceVersion: '' , managedFields: [] }), oldObject: claim() }, undefined],
    ['claim status: phase', { operation: 'UPDATE', resource: PVCS, subresource: 'status', namespace: 'ns', name: 'c1', object: claim({ phase: 'Lost' }), oldObject: claim() }, 403],
    ['claim status: access modes', { operation: 'UPDATE', resource: PVCS, subresource: 'status', namespace: 'ns', name: 'c1', object: claim({ accessModes: ['ReadWriteMany'] }), oldObject: claim() }, 403],
    ['claim status with a label', { operation: 'UPDATE', resource: PVCS, subresource: 'status', namespace: 'ns', name: 'c1', object: claim({}, { labels: { a: 'b' } }), oldObject: claim() }, 403],
    ['claim status with a finalizer', { operation: 'UPDATE', resource: PVCS, subresource: 'status', namespace: 'ns', name: 'c1', object: claim({}, { finalizers: ['x/y'] }), oldObject: claim() }, 403],
    ['claim status with a spec change', { operation: 'UPDATE', resource: PVCS, subresource: 'status', namespace: 'ns', name: 'c1', object: claim({}, {}, { volumeName: 'pv9' }), oldObject: claim() }, 403],
    ['claim update (not status)', { operation: 'UPDATE', resource: PVCS, namespace: 'ns', name: 'c1', object: claim(), oldObject: claim() }, 403],
    ['claim create', { operation: 'CREATE', resource: PVCS, namespace: 'ns', object: claim() }, 403],
    ['claim delete', { operation: 'DELETE', resource: PVCS, namespace: 'ns', name: 'c1', oldObject: claim() }, 403],
    // CSINodes: its own name only.
    ['create own CSINode', { operation: 'CREATE', resource: CSINODES, object: { metadata: { name: 'n1' } } }, undefined],
    ['create another node\'s CSINode', { operation: 'CREATE', resource: CSINODES, object: { metadata: { name: 'n2' } } }, 403],
    ['create a CSINode with a generateName only', { operation: 'CREATE', resource: CSINODES, object: { metadata: { generateName: 'n1' } } as KubeObject }, 403],
    ['update own CSINode', { operation: 'UPDATE', resource: CSINODES, name: 'n1', object: { metadata: { name: 'n1' } }, oldObject: { metadata: { name: 'n1' } } }, undefined],
    ['update another node\'s CSINode', { operation: 'UPDATE', resource: CSINODES, name: 'n2', object: { metadata: { name: 'n2' } }, oldObject: { metadata: { name: 'n2' } } }, 403],
    ['delete another node\'s CSINode', { operation: 'DELETE', resource: CSINODES, name: 'n2', oldObject: { metadata: { name: 'n2' } } }, 403],
    // Other kinds are the authorizer's business.
    ['secrets', { operation: 'CREATE', resource: SECRETS, namespace: 'ns', object: { metadata: { name: 's' } } }, undefined],
  ])('%s', async (_n, a, code) => {
    expect(await run(a)).toBe(code);
  });

  test.each<[string, UserInfo, number | undefined]>([
    ['forged: empty node name is refused everything', { username: 'system:node:', groups: ['system:nodes'] }, 403],
    ['username without the group is not restricted (RBAC decides)', { username: 'system:node:n1', groups: [] }, undefined],
    ['group without the prefix is not restricted (RBAC decides)', { username: 'n1', groups: ['system:nodes'] }, undefined],
    ['an admin is not restricted', { username: 'admin', groups: ['system:masters'] }, undefined],
  ])('%s', async (_n, user, code) => {
    expect(await run({ operation: 'UPDATE', resource: NODES, name: 'n2', object: nodeObj(), oldObject: nodeObj(), user })).toBe(code);
  });

  test('messages follow upstream', async () => {
    await expect(plugin.validate({ operation: 'UPDATE', resource: PVCS, subresource: 'status', namespace: 'ns', name: 'c1', object: claim({ phase: 'Lost' }), oldObject: claim(), dryRun: false, user: n1 }))
      .rejects.toMatchObject({ status: { message: 'persistentvolumeclaims "c1" is forbidden: node "n1" is not allowed to update fields other than status.capacity and status.conditions: status.phase' } });
    await expect(plugin.validate({ operation: 'CREATE', resource: CSINODES, subresource: '', namespace: '', name: '', object: { metadata: { name: 'n2' } }, dryRun: false, user: n1 }))
      .rejects.toMatchObject({ status: { message: 'csinodes.storage.example.org is forbidden: can only access CSINode with the same name as the requesting node' } });
    await expect(plugin.validate({ operation: 'UPDATE', resource: NODES, subresource: '', namespace: '', name: 'n2', object: nodeObj(), oldObject: nodeObj(), dryRun: false, user: n1 }))
      .rejects.toMatchObject({ status: { reason: 'Forbidden', message: 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"' } });
  });
});
