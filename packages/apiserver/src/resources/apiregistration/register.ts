import type { ResourceRegistration } from '../../registry/registration.js';
import { apiServiceStrategy } from './strategy.js';

/** The group of APIService under `apiDomain`. */
export function apiRegistrationGroup(apiDomain: string): string {
  return `apiregistration.${apiDomain}`;
}

/** apiregistration.<apiDomain>/v1 apiservices (cluster-scoped), with `status`. */
export function apiServices(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: apiRegistrationGroup(apiDomain),
      version: 'v1',
      resource: 'apiservices',
      singularName: 'apiservice',
      kind: 'APIService',
      listKind: 'APIServiceList',
      namespaced: false,
      categories: ['api-extensions'],
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      subresources: [{ name: 'status', kind: 'APIService', verbs: ['get', 'patch', 'update'], definitionName: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService' }],
      definitionName: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService',
    },
    strategy: apiServiceStrategy,
  };
}
