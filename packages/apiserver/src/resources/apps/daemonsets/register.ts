import { APPS_GROUP, workloadRegistration } from '../workload/register.js';
import { daemonSetStrategy } from './strategy.js';

/** apps/v1 daemonsets, with `status` (no `scale`: one pod per node). */
export const daemonSets = workloadRegistration(
  {
    group: APPS_GROUP,
    version: 'v1',
    resource: 'daemonsets',
    singularName: 'daemonset',
    kind: 'DaemonSet',
    listKind: 'DaemonSetList',
    shortNames: ['ds'],
    definitionName: 'io.k8s.api.apps.v1.DaemonSet',
  },
  daemonSetStrategy as never,
  false,
);
