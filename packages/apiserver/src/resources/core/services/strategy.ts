import type { ResourceStrategy, SubresourceStrategy } from '../../../registry/strategy.js';
import { statusUpdate } from '../../../registry/status-update.js';
import { validateObjectMetaUpdate } from '@cluster/apimachinery';
import { carryAllocatedValues, defaultService } from './defaults.js';
import { serviceCells, serviceColumns } from './table.js';
import type { Service } from './types.js';
import { serviceMetaOptions, validateService, validateServiceUpdate } from './validation.js';

const statusStrategy: SubresourceStrategy<Service> = {
  merge: (requested, current) => statusUpdate(requested, current),
  validateUpdate: (obj, old) => validateObjectMetaUpdate(obj.metadata, old.metadata, serviceMetaOptions),
};

/**
 * Service behaviour (core/v1): upstream's defaults, port and type rules, an immutable cluster IP;
 * the cluster IP and node ports themselves come from the allocator (allocator.ts) after validation.
 */
export const serviceStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate(svc: Service) {
    svc.status = { loadBalancer: {} };
    defaultService(svc);
  },
  prepareForUpdate(svc: Service, old: Service) {
    svc.status = old.status ?? { loadBalancer: {} };
    carryAllocatedValues(svc, old);
    defaultService(svc);
  },
  validate: (svc: Service) => validateService(svc),
  validateUpdate: (svc: Service, old: Service) => validateServiceUpdate(svc, old),
  selectableFields: (svc: Service) => ({ 'spec.clusterIP': svc.spec?.clusterIP ?? '', 'spec.type': svc.spec?.type ?? '' }),
  subresources: { status: statusStrategy },
  table: { columns: serviceColumns, cells: serviceCells },
} satisfies ResourceStrategy<Service>;
