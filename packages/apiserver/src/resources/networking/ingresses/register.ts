import type { ResourceRegistration } from '../../../registry/registration.js';
import { networkingGroup } from '../group.js';
import { ingressStrategy } from './strategy.js';

/** networking.<apiDomain>/v1 ingresses, with `status`. */
export function ingresses(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: networkingGroup(apiDomain),
      version: 'v1',
      resource: 'ingresses',
      singularName: 'ingress',
      kind: 'Ingress',
      listKind: 'IngressList',
      namespaced: true,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ing'],
      subresources: [{ name: 'status', kind: 'Ingress', verbs: ['get', 'patch', 'update'], definitionName: 'io.k8s.api.networking.v1.Ingress' }],
      definitionName: 'io.k8s.api.networking.v1.Ingress',
    },
    strategy: ingressStrategy,
  };
}
