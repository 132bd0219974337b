import type { ResourceRegistration } from '../../../registry/registration.js';
import { networkingGroup } from '../group.js';
import { ingressClassStrategy } from './strategy.js';

/** networking.<apiDomain>/v1 ingressclasses (cluster-scoped). */
export function ingressClasses(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: networkingGroup(apiDomain),
      version: 'v1',
      resource: 'ingressclasses',
      singularName: 'ingressclass',
      kind: 'IngressClass',
      listKind: 'IngressClassList',
      namespaced: false,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      definitionName: 'io.k8s.api.networking.v1.IngressClass',
    },
    strategy: ingressClassStrategy,
  };
}
