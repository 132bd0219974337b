import { workloadRegistration } from '../../apps/workload/register.js';
import { replicationControllerStrategy } from './strategy.js';

/** core/v1 replicationcontrollers, with `status` and `scale`. */
export const replicationControllers = workloadRegistration(
  {
    group: '',
    version: 'v1',
    resource: 'replicationcontrollers',
    singularName: 'replicationcontroller',
    kind: 'ReplicationController',
    listKind: 'ReplicationControllerList',
    shortNames: ['rc'],
    definitionName: 'io.k8s.api.core.v1.ReplicationController',
  },
  replicationControllerStrategy as never,
  true,
);
