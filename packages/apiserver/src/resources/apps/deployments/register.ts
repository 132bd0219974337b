import { APPS_GROUP, workloadRegistration } from '../workload/register.js';
import { deploymentStrategy } from './strategy.js';

/** apps/v1 deployments, with `status` and `scale`. */
export const deployments = workloadRegistration(
  {
    group: APPS_GROUP,
    version: 'v1',
    resource: 'deployments',
    singularName: 'deployment',
    kind: 'Deployment',
    listKind: 'DeploymentList',
    shortNames: ['deploy'],
    definitionName: 'io.k8s.api.apps.v1.Deployment',
  },
  deploymentStrategy as never,
  true,
);
