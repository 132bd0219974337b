import { APPS_GROUP, workloadRegistration } from '../workload/register.js';
import { replicaSetStrategy } from './strategy.js';

/** apps/v1 replicasets, with `status` and `scale`. */
export const replicaSets = workloadRegistration(
  {
    group: APPS_GROUP,
    version: 'v1',
    resource: 'replicasets',
    singularName: 'replicaset',
    kind: 'ReplicaSet',
    listKind: 'ReplicaSetList',
    shortNames: ['rs'],
    definitionName: 'io.k8s.api.apps.v1.ReplicaSet',
  },
  replicaSetStrategy as never,
  true,
);
