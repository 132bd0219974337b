import type { ResourceRegistration } from '../../../registry/registration.js';
import { podStrategy } from './strategy.js';
import { evictionCreater, EVICTION_DEFINITION } from './eviction.js';
import type { RegistrySet } from '../../../registry/registry-set.js';

const DEFINITION = 'io.k8s.api.core.v1.Pod';

/**
 * core/v1 pods: stored and validated; nothing runs them. `eviction` (POST a policy/v1 Eviction)
 * deletes a pod as its PodDisruptionBudget allows; it reads the served registries through `registries`.
 */
export const pods = (apiDomain: string, registries: () => RegistrySet | undefined = () => undefined): ResourceRegistration => ({
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
      { name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'], definitionName: EVICTION_DEFINITION },
      { name: 'status', kind: 'Pod', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION },
    ],
  },
  strategy: podStrategy(apiDomain) as ResourceRegistration['strategy'],
  subresourceCreaters: { eviction: evictionCreater(registries) },
});
