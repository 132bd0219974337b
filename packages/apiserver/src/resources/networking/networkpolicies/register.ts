import type { ResourceRegistration } from '../../../registry/registration.js';
import { networkingGroup } from '../group.js';
import { networkPolicyStrategy } from './strategy.js';

/** networking.<apiDomain>/v1 networkpolicies. */
export function networkPolicies(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: networkingGroup(apiDomain),
      version: 'v1',
      resource: 'networkpolicies',
      singularName: 'networkpolicy',
      kind: 'NetworkPolicy',
      listKind: 'NetworkPolicyList',
      namespaced: true,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['netpol'],
      definitionName: 'io.k8s.api.networking.v1.NetworkPolicy',
    },
    strategy: networkPolicyStrategy,
  };
}
