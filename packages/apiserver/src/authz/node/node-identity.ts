import type { UserInfo } from '../../authn/user.js';

/** The group every node agent's identity carries (upstream user.NodesGroup). */
export const NODES_GROUP = 'system:nodes';
/** The username prefix of a node agent (upstream's `system:node:` + node name). */
export const NODE_USER_PREFIX = 'system:node:';

/**
 * Whether `user` is a node agent and which node (upstream's default NodeIdentifier): both the
 * `system:node:` username prefix and the `system:nodes` group are required; either alone is an
 * ordinary user. A node identity with an empty name (`system:node:`) is a node that cannot be
 * matched to any Node (`nodeName` ''). Pure.
 */
export function nodeIdentity(user: UserInfo | undefined): { isNode: boolean; nodeName: string } {
  if (!user || !user.username.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return { isNode: false, nodeName: '' };
  return { isNode: true, nodeName: user.username.slice(NODE_USER_PREFIX.length) };
}

/**
 * The namespace of node heartbeat Leases (upstream `kube-node-lease`, named after the built-in
 * namespaces here as `cluster-system` is after `kube-system`).
 */
export const NODE_LEASE_NAMESPACE = 'cluster-node-lease';
