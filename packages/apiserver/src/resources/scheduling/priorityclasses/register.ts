import type { ResourceRegistration } from '../../../registry/registration.js';
import { priorityClassStrategy } from './strategy.js';

/** scheduling.<apiDomain>/v1 priorityclasses (cluster-scoped, short name pc). */
export function priorityClasses(apiDomain: string): ResourceRegistration {
  return {
    info: {
      group: `scheduling.${apiDomain}`,
      version: 'v1',
      resource: 'priorityclasses',
      singularName: 'priorityclass',
      kind: 'PriorityClass',
      listKind: 'PriorityClassList',
      namespaced: false,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['pc'],
      definitionName: 'io.k8s.api.scheduling.v1.PriorityClass',
    },
    strategy: priorityClassStrategy,
  };
}
