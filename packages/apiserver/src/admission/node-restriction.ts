import { isDeepStrictEqual } from 'node:util';
import { isNotFound, newForbidden, type KubeObject } from '@cluster/apimachinery';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from '../authz/node/node-identity.js';
import { isMirrorPod, podClaimNames, podConfigMapNames, podSecretNames, type PodShape } from '../authz/node/pod-references.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

/** Reads one object; rejects with the registry's NotFound when it is absent. */
export type Getter = (namespace: string, name: string) => Promise<KubeObject>;

interface NodeShape extends KubeObject {
  spec?: { configSource?: unknown; taints?: unknown } | null;
}

interface OwnerRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean | null;
  blockOwnerDeletion?: boolean | null;
}

/**
 * Upstream's NodeRestriction admission (plugin/pkg/admission/noderestriction), for the kinds
 * served here. A node agent (`system:node:<name>` in `system:nodes`) may only: create its own Node
 * and change it, without touching its taints, its config source or labels outside the ones a node
 * may set; create mirror pods bound to itself, owned by its Node and referencing nothing else,
 * and delete or update the status of pods bound to itself; create, change and delete its own
 * Lease in the node-lease namespace; ask for service-account tokens only bound to a pod on
 * itself; evict only pods bound to itself; change only the capacity and conditions in a claim's
 * status, and no other part of a claim; create, change and delete only its own CSINode. Everyone
 * else passes. `getNode`/`getPod` read live objects (quorum reads).
 */
