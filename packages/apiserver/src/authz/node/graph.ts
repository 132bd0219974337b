import { isMirrorPod, podConfigMapNames, podSecretNames, podVolumeClaimNames, type PodShape } from './pod-references.js';
import { pvKubeletSecrets, type PersistentVolumeShape, type VolumeAttachmentShape } from './pv-references.js';

/** The kinds of object a node may reach through the pods, volumes and attachments bound to it. */
export type VertexKind = 'pod' | 'secret' | 'configmap' | 'serviceaccount' | 'pvc' | 'pv' | 'volumeattachment';

interface PodEdges {
  node: string;
  /** Vertex keys (kind, namespace, name) this pod makes reachable from its node, itself included. */
  keys: string[];
}

interface PvEdges {
  /** The key of the claim its claimRef names. */
  claim: string;
  /** Keys of the Secrets the node agent reads to mount it. */
  secrets: string[];
}

/** One unambiguous key per vertex, whatever characters a requested name holds. */
const vertexKey = (kind: VertexKind, namespace: string, name: string) => JSON.stringify([kind, namespace, name]);
const CLAIM_PREFIX = '["pvc",';

/** Adds `by` to the count of `inner` under `outer`, dropping entries that reach zero. */
function count(map: Map<string, Map<string, number>>, outer: string, inner: string, by: 1 | -1): void {
  let m = map.get(outer);
  if (!m) map.set(outer, (m = new Map()));
  const n = (m.get(inner) ?? 0) + by;
  if (n > 0) m.set(inner, n);
  else {
    m.delete(inner);
    if (m.size === 0) map.delete(outer);
  }
}

/** Adds or removes `value` in the set under `k`, dropping empty sets. */
function member(map: Map<string, Set<string>>, k: string, value: string, present: boolean): void {
  let set = map.get(k);
  if (present) {
    if (!set) map.set(k, (set = new Set()));
    set.add(value);
  } else if (set) {
    set.delete(value);
    if (set.size === 0) map.delete(k);
  }
}

/**
 * What each node may read because of the objects bound to it (upstream's node authorizer Graph,
 * for the kinds served here), as its paths:
 *
 *   node <- pod <- secret | configmap | serviceaccount | pvc      (the pod's references)
 *   node <- pod <- pvc <- pv <- secret                            (the PV's claimRef; its mount secrets)
 *   node <- volumeattachment                                      (spec.nodeName)
 *
 * A mirror pod reaches only its node: a node must not grant itself access to other objects by
 * creating pods. Pods without a node, PVs without a claimRef and attachments without a node are
 * not in the graph. A PV reaches a node through its claim's name, whether or not that claim
 * exists, as upstream's vertex does.
 *
 * Kept as reference counts per (object, node) for what pods reach, plus the PV and attachment
 * edges and their reverse indexes, rather than a general graph: every path above is at most four
 * long and fixed in shape, so "is there a path" is a few map lookups (a Secret through PVs: the
 * smaller of its PVs and the node's claims). Not shared between threads; pure data.
 */
export class NodeGraph {
  private readonly pods = new Map<string, PodEdges>();
  private readonly reach = new Map<string, Map<string, number>>();
  private readonly pvs = new Map<string, PvEdges>();
  /** Secret key -> names of the PVs that mount with it. */
  private readonly pvsBySecret = new Map<string, Set<string>>();
  /** Claim key -> names of the PVs whose claimRef names it. */
  private readonly pvsByClaim = new Map<string, Set<string>>();
  /** Node -> keys of the claims its pods use (with counts), so a node's claims are one lookup. */
  private readonly claimsByNode = new Map<string, Map<string, number>>();
  /** VolumeAttachment name -> its node. */
  private readonly attachments = new Map<string, string>();

  constructor(private readonly apiDomain: string) {}

  /** Adds or replaces a pod's edges (upstream AddPod, or DeletePod when it has no node). */
  upsertPod(pod: PodShape): void {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    this.removePod(pod);
    const node = pod.spec?.nodeName ?? '';
    if (!node || !name) return;
    const keys = new Set([vertexKey('pod', ns, name)]);
    if (!isMirrorPod(pod, this.apiDomain)) {
      if (pod.spec?.serviceAccountName) keys.add(vertexKey('serviceaccount', ns, pod.spec.serviceAccountName));
      for (const s of podSecretNames(pod)) keys.add(vertexKey('secret', ns, s));
      for (const c of podConfigMapNames(pod)) keys.add(vertexKey('configmap', ns, c));
      for (const c of podVolumeClaimNames(pod)) keys.add(vertexKey('pvc', ns, c));
    }
    for (const k of keys) {
      count(this.reach, k, node, 1);
      if (k.startsWith(CLAIM_PREFIX)) count(this.claimsByNode, node, k, 1);
    }
    this.pods.set(vertexKey('pod', ns, name), { node, keys: [...keys] });
  }

