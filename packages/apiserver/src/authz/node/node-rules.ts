import type { PolicyRule } from '../authorizer.js';

const READ = ['get', 'list', 'watch'];
const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ apiGroups, resources, verbs });

/**
 * What every node agent may do (upstream bootstrappolicy NodeRules, v1.24, groups under
 * `apiDomain`); together they are the rules of the `system:node` ClusterRole. The Node authorizer
 * judges the `scoped` kinds itself, narrowed to the node's own objects and never by these rules;
 * the `unscoped` ones it applies as they stand. NodeRestriction admission narrows the writes both
 * allow (nodes, pods, pod evictions, claim status, leases, CSINodes, tokens).
 */
export function nodeRules(apiDomain: string): { unscoped: PolicyRule[]; scoped: PolicyRule[] } {
  const d = apiDomain;
  return {
    unscoped: [
      // Checking API access (creates that change nothing).
      rule(['create'], [`authentication.${d}`], ['tokenreviews']),
      rule(['create'], [`authorization.${d}`], ['subjectaccessreviews', 'localsubjectaccessreviews']),
      // Service environment variables of pods.
      rule(READ, [''], ['services']),
      // Registering the Node and reporting its status (NodeRestriction: only its own).
      rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
      rule(['update', 'patch'], [''], ['nodes/status']),
      rule(['update', 'patch'], [''], ['nodes']),
      // Core events only, as upstream: the node agent records with core/v1.
      rule(['create', 'update', 'patch'], [''], ['events']),
      rule(READ, [''], ['pods']),
      // Mirror pods, pod status and evictions (NodeRestriction: only pods bound to itself).
      rule(['create', 'delete'], [''], ['pods']),
      rule(['update', 'patch'], [''], ['pods/status']),
      rule(['create'], [''], ['pods/eviction']),
      // Volumes that name endpoints (upstream's glusterfs); not narrowed upstream either.
      rule(['get'], [''], ['endpoints']),
      // Client certificate rotation.
      rule(['create', 'get', 'list', 'watch'], [`certificates.${d}`], ['certificatesigningrequests']),
      // CSI drivers and runtime classes the node agent follows.
      rule(['get', 'watch', 'list'], [`storage.${d}`], ['csidrivers']),
      rule(READ, [`node.${d}`], ['runtimeclasses']),
    ],
    scoped: [
      // Only those referenced by pods bound to the node (the Node authorizer's graph).
      rule(READ, [''], ['secrets', 'configmaps']),
      // Only claims used by pods bound to the node, and the PVs bound to them (get of one object).
      rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
      // Only the node's own Lease, in the node-lease namespace.
      rule(['get', 'create', 'update', 'patch', 'delete'], [`coordination.${d}`], ['leases']),
      // Only attachments to the node (get of one object).
      rule(['get'], [`storage.${d}`], ['volumeattachments']),
      // Only for service accounts of pods bound to the node; NodeRestriction requires a pod binding.
      rule(['create'], [''], ['serviceaccounts/token']),
      // Volume expansion: only the status of claims used by pods bound to the node (update/patch).
      rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
      // Only the CSINode named after the node (NodeRestriction checks the name of a create).
      rule(['get', 'create', 'update', 'patch', 'delete'], [`storage.${d}`], ['csinodes']),
    ],
  };
}
