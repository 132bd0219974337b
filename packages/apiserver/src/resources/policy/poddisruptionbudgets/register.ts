import type { ResourceRegistration } from '../../../registry/registration.js';
import { podDisruptionBudgetStrategy } from './strategy.js';

/** The policy group keeps upstream's bare name `policy`, as apps and batch do (kubectl create pdb). */
export const POLICY_GROUP = 'policy';

/** policy/v1 poddisruptionbudgets, with `status`. */
export const podDisruptionBudgets: ResourceRegistration = {
  info: {
    group: POLICY_GROUP,
    version: 'v1',
    resource: 'poddisruptionbudgets',
    singularName: 'poddisruptionbudget',
    kind: 'PodDisruptionBudget',
    listKind: 'PodDisruptionBudgetList',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['pdb'],
    subresources: [
      { name: 'status', kind: 'PodDisruptionBudget', verbs: ['get', 'patch', 'update'], definitionName: 'io.k8s.api.policy.v1.PodDisruptionBudget' },
    ],
    definitionName: 'io.k8s.api.policy.v1.PodDisruptionBudget',
  },
  strategy: podDisruptionBudgetStrategy,
};
