import type { ResourceRegistration } from '../../../registry/registration.js';
import { BATCH_GROUP } from '../group.js';
import { jobStrategy } from './strategy.js';

/** batch/v1 jobs, with `status`. */
export const jobs: ResourceRegistration = {
  info: {
    group: BATCH_GROUP,
    version: 'v1',
    resource: 'jobs',
    singularName: 'job',
    kind: 'Job',
    listKind: 'JobList',
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    categories: ['all'],
    subresources: [{ name: 'status', kind: 'Job', verbs: ['get', 'patch', 'update'], definitionName: 'io.k8s.api.batch.v1.Job' }],
    definitionName: 'io.k8s.api.batch.v1.Job',
  },
  strategy: jobStrategy,
};
