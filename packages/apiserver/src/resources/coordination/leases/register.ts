import type { ResourceRegistration } from '../../../registry/registration.js';
import { leaseStrategy } from './strategy.js';

/** coordination/v1 leases. */
export function leases(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: `coordination.${apiDomain}`,
      version: 'v1',
      resource: 'leases',
      singularName: 'lease',
      kind: 'Lease',
      listKind: 'LeaseList',
      namespaced: true,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      definitionName: 'io.k8s.api.coordination.v1.Lease',
    },
    strategy: leaseStrategy,
  };
}
