import type { ResourceRegistration } from '../../../registry/registration.js';
import { APPS_GROUP } from '../workload/register.js';
import { controllerRevisionStrategy } from './strategy.js';

/** apps/v1 controllerrevisions. */
export const controllerRevisions: ResourceRegistration = {
  info: {
    group: APPS_GROUP,
    version: 'v1',
    resource: 'controllerrevisions',
    singularName: 'controllerrevision',
    kind: 'ControllerRevision',
    listKind: 'ControllerRevisionList',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    definitionName: 'io.k8s.api.apps.v1.ControllerRevision',
  },
  strategy: controllerRevisionStrategy as ResourceRegistration['strategy'],
};
