import type { ResourceRegistration } from '../../../registry/registration.js';
import { runtimeClassStrategy } from './strategy.js';

/** node.<apiDomain>/v1 runtimeclasses (cluster-scoped). */
export function runtimeClasses(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: `node.${apiDomain}`,
      version: 'v1',
      resource: 'runtimeclasses',
      singularName: 'runtimeclass',
      kind: 'RuntimeClass',
      listKind: 'RuntimeClassList',
      namespaced: false,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      definitionName: 'io.k8s.api.node.v1.RuntimeClass',
    },
    strategy: runtimeClassStrategy,
  };
}
