import type { UserInfo } from '../../authn/user.js';
import type { RequestInfo } from '../../request/request-info.js';
import type { RegistrySet } from '../../registry/registry-set.js';
import type { AuthorizationAttributes, Authorizer, Decision, PolicyRule, RulesResult } from '../authorizer.js';
import { runInformer } from '../rbac/informer.js';
import { ruleAllows } from '../rbac/matching.js';
import { NodeGraph, type VertexKind } from './graph.js';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from './node-identity.js';
import { nodeRules } from './node-rules.js';
import type { PodShape } from './pod-references.js';

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
 * ConfigMaps: get, list and watch of one named object referenced by a pod bound to the node;
 * service accounts: a token for one of a bound pod's account; Leases: the node's own, in the
 * node-lease namespace. Everything else is judged by the static node rules; NodeRestriction
 * admission narrows the writes they allow. Never denies: anyone else, and anything not allowed,
 * is no opinion, so RBAC decides next.
 *
 * The graph is fed by a list-then-watch of pods (`start`); decisions wait for the first list.
 */
export class NodeAuthorizer implements Authorizer {
  readonly graph: NodeGraph;
  private readonly rules: ReturnType<typeof nodeRules>;
  private synced: Promise<void> | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly registries: () => RegistrySet,
    private readonly opts: NodeAuthorizerOptions,
  ) {
    this.graph = new NodeGraph(opts.apiDomain);
    this.rules = nodeRules(opts.apiDomain);
  }

  /** Starts the watch of pods (call once, after the API server exists); resolves after the first list. */
  start(): Promise<void> {
    this.synced ??= runInformer(
      () => {
        const r = this.registries().byResource('', 'pods');
        if (!r) throw new Error('pods are not served');
        return r;
      },
      {
        replace: (objs) => this.graph.replacePods(objs as PodShape[]),
        upsert: (obj) => this.graph.upsertPod(obj as PodShape),
        remove: (obj) => this.graph.removePod(obj as PodShape),
      },
      this.abort.signal,
      { log: this.opts.log },
    ).synced;
    return this.synced;
  }

  /** Ends the watch. */
  stop(): void {
    this.abort.abort();
  }

  async authorize({ user, info }: AuthorizationAttributes): Promise<Verdict> {
    const { isNode, nodeName } = nodeIdentity(user);
    if (!isNode) return NO_OPINION;
    if (!nodeName) return no(`unknown node for user "${user.username}"`);
    if (this.synced) await this.synced;
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
    }
    return this.rules.unscoped.some((r) => ruleAllows(info, r)) ? ALLOW : NO_OPINION;
  }

  /**
   * A node's rules: the static ones, plus its own Lease in the node-lease namespace. Always
   * incomplete: what the graph grants (objects of its pods) is not listed, as upstream lists none.
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
    return { rules, incomplete: true, evaluationError: 'node authorizer does not list the objects a node reaches through its pods' };
  }

  private readNamespaced(nodeName: string, kind: VertexKind, info: RequestInfo): Verdict {
    if (!['get', 'list', 'watch'].includes(info.verb)) return no('can only read resources of this type');
    if (info.subresource) return no('cannot read subresource');
    if (!info.namespace) return no('can only read namespaced object of this type');
    return this.related(nodeName, kind, info);
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
