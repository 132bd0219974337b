import type { ResourceRegistration } from '../../../registry/registration.js';
import { secretStrategy } from './strategy.js';

/** core/v1 secrets. */
export function secrets(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: '',
      version: 'v1',
      resource: 'secrets',
      singularName: 'secret',
      kind: 'Secret',
      listKind: 'SecretList',
      namespaced: true,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      definitionName: 'io.k8s.api.core.v1.Secret',
    },
    strategy: secretStrategy(apiDomain),
  };
}
