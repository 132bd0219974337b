import type { PolicyRule } from '../authorizer.js';

const READ = ['get', 'list', 'watch'];
const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ apiGroups, resources, verbs });

/**
 * What every node agent may do (upstream bootstrappolicy NodeRules, for the kinds served here,
 * groups under `apiDomain`); also the rules of the `system:node` ClusterRole. The Node authorizer
 * narrows the `scoped` ones to the node's own objects; NodeRestriction admission narrows writes to
 * nodes, pods and leases.
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
      rule(['create', 'update', 'patch'], ['', `events.${d}`], ['events']),
      rule(READ, [''], ['pods']),
      // Mirror pods and pod status (NodeRestriction: only pods bound to itself).
      rule(['create', 'delete'], [''], ['pods']),
      rule(['update', 'patch'], [''], ['pods/status']),
      rule(['get'], [''], ['endpoints']),
      // Client certificate rotation.
      rule(['create', 'get', 'list', 'watch'], [`certificates.${d}`], ['certificatesigningrequests']),
    ],
    scoped: [
      // Only those referenced by pods bound to the node (the Node authorizer's graph).
      rule(READ, [''], ['secrets', 'configmaps']),
      // Only the node's own Lease, in the node-lease namespace.
      rule(['get', 'create', 'update', 'patch', 'delete'], [`coordination.${d}`], ['leases']),
      // Only for service accounts of pods bound to the node; NodeRestriction requires a pod binding.
      rule(['create'], [''], ['serviceaccounts/token']),
    ],
  };
}
