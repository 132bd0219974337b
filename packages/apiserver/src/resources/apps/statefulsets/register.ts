import { APPS_GROUP, workloadRegistration } from '../workload/register.js';
import { statefulSetStrategy } from './strategy.js';

/** apps/v1 statefulsets, with `status` and `scale`. */
export const statefulSets = workloadRegistration(
  {
    group: APPS_GROUP,
    version: 'v1',
    resource: 'statefulsets',
    singularName: 'statefulset',
    kind: 'StatefulSet',
    listKind: 'StatefulSetList',
    shortNames: ['sts'],
    definitionName: 'io.k8s.api.apps.v1.StatefulSet',
  },
  statefulSetStrategy as never,
  true,
);
