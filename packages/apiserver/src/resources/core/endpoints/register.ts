import type { ResourceRegistration } from '../../../registry/registration.js';
import { endpointsStrategy } from './strategy.js';

/** core/v1 endpoints. */
export const endpoints: ResourceRegistration = {
  info: {
    group: '',
    version: 'v1',
    resource: 'endpoints',
    singularName: 'endpoints',
    kind: 'Endpoints',
    listKind: 'EndpointsList',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ep'],
    definitionName: 'io.k8s.api.core.v1.Endpoints',
  },
  strategy: endpointsStrategy,
};