export function nodeRestriction(apiDomain: string, lookups: { getNode: Getter; getPod: Getter }): AdmissionPlugin {
  const coordination = `coordination.${apiDomain}`;
  const validateNodeRequest = async (a: AdmissionAttributes, nodeName: string | undefined): Promise<void> => {
    const forbid = (msg: string) => newForbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, msg);
    if (!nodeName) throw forbid(`could not determine node from user "${a.user!.username}"`);
    const gr = `${a.resource.resource}.${a.resource.group}`;
    if (gr === 'pods.') {
      if (a.subresource === '') return admitPod(nodeName, a, forbid);
      if (a.subresource === 'status') return admitPodStatus(nodeName, a, forbid);
      if (a.subresource === 'eviction') return admitPodEviction(nodeName, a, forbid);
      throw forbid(`unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
    }
    if (gr === 'nodes.') return admitNode(nodeName, a, forbid);
    if (gr === 'serviceaccounts.') return admitServiceAccount(nodeName, a, forbid);
    if (gr === `leases.${coordination}`) return admitLease(nodeName, a, forbid);
    if (gr === 'persistentvolumeclaims.') {
      if (a.subresource !== 'status') throw forbid('may only update PVC status');
      return admitClaimStatus(nodeName, a, forbid);
    }
    if (gr === `csinodes.storage.${apiDomain}`) return admitCSINode(nodeName, a, forbid);
  };
  return {
    name: 'NodeRestriction',
    // Not an async function: a requester that is no node passes at once, without a promise.
    validate(a) {
      const { isNode, nodeName } = nodeIdentity(a.user);
      if (!isNode) return;
      return validateNodeRequest(a, nodeName);
    },
  };

  async function admitPod(nodeName: string, a: AdmissionAttributes, forbid: (m: string) => Error): Promise<void> {
    if (a.operation === 'DELETE') {
      if ((a.oldObject as PodShape | undefined)?.spec?.nodeName !== nodeName) throw forbid(`node "${nodeName}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    if (a.operation !== 'CREATE') throw forbid(`unexpected operation "${a.operation}", node "${nodeName}" can only create and delete mirror pods`);
    const pod = (a.object ?? {}) as PodShape & { metadata?: { ownerReferences?: OwnerRef[] | null } };
    if (!isMirrorPod(pod, apiDomain)) throw forbid(`pod does not have "${apiDomain}/config.mirror" annotation, node "${nodeName}" can only create mirror pods`);
    if (pod.spec?.nodeName !== nodeName) throw forbid(`node "${nodeName}" can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata?.ownerReferences ?? [];
    if (owners.length > 1) throw forbid(`node "${nodeName}" can only create pods with a single owner reference set to itself`);
    const owner = owners[0];
    if (!owner) throw forbid(`node "${nodeName}" can only create pods with an owner reference set to itself`);
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName) {
      throw forbid(`node "${nodeName}" can only create pods with an owner reference set to itself`);
    }
    if (owner.controller !== true) throw forbid(`node "${nodeName}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw forbid(`node "${nodeName}" must not set blockOwnerDeletion on an owner reference`);
    let node: KubeObject;
    try {
      node = await lookups.getNode('', nodeName);
    } catch (e) {
      if (isNotFound(e)) throw e;
      throw forbid(`error looking up node ${nodeName} to verify uid: ${(e as Error).message}`);
    }
    if (owner.uid !== node.metadata.uid) throw forbid(`node ${nodeName} UID mismatch: expected ${owner.uid ?? ''} got ${node.metadata.uid ?? ''}`);
    // A mirror pod must not reach other objects: the Node authorizer would grant them to the node.
    if (pod.spec?.serviceAccountName) throw forbid(`node "${nodeName}" can not create pods that reference a service account`);
    if (podSecretNames(pod).size) throw forbid(`node "${nodeName}" can not create pods that reference secrets`);
    if (podConfigMapNames(pod).size) throw forbid(`node "${nodeName}" can not create pods that reference configmaps`);
    if (podClaimNames(pod).size) throw forbid(`node "${nodeName}" can not create pods that reference persistentvolumeclaims`);
  }

  async function admitServiceAccount(nodeName: string, a: AdmissionAttributes, forbid: (m: string) => Error): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
    const ref = (a.object as { spec?: { boundObjectRef?: { apiVersion?: string; kind?: string; name?: string; uid?: string } | null } } | undefined)?.spec?.boundObjectRef;
    if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw forbid('node requested token not bound to a pod');
    if (!ref.uid) throw forbid('node requested token with a pod binding without a uid');
    let pod: PodShape;
    try {
      pod = (await lookups.getPod(a.namespace, ref.name)) as PodShape;
    } catch (e) {
      if (isNotFound(e)) throw e;
      throw forbid((e as Error).message);
    }
    if (ref.uid !== pod.metadata?.uid) {
      throw forbid(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (pod.spec?.nodeName !== nodeName) throw forbid('node requested token bound to a pod scheduled on a different node');
  }

  function admitLease(nodeName: string, a: AdmissionAttributes, forbid: (m: string) => Error): void {
    if (a.namespace !== NODE_LEASE_NAMESPACE) throw forbid(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    const name = a.operation === 'CREATE' ? a.object?.metadata?.name : a.name;
    if (name !== nodeName) throw forbid('can only access node lease with the same name as the requesting node');
  }

  /** A node may evict only a pod bound to itself (upstream admitPodEviction). */
  async function admitPodEviction(nodeName: string, a: AdmissionAttributes, forbid: (m: string) => Error): Promise<void> {
    if (a.operation !== 'CREATE') throw forbid(`unexpected operation ${a.operation}`);
    // The pod named by the URL wins over the one named in the submitted Eviction.
    const podName = a.name || a.object?.metadata?.name;
    if (!podName) throw forbid('could not determine pod from request data');
    let pod: PodShape;
    try {
      pod = (await lookups.getPod(a.namespace, podName)) as PodShape;
    } catch (e) {
      if (isNotFound(e)) throw e;
      throw forbid((e as Error).message);
    }
    if (pod.spec?.nodeName !== nodeName) throw forbid(`node ${nodeName} can only evict pods with spec.nodeName set to itself`);
  }

  function admitNode(nodeName: string, a: AdmissionAttributes, forbid: (m: string) => Error): void {
    if (a.name !== nodeName) throw forbid(`node "${nodeName}" is not allowed to modify node "${a.name}"`);
    const node = a.object as NodeShape | undefined;
    if (a.operation === 'CREATE') {
      if (node?.spec?.configSource != null) throw forbid(`node "${nodeName}" is not allowed to create pods with a non-nil configSource`);
      const bad = forbiddenLabels(modifiedLabels(node?.metadata.labels, undefined));
      if (bad.length) throw forbid(`node "${nodeName}" is not allowed to set the following labels: ${bad.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      const old = a.oldObject as NodeShape | undefined;
      if (node?.spec?.configSource != null && !sameJson(node.spec.configSource, old?.spec?.configSource)) {
        throw forbid(`node "${nodeName}" is not allowed to update configSource to a new non-nil configSource`);
      }
      if (!sameJson(emptyToNull(node?.spec?.taints), emptyToNull(old?.spec?.taints))) throw forbid(`node "${nodeName}" is not allowed to modify taints`);
      const bad = forbiddenLabels(modifiedLabels(node?.metadata.labels, old?.metadata.labels));
      if (bad.length) throw forbid(`is not allowed to modify labels: ${bad.join(', ')}`);
    }
  }

  /** Label keys a node may not add, change or remove on its Node (upstream getForbiddenLabels, under `apiDomain`). */
  function forbiddenLabels(keys: string[]): string[] {
    const d = apiDomain;
    const kubeletLabels = new Set(
      ['hostname', 'arch', 'os'].map((k) => `${d}/${k}`).concat(
        ['arch', 'os', 'instance-type'].map((k) => `beta.${d}/${k}`),
        [`node.${d}/instance-type`, `failure-domain.beta.${d}/zone`, `failure-domain.beta.${d}/region`, `topology.${d}/zone`, `topology.${d}/region`],
      ),
    );
    const under = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);
    return keys
      .filter((key) => {
        const ns = key.includes('/') ? key.slice(0, key.indexOf('/')) : '';
        if (under(ns, `node-restriction.${d}`)) return true;
        const kubeletLabel = kubeletLabels.has(key) || under(ns, `kubelet.${d}`) || under(ns, `node.${d}`);
        return under(ns, d) && !kubeletLabel;
      })
      .sort();
  }
}

async function admitPodStatus(nodeName: string, a: AdmissionAttributes, forbid: (m: string) => Error): Promise<void> {
  if (a.operation !== 'UPDATE') throw forbid(`unexpected operation "${a.operation}"`);
  const old = a.oldObject as PodShape | undefined;
  if (old?.spec?.nodeName !== nodeName) throw forbid(`node "${nodeName}" can only update pod status for pods with spec.nodeName set to itself`);
  if (modifiedLabels((a.object as PodShape | undefined)?.metadata?.labels, old.metadata?.labels).length) {
    throw forbid(`node "${nodeName}" cannot update labels through pod status`);
  }
}

/**
 * A node may change only `status.capacity` and `status.conditions` of a claim (upstream
 * admitPVCStatus, volume expansion): no label, finalizer, owner, spec or other status field.
 */
function admitClaimStatus(nodeName: string, a: AdmissionAttributes, forbid: (m: string) => Error): void {
  if (a.operation !== 'UPDATE') throw forbid(`unexpected operation "${a.operation}"`);
  const strip = (o: KubeObject | undefined): unknown => {
    const copy = structuredClone(o ?? {}) as KubeObject & { status?: Record<string, unknown> };
    if (copy.metadata) {
      delete copy.metadata.resourceVersion;
      delete copy.metadata.managedFields;
    }
    if (copy.status) {
      delete copy.status.capacity;
      delete copy.status.conditions;
    }
    return copy;
  };
  const changed = diffPaths(strip(a.oldObject), strip(a.object));
  if (changed.length) throw forbid(`node "${nodeName}" is not allowed to update fields other than status.capacity and status.conditions: ${changed.join(', ')}`);
}

/** The CSINode named after the node, and no other (upstream admitCSINode). */
function admitCSINode(nodeName: string, a: AdmissionAttributes, forbid: (m: string) => Error): void {
  const name = a.operation === 'CREATE' ? a.object?.metadata?.name : a.name;
  if (name !== nodeName) throw forbid('can only access CSINode with the same name as the requesting node');
}

/** Dotted paths where two JSON values differ (absent, null, {} and [] alike), for messages. Pure. */
function diffPaths(a: unknown, b: unknown, path = ''): string[] {
  const empty = (v: unknown) => v == null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);
  if (empty(a) && empty(b)) return [];
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isMap(a) && isMap(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diffPaths(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return isDeepStrictEqual(a, b) ? [] : [path || '.'];
}

/** Keys whose values differ between two label maps (added, removed or changed). Pure. */
export function modifiedLabels(a: Record<string, string> | null | undefined, b: Record<string, string> | null | undefined): string[] {
  const x = a ?? {};
  const y = b ?? {};
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => !Object.hasOwn(x, k) || !Object.hasOwn(y, k) || x[k] !== y[k]);
}

const emptyToNull = (v: unknown) => (Array.isArray(v) && v.length === 0 ? null : (v ?? null));
const sameJson = (a: unknown, b: unknown) => isDeepStrictEqual(a ?? null, b ?? null);