  /** Drops a pod's edges; objects no other pod on that node references become unreachable from it. */
  removePod(pod: PodShape): void {
    const id = vertexKey('pod', pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
    const edges = this.pods.get(id);
    if (!edges) return;
    this.pods.delete(id);
    for (const k of edges.keys) {
      count(this.reach, k, edges.node, -1);
      if (k.startsWith(CLAIM_PREFIX)) count(this.claimsByNode, edges.node, k, -1);
    }
  }

  /** Replaces every pod's edges (after a relist of pods). */
  replacePods(pods: readonly PodShape[]): void {
    this.pods.clear();
    this.reach.clear();
    this.claimsByNode.clear();
    for (const p of pods) this.upsertPod(p);
  }

  /** Adds or replaces a PV's edges (upstream AddPV): to its claim, and from its node-visible secrets. */
  upsertPV(pv: PersistentVolumeShape): void {
    const name = pv.metadata?.name ?? '';
    this.removePV(pv);
    const claimRef = pv.spec?.claimRef;
    if (!name || !claimRef) return;
    const secrets = [...new Set(pvKubeletSecrets(pv).map((s) => vertexKey('secret', s.namespace, s.name)))];
    const claim = vertexKey('pvc', claimRef.namespace ?? '', claimRef.name ?? '');
    this.pvs.set(name, { claim, secrets });
    for (const s of secrets) member(this.pvsBySecret, s, name, true);
    member(this.pvsByClaim, claim, name, true);
  }

  /** Drops a PV's edges (upstream DeletePV). */
  removePV(pv: PersistentVolumeShape): void {
    const name = pv.metadata?.name ?? '';
    const edges = this.pvs.get(name);
    if (!edges) return;
    this.pvs.delete(name);
    for (const s of edges.secrets) member(this.pvsBySecret, s, name, false);
    member(this.pvsByClaim, edges.claim, name, false);
  }

  /** Replaces every PV's edges (after a relist of PVs). */
  replacePVs(pvs: readonly PersistentVolumeShape[]): void {
    this.pvs.clear();
    this.pvsBySecret.clear();
    this.pvsByClaim.clear();
    for (const pv of pvs) this.upsertPV(pv);
  }

  /** Adds or replaces an attachment's edge to its node (upstream AddVolumeAttachment). */
  upsertVolumeAttachment(va: VolumeAttachmentShape): void {
    const name = va.metadata?.name ?? '';
    this.attachments.delete(name);
    if (name && va.spec?.nodeName) this.attachments.set(name, va.spec.nodeName);
  }

  /** Drops an attachment's edge (upstream DeleteVolumeAttachment). */
  removeVolumeAttachment(va: VolumeAttachmentShape): void {
    this.attachments.delete(va.metadata?.name ?? '');
  }

  /** Replaces every attachment's edge (after a relist of attachments). */
  replaceVolumeAttachments(vas: readonly VolumeAttachmentShape[]): void {
    this.attachments.clear();
    for (const va of vas) this.upsertVolumeAttachment(va);
  }

  /** Whether `node` reaches the object (upstream hasPathFrom); PVs and attachments have no namespace. */
  hasPath(node: string, kind: VertexKind, namespace: string, name: string): boolean {
    if (!node) return false;
    if (kind === 'volumeattachment') return namespace === '' && this.attachments.get(name) === node;
    if (kind === 'pv') {
      const pv = namespace === '' ? this.pvs.get(name) : undefined;
      return pv !== undefined && this.reaches(node, pv.claim);
    }
    const key = vertexKey(kind, namespace, name);
    if (this.reaches(node, key)) return true;
    return kind === 'secret' && this.reachesThroughPV(node, key);
  }

  /**
   * Whether a PV bound to one of the node's claims mounts with this secret: walked from whichever
   * side is smaller, the PVs using the secret (a CSI driver's may be shared by thousands) or the
   * claims the node's pods use (bounded by what one node runs), so a denied request costs little.
   */
  private reachesThroughPV(node: string, secret: string): boolean {
    const pvs = this.pvsBySecret.get(secret);
    const claims = this.claimsByNode.get(node);
    if (!pvs || !claims) return false;
    if (pvs.size <= claims.size) {
      for (const pv of pvs) if (claims.has(this.pvs.get(pv)!.claim)) return true;
      return false;
    }
    for (const claim of claims.keys()) {
      for (const pv of this.pvsByClaim.get(claim) ?? []) if (this.pvs.get(pv)!.secrets.includes(secret)) return true;
    }
    return false;
  }

  private reaches(node: string, key: string): boolean {
    return (this.reach.get(key)?.get(node) ?? 0) > 0;
  }

  /** Number of pods bound to some node (for tests and metrics). */
  get podCount(): number {
    return this.pods.size;
  }
}
