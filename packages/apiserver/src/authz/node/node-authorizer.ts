import type { UserInfo } from '../../authn/user.js';
import type { RequestInfo } from '../../request/request-info.js';
import type { RegistrySet } from '../../registry/registry-set.js';
import type { AuthorizationAttributes, Authorizer, Decision, PolicyRule, RulesResult } from '../authorizer.js';
import { runInformer, type InformerHandler } from '../rbac/informer.js';
import { ruleAllows } from '../rbac/matching.js';
import { NodeGraph, type VertexKind } from './graph.js';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from './node-identity.js';
import { nodeRules } from './node-rules.js';
import type { PodShape } from './pod-references.js';
import type { PersistentVolumeShape, VolumeAttachmentShape } from './pv-references.js';

type Verdict = { decision: Decision; reason: string };

const NO_OPINION: Verdict = { decision: 'no-opinion', reason: '' };
const ALLOW: Verdict = { decision: 'allow', reason: '' };
const no = (reason: string): Verdict => ({ decision: 'no-opinion', reason });

export interface NodeAuthorizerOptions {
  apiDomain: string;
  log?: (msg: string, err?: unknown) => void;
}

/**
 * --authorization-mode=Node (upstream plugin/pkg/auth/authorizer/node): requests of node agents
 * (`system:node:<name>` in `system:nodes`) are decided from what their node needs. Secrets and
 * ConfigMaps: get, list and watch of one named object referenced by a pod bound to the node (or,
 * for a Secret, by a PV bound to a claim such a pod uses); PersistentVolumeClaims: get of one used
 * by such a pod, and update or patch of its status; PersistentVolumes: get of one bound to such a
 * claim; VolumeAttachments: get of one attached to the node; service accounts: a token for one of
 * a bound pod's account; Leases and CSINodes: the node's own (Leases in the node-lease namespace).
 * Everything else is judged by the static node rules; NodeRestriction admission narrows the writes
 * they allow. Never denies: anyone else, and anything not allowed, is no opinion, so RBAC decides
 * next.
 *
 * The graph is fed by list-then-watches of pods, PVs and VolumeAttachments (`start`); decisions
 * wait for the first list of each.
 */
