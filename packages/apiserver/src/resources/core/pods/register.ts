import type { ResourceRegistration } from '../../../registry/registration.js';
import { podStrategy } from './strategy.js';

const DEFINITION = 'io.k8s.api.core.v1.Pod';

/** core/v1 pods: stored and validated; nothing runs them. */
export const pods = (apiDomain: string): ResourceRegistration => ({
  info: {
    group: '',
    version: 'v1',
    resource: 'pods',
    singularName: 'pod',
    kind: 'Pod',
    listKind: 'PodList',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['po'],
    categories: ['all'],
    definitionName: DEFINITION,
    subresources: [
      { name: 'ephemeralcontainers', kind: 'Pod', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION },
      { name: 'status', kind: 'Pod', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION },
    ],
  },
  strategy: podStrategy(apiDomain) as ResourceRegistration['strategy'],
});
