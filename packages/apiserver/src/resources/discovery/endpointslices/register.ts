import type { ResourceRegistration } from '../../../registry/registration.js';
import { endpointSliceStrategy } from './strategy.js';

/** discovery.<apiDomain>/v1 endpointslices (what kubectl describe reads a Service's endpoints from). */
export function endpointSlices(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: `discovery.${apiDomain}`,
      version: 'v1',
      resource: 'endpointslices',
      singularName: 'endpointslice',
      kind: 'EndpointSlice',
      listKind: 'EndpointSliceList',
      namespaced: true,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      definitionName: 'io.k8s.api.discovery.v1.EndpointSlice',
    },
    strategy: endpointSliceStrategy,
  };
}
