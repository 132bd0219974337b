import type { ResourceRegistration } from '../../../registry/registration.js';
import { serviceAllocations, type ServiceAllocatorOptions } from './allocator.js';
import { serviceStrategy } from './strategy.js';

const DEFINITION = 'io.k8s.api.core.v1.Service';

/** core/v1 services (+ status), whose cluster IPs and node ports come from the given ranges. */
export function services(ranges: ServiceAllocatorOptions): ResourceRegistration {
  return {
    info: {
      group: '',
      version: 'v1',
      resource: 'services',
      singularName: 'service',
      kind: 'Service',
      listKind: 'ServiceList',
      namespaced: true,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['svc'],
      categories: ['all'],
      subresources: [{ name: 'status', kind: 'Service', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION }],
      definitionName: DEFINITION,
    },
    strategy: serviceStrategy,
    allocations: serviceAllocations(ranges),
  };
}
