import type { ResourceRegistration } from '../../../registry/registration.js';
import { limitRangeStrategy, resourceQuotaStrategy } from './strategy.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

/** core/v1 limitranges (stored only). */
export const limitRanges: ResourceRegistration = {
  info: {
    group: '',
    version: 'v1',
    resource: 'limitranges',
    singularName: 'limitrange',
    kind: 'LimitRange',
    listKind: 'LimitRangeList',
    namespaced: true,
    verbs: VERBS,
    shortNames: ['limits'],
    definitionName: 'io.k8s.api.core.v1.LimitRange',
  },
  strategy: limitRangeStrategy,
};

/** core/v1 resourcequotas (stored only) with the `status` subresource. */
export const resourceQuotas: ResourceRegistration = {
  info: {
    group: '',
    version: 'v1',
    resource: 'resourcequotas',
    singularName: 'resourcequota',
    kind: 'ResourceQuota',
    listKind: 'ResourceQuotaList',
    namespaced: true,
    verbs: VERBS,
    shortNames: ['quota'],
    subresources: [{ name: 'status', kind: 'ResourceQuota', verbs: ['get', 'patch', 'update'], definitionName: 'io.k8s.api.core.v1.ResourceQuota' }],
    definitionName: 'io.k8s.api.core.v1.ResourceQuota',
  },
  strategy: resourceQuotaStrategy,
};
