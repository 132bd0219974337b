import type { ResourceRegistration } from '../../../registry/registration.js';
import { podStrategy } from './strategy.js';
import { evictionCreater, EVICTION_DEFINITION } from './eviction.js';
import { bindingCreater, legacyBindingCreate, BINDING_DEFINITION } from './binding.js';
import { virtualStrategy } from '../../../registry/virtual-strategy.js';
import type { RegistrySet } from '../../../registry/registry-set.js';

const DEFINITION = 'io.k8s.api.core.v1.Pod';

/**
 * core/v1 pods: stored and validated; nothing runs them. `eviction` (POST a policy/v1 Eviction)
 * deletes a pod as its PodDisruptionBudget allows; `binding` (POST a core/v1 Binding) assigns an
 * unbound pod to a node. Both read the served registries through `registries`.
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
      { name: 'binding', kind: 'Binding', verbs: ['create'], definitionName: BINDING_DEFINITION },
      { name: 'ephemeralcontainers', kind: 'Pod', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION },
      { name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', alsoAcceptedVersions: ['policy/v1beta1'], verbs: ['create'], definitionName: EVICTION_DEFINITION },
      { name: 'status', kind: 'Pod', verbs: ['get', 'patch', 'update'], definitionName: DEFINITION },
    ],
  },
  strategy: podStrategy(apiDomain) as ResourceRegistration['strategy'],
  subresourceCreaters: { binding: bindingCreater(registries), eviction: evictionCreater(registries) },
});

/** core/v1 bindings: the namespaced, create-only collection binding the pod a Binding names (upstream's legacy binding). */
export const bindings = (registries: () => RegistrySet | undefined = () => undefined): ResourceRegistration => ({
  info: {
    group: '',
    version: 'v1',
    resource: 'bindings',
    singularName: 'binding',
    kind: 'Binding',
    listKind: 'BindingList',
    namespaced: true,
    verbs: ['create'],
    definitionName: BINDING_DEFINITION,
  },
  strategy: virtualStrategy(true),
  virtual: legacyBindingCreate(registries),
});
