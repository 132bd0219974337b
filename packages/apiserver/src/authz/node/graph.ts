import { isMirrorPod, podConfigMapNames, podSecretNames, type PodShape } from './pod-references.js';

/** The kinds of object a node may reach through the pods bound to it. */
export type VertexKind = 'pod' | 'secret' | 'configmap' | 'serviceaccount';

interface PodEdges {
  node: string;
  /** Vertex keys (kind, namespace, name) this pod makes reachable from its node, itself included. */
  keys: string[];
}

const vertexKey = (kind: VertexKind, namespace: string, name: string) => `${kind}\u0000${namespace}\u0000${name}`;

/**
 * What each node may read because of the pods bound to it (upstream's node authorizer Graph, for
 * the kinds served here): pod -> node by `spec.nodeName`, and secret, configmap and service account
 * -> pod by the pod's references. A mirror pod reaches only its node: a node must not grant itself
 * access to other objects by creating pods. Pods without a node are not in the graph.
 *
 * Kept as reference counts per (object, node) rather than a general graph: every path here has
 * length at most two, so "is there a path" is one map lookup. Not thread-shared; pure data.
 */
export class NodeGraph {
  private readonly pods = new Map<string, PodEdges>();
  private readonly reach = new Map<string, Map<string, number>>();

  constructor(private readonly apiDomain: string) {}

  /** Adds or replaces a pod's edges (upstream AddPod, or DeletePod when it has no node). */
  upsertPod(pod: PodShape): void {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    this.removePod(pod);
    const node = pod.spec?.nodeName ?? '';
    if (!node || !name) return;
    const keys = [vertexKey('pod', ns, name)];
    if (!isMirrorPod(pod, this.apiDomain)) {
      if (pod.spec?.serviceAccountName) keys.push(vertexKey('serviceaccount', ns, pod.spec.serviceAccountName));
      for (const s of podSecretNames(pod)) keys.push(vertexKey('secret', ns, s));
      for (const c of podConfigMapNames(pod)) keys.push(vertexKey('configmap', ns, c));
    }
    for (const k of keys) {
      let nodes = this.reach.get(k);
      if (!nodes) this.reach.set(k, (nodes = new Map()));
      nodes.set(node, (nodes.get(node) ?? 0) + 1);
    }
    this.pods.set(`${ns}/${name}`, { node, keys });
  }

  /** Drops a pod's edges; objects no other pod on that node references become unreachable from it. */
  removePod(pod: PodShape): void {
    const id = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    const edges = this.pods.get(id);
    if (!edges) return;
    this.pods.delete(id);
    for (const k of edges.keys) {
      const nodes = this.reach.get(k);
      const n = (nodes?.get(edges.node) ?? 0) - 1;
      if (n > 0) nodes!.set(edges.node, n);
      else {
        nodes?.delete(edges.node);
        if (nodes?.size === 0) this.reach.delete(k);
      }
    }
  }

  /** Replaces the whole graph (after a relist). */
  replacePods(pods: readonly PodShape[]): void {
    this.pods.clear();
    this.reach.clear();
    for (const p of pods) this.upsertPod(p);
  }

  /** Whether `node` reaches the object (upstream hasPathFrom). */
  hasPath(node: string, kind: VertexKind, namespace: string, name: string): boolean {
    return (this.reach.get(vertexKey(kind, namespace, name))?.get(node) ?? 0) > 0;
  }

  /** Number of pods bound to some node (for tests and metrics). */
  get podCount(): number {
    return this.pods.size;
  }
}
