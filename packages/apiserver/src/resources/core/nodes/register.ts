import type { ResourceRegistration } from '../../../registry/registration.js';
import { nodeStrategy } from './strategy.js';

const DEFINITION = 'io.k8s.api.core.v1.Node';

/** core/v1 nodes (cluster-scoped) with the `status` subresource. */
export const nodes: ResourceRegistration = {
  info: {
    group: '',
    version: 'v1',
    resource: 'nodes',
    singularName: 'node',
    kind: 'Node',
    listKind: 'NodeList',
    namespaced: false,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['no'],
    subresources: [{ name: 'status', kind: 'Node', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION }],
    definitionName: DEFINITION,
  },
  strategy: nodeStrategy,
};
