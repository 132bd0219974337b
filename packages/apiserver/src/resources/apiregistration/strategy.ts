import type { ResourceStrategy } from '../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../tables/columns.js';
import { ageOf } from '../../tables/human-duration.js';
import { column } from '../apps/workload/table.js';
import { reshapeInPlace } from '../core/pod-spec/go-shape.js';
import { statusSubresource } from '../status-subresource.js';
import { availableCondition, type ApiService } from './types.js';
import { defaultApiService, validateApiService, validateApiServiceStatus, validateApiServiceUpdate } from './validation.js';

/** kubectl's SERVICE column: `namespace/name`, or Local. */
function serviceCell(svc: ApiService): string {
  const ref = svc.spec?.service;
  return ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : 'Local';
}

/** kubectl's AVAILABLE column: the condition status, with the reason when not True. */
function availableCell(svc: ApiService): string {
  const c = availableCondition(svc);
  if (!c) return 'Unknown';
  return c.status === 'True' ? 'True' : `${c.status ?? 'Unknown'} (${c.reason ?? ''})`;
}

/**
 * APIService behaviour (apiregistration/v1, cluster-scoped): spec writes leave the status alone and
 * status writes (the `status` subresource, the availability controller's) leave the spec alone.
 */
export const apiServiceStrategy = {
  namespaceScoped: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate(svc: ApiService) {
    svc.spec ??= {};
    svc.status = {};
    defaultApiService(svc);
    reshapeInPlace(svc);
  },
  prepareForUpdate(svc: ApiService, old: ApiService) {
    svc.spec ??= {};
    svc.status = old.status ?? {};
    defaultApiService(svc);
    reshapeInPlace(svc);
  },
  validate: (svc: ApiService) => validateApiService(svc),
  validateUpdate: (svc: ApiService, old: ApiService) => validateApiServiceUpdate(svc, old),
  subresources: { status: statusSubresource<ApiService>({ namespaced: false, nameValidator: 'pathSegment' }, (svc) => validateApiServiceStatus(svc)) },
  table: {
    columns: [
      nameColumn,
      column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
      column('Available', 'string', 'Whether this service is available.'),
      ageColumn,
    ],
    cells: (svc: ApiService) => [svc.metadata.name ?? '', serviceCell(svc), availableCell(svc), ageOf(svc.metadata.creationTimestamp, new Date())],
  },
} satisfies ResourceStrategy<ApiService>;