export class NodeAuthorizer implements Authorizer {
  readonly graph: NodeGraph;
  private readonly rules: ReturnType<typeof nodeRules>;
  private synced: Promise<void> | undefined;
  /** Set once every watch has listed (then decisions need no wait). */
  private listed = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly registries: () => RegistrySet,
    private readonly opts: NodeAuthorizerOptions,
  ) {
    this.graph = new NodeGraph(opts.apiDomain);
    this.rules = nodeRules(opts.apiDomain);
  }

  /**
   * Starts the watches that feed the graph (call once, after the API server exists): pods,
   * PersistentVolumes and VolumeAttachments (upstream's graph populator; the latter two only when
   * served). Resolves after the first list of each.
   */
  start(): Promise<void> {
    this.synced ??= Promise.all([
      this.watch('', 'pods', true, {
        replace: (objs) => this.graph.replacePods(objs as PodShape[]),
        upsert: (obj) => this.graph.upsertPod(obj as PodShape),
        remove: (obj) => this.graph.removePod(obj as PodShape),
      }),
      this.watch('', 'persistentvolumes', false, {
        replace: (objs) => this.graph.replacePVs(objs as PersistentVolumeShape[]),
        upsert: (obj) => this.graph.upsertPV(obj as PersistentVolumeShape),
        remove: (obj) => this.graph.removePV(obj as PersistentVolumeShape),
      }),
      this.watch(`storage.${this.opts.apiDomain}`, 'volumeattachments', false, {
        replace: (objs) => this.graph.replaceVolumeAttachments(objs as VolumeAttachmentShape[]),
        upsert: (obj) => this.graph.upsertVolumeAttachment(obj as VolumeAttachmentShape),
        remove: (obj) => this.graph.removeVolumeAttachment(obj as VolumeAttachmentShape),
      }),
    ]).then(() => {
      this.listed = true;
    });
    return this.synced;
  }

  /**
   * One list-then-watch into the graph, through the resource's v1 registry. A resource that is
   * not served (and not `required`) has no objects to reach: nothing to watch.
   */
  private watch(group: string, resource: string, required: boolean, handler: InformerHandler): Promise<void> {
    const registry = () => this.registries().lookup(group, 'v1', resource) ?? this.registries().byResource(group, resource);
    if (!required && !registry()) return Promise.resolve();
    return runInformer(
      () => {
        const r = registry();
        if (!r) throw new Error(`${resource} are not served`);
        return r;
      },
      handler,
      this.abort.signal,
      { log: this.opts.log },
    ).synced;
  }

  /** Ends the watches. */
  stop(): void {
    this.abort.abort();
  }

  async authorize({ user, info }: AuthorizationAttributes): Promise<Verdict> {
    const { isNode, nodeName } = nodeIdentity(user);
    if (!isNode) return NO_OPINION;
    if (!nodeName) return no(`unknown node for user "${user.username}"`);
    if (this.synced && !this.listed) await this.synced;
    return this.decide(nodeName, info);
  }

  /** `authorize`'s decision at once; undefined for a node's request before the graph is listed. */
  authorizeNow({ user, info }: AuthorizationAttributes): Verdict | undefined {
    const { isNode, nodeName } = nodeIdentity(user);
    if (!isNode) return NO_OPINION;
    if (!nodeName) return no(`unknown node for user "${user.username}"`);
    if (this.synced && !this.listed) return undefined;
    return this.decide(nodeName, info);
  }

  /** The decision for a known node; the graph as it stands. */
  decide(nodeName: string, info: RequestInfo): Verdict {
    if (info.isResourceRequest) {
      const d = this.opts.apiDomain;
      const gr = `${info.resource}.${info.apiGroup}`;
      if (gr === 'secrets.') return this.readNamespaced(nodeName, 'secret', info);
      if (gr === 'configmaps.') return this.readNamespaced(nodeName, 'configmap', info);
      if (gr === 'serviceaccounts.') return this.createToken(nodeName, info);
      if (gr === `leases.coordination.${d}`) return this.lease(nodeName, info);
      if (gr === 'persistentvolumeclaims.') {
        return info.subresource === 'status' ? this.updateStatus(nodeName, 'pvc', info) : this.getOne(nodeName, 'pvc', info);
      }
      if (gr === 'persistentvolumes.') return this.getOne(nodeName, 'pv', info);
      if (gr === `volumeattachments.storage.${d}`) return this.getOne(nodeName, 'volumeattachment', info);
      if (gr === `csinodes.storage.${d}`) return this.csiNode(nodeName, info);
    }
    return this.rules.unscoped.some((r) => ruleAllows(info, r)) ? ALLOW : NO_OPINION;
  }

  /**
   * A node's rules: the static ones, plus its own CSINode and its own Lease in the node-lease
   * namespace. Always incomplete: what the graph grants (objects of its pods, their volumes, its
   * attachments) is not listed, as upstream lists none.
   */
  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const { isNode, nodeName } = nodeIdentity(user);
    if (!isNode) return { rules: [], incomplete: false };
    const rules: PolicyRule[] = nodeName ? [...this.rules.unscoped] : [];
    if (nodeName && namespace === NODE_LEASE_NAMESPACE) {
      const group = `coordination.${this.opts.apiDomain}`;
      rules.push({ verbs: ['create'], apiGroups: [group], resources: ['leases'] });
      rules.push({ verbs: ['get', 'update', 'patch', 'delete'], apiGroups: [group], resources: ['leases'], resourceNames: [nodeName] });
    }
    if (nodeName) {
      // Its own CSINode (cluster-scoped, so listed whatever the namespace).
      const storage = `storage.${this.opts.apiDomain}`;
      rules.push({ verbs: ['create'], apiGroups: [storage], resources: ['csinodes'] });
      rules.push({ verbs: ['get', 'update', 'patch', 'delete'], apiGroups: [storage], resources: ['csinodes'], resourceNames: [nodeName] });
    }
    return { rules, incomplete: true, evaluationError: 'node authorizer does not list the objects a node reaches through its pods, volumes and attachments' };
  }

  private readNamespaced(nodeName: string, kind: VertexKind, info: RequestInfo): Verdict {
    if (!['get', 'list', 'watch'].includes(info.verb)) return no('can only read resources of this type');
    if (info.subresource) return no('cannot read subresource');
    if (!info.namespace) return no('can only read namespaced object of this type');
    return this.related(nodeName, kind, info);
  }

  /** Get of one object the node reaches (upstream authorizeGet: no list, no watch, no subresource). */
  private getOne(nodeName: string, kind: VertexKind, info: RequestInfo): Verdict {
    if (info.verb !== 'get') return no('can only get individual resources of this type');
    if (info.subresource) return no('cannot get subresource');
    return this.related(nodeName, kind, info);
  }

  /** Update or patch of the status of an object the node reaches (upstream authorizeStatusUpdate). */
  private updateStatus(nodeName: string, kind: VertexKind, info: RequestInfo): Verdict {
    if (info.verb !== 'update' && info.verb !== 'patch') return no('can only get/update/patch this type');
    if (info.subresource !== 'status') return no('can only update status subresource');
    return this.related(nodeName, kind, info);
  }

  /**
   * The node's own CSINode (upstream authorizeCSINode): a create names no object in its URL,
   * so NodeRestriction checks the name in the body.
   */
  private csiNode(nodeName: string, info: RequestInfo): Verdict {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(info.verb)) return no('can only get, create, update, patch, or delete a CSINode');
    if (info.subresource) return no('cannot authorize CSINode subresources');
    if (info.verb !== 'create' && info.name !== nodeName) return no('can only access CSINode with the same name as the requesting node');
    return ALLOW;
  }

  private createToken(nodeName: string, info: RequestInfo): Verdict {
    if (info.verb !== 'create' || !info.name) return no('can only create tokens for individual service accounts');
    if (info.subresource !== 'token') return no('can only create token subresource of serviceaccount');
    return this.related(nodeName, 'serviceaccount', info);
  }

  private lease(nodeName: string, info: RequestInfo): Verdict {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(info.verb)) return no('can only get, create, update, patch, or delete a node lease');
    if (info.namespace !== NODE_LEASE_NAMESPACE) return no(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    // A create names no object in its URL: NodeRestriction checks the name in the body.
    if (info.verb !== 'create' && info.name !== nodeName) return no('can only access node lease with the same name as the requesting node');
    return ALLOW;
  }

  private related(nodeName: string, kind: VertexKind, info: RequestInfo): Verdict {
    if (!info.name) return no('No Object name found');
    if (!this.graph.hasPath(nodeName, kind, info.namespace, info.name)) return no(`no relationship found between node '${nodeName}' and this object`);
    return ALLOW;
  }
}
