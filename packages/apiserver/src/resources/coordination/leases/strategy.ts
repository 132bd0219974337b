import {
  invalid,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type KubeObject,
} from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageOf } from '../../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';

interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    leaseTransitions?: number;
    acquireTime?: string;
    renewTime?: string;
  };
}

const metaOptions = { namespaced: true, nameValidator: 'subdomain' as const };

function validateSpec(lease: Lease): FieldErrorList {
  const errs: FieldErrorList = [];
  const spec = lease.spec ?? {};
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0) {
    errs.push(invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0) {
    errs.push(invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** Lease behaviour (coordination/v1): plain spec, validated durations, Holder/Age columns. */
export const leaseStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: (obj: Lease) => [...validateObjectMeta(obj.metadata, metaOptions), ...validateSpec(obj)],
  validateUpdate: (obj: Lease, old: Lease) => [...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions), ...validateSpec(obj)],
  table: {
    columns: [
      nameColumn,
      { name: 'Holder', type: 'string', format: '', description: 'The current holder of the lease.', priority: 0 },
      ageColumn,
    ],
    cells: (obj: Lease) => [obj.metadata.name ?? '', obj.spec?.holderIdentity ?? '', ageOf(obj.metadata.creationTimestamp, new Date())],
  },
} satisfies ResourceStrategy<Lease>;
