import type { ResourceRegistration } from '../../../registry/registration.js';
import { namespaceStrategy } from './strategy.js';

/** core/v1 namespaces. */
export const namespaces: ResourceRegistration = {
  info: {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    singularName: 'namespace',
    kind: 'Namespace',
    listKind: 'NamespaceList',
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ns'],
    definitionName: 'io.k8s.api.core.v1.Namespace',
    subresources: [
      { name: 'finalize', kind: 'Namespace', verbs: ['update'], definitionName: 'io.k8s.api.core.v1.Namespace' },
      { name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'], definitionName: 'io.k8s.api.core.v1.Namespace' },
    ],
  },
  strategy: namespaceStrategy as ResourceRegistration['strategy'],
};
