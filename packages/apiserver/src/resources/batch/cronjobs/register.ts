import type { ResourceRegistration } from '../../../registry/registration.js';
import { BATCH_GROUP } from '../group.js';
import { cronJobStrategy } from './strategy.js';

/** batch/v1 cronjobs, with `status`. */
export const cronJobs: ResourceRegistration = {
  info: {
    group: BATCH_GROUP,
    version: 'v1',
    resource: 'cronjobs',
    singularName: 'cronjob',
    kind: 'CronJob',
    listKind: 'CronJobList',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['cj'],
    categories: ['all'],
    subresources: [{ name: 'status', kind: 'CronJob', verbs: ['get', 'patch', 'update'], definitionName: 'io.k8s.api.batch.v1.CronJob' }],
    definitionName: 'io.k8s.api.batch.v1.CronJob',
  },
  strategy: cronJobStrategy,
};
