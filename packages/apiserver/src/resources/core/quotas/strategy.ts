import {
  child,
  index,
  invalid,
  isQualifiedName,
  notSupported,
  required,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type KubeObject,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import type { ResourceStrategy, SubresourceStrategy } from '../../../registry/strategy.js';
import { statusUpdate } from '../../../registry/status-update.js';
import { validateLimitRangeQuantities } from './limit-range-validation.js';
import { ageOf } from '../../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';

type ResourceList = Record<string, string>;

export interface LimitRange extends KubeObject {
  spec?: { limits?: Array<{ type?: string; max?: ResourceList; min?: ResourceList; default?: ResourceList; defaultRequest?: ResourceList; maxLimitRequestRatio?: ResourceList }> };
}

export interface ResourceQuota extends KubeObject {
  spec?: { hard?: ResourceList; scopes?: string[]; scopeSelector?: { matchExpressions?: Array<{ scopeName?: string; operator?: string; values?: string[] }> } };
  status?: { hard?: ResourceList; used?: ResourceList };
}

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain', coreFinalizers: true };
const LIMIT_TYPES = ['Container', 'PersistentVolumeClaim', 'Pod'];
const QUOTA_SCOPES = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating', 'VolumeAttributesClass'];
const SCOPE_OPERATORS = ['DoesNotExist', 'Exists', 'In', 'NotIn'];

function validateResourceNames(list: ResourceList | undefined, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const name of Object.keys(list ?? {})) {
    for (const msg of isQualifiedName(name)) errs.push(invalid(`${path}[${name}]`, name, msg));
  }
  return errs;
}

function validateLimits(lr: LimitRange): FieldErrorList {
  const errs: FieldErrorList = [];
  (lr.spec?.limits ?? []).forEach((item, i) => {
    const path = index('spec.limits', i);
    if (!item.type) errs.push(required(child(path, 'type')));
    else if (!LIMIT_TYPES.includes(item.type) && isQualifiedName(item.type).length > 0) errs.push(notSupported(child(path, 'type'), item.type, LIMIT_TYPES));
    for (const f of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const) errs.push(...validateResourceNames(item[f], child(path, f)));
    if (item.type === 'Pod' && (item.default || item.defaultRequest)) {
      errs.push(invalid(child(path, item.default ? 'default' : 'defaultRequest'), item.default ?? item.defaultRequest, 'may not be specified when `type` is \'Pod\''));
    }
  });
  errs.push(...validateLimitRangeQuantities(lr.spec?.limits ?? []));
  return errs;
}

function validateQuota(rq: ResourceQuota): FieldErrorList {
  const errs = validateResourceNames(rq.spec?.hard, 'spec.hard');
  (rq.spec?.scopes ?? []).forEach((s, i) => {
    if (!QUOTA_SCOPES.includes(s)) errs.push(notSupported(index('spec.scopes', i), s, QUOTA_SCOPES));
  });
  (rq.spec?.scopeSelector?.matchExpressions ?? []).forEach((e, i) => {
    const path = index('spec.scopeSelector.matchExpressions', i);
    if (!QUOTA_SCOPES.includes(e.scopeName ?? '')) errs.push(notSupported(child(path, 'scopeName'), e.scopeName ?? '', QUOTA_SCOPES));
    if (!SCOPE_OPERATORS.includes(e.operator ?? '')) errs.push(notSupported(child(path, 'operator'), e.operator ?? '', SCOPE_OPERATORS));
  });
  errs.push(...validateResourceNames(rq.status?.hard, 'status.hard'), ...validateResourceNames(rq.status?.used, 'status.used'));
  return errs;
}

/**
 * Upstream's SetDefaults_LimitRangeItem for Container items: a default limit from max, a default
 * request from the default limit, else from min. Mutates lr.
 */
function defaultLimitRange(lr: LimitRange): void {
  lr.spec ??= {};
  for (const item of lr.spec.limits ?? []) {
    if (item.type !== 'Container') continue;
    const defaults: ResourceList = { ...item.max, ...item.default };
    const requests: ResourceList = { ...item.min, ...defaults, ...item.defaultRequest };
    if (Object.keys(defaults).length > 0) item.default = defaults;
    if (Object.keys(requests).length > 0) item.defaultRequest = requests;
  }
}

/** LimitRange behaviour (core/v1): defaulted and validated; the LimitRanger admission applies it to pods. */
export const limitRangeStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate: defaultLimitRange,
  prepareForUpdate: defaultLimitRange,
  validate: (lr: LimitRange) => [...validateObjectMeta(lr.metadata, metaOptions), ...validateLimits(lr)],
  validateUpdate: (lr: LimitRange, old: LimitRange) => [...validateObjectMetaUpdate(lr.metadata, old.metadata, metaOptions), ...validateLimits(lr)],
  table: {
    columns: [nameColumn, { name: 'Created At', type: 'date', format: '', description: 'When the object was created.', priority: 0 }],
    cells: (lr: LimitRange) => [lr.metadata.name ?? '', lr.metadata.creationTimestamp ?? ''],
  },
} satisfies ResourceStrategy<LimitRange>;

/** REQUEST / LIMIT cells as upstream's printer: `name: used/hard` for each hard resource, limits.* in LIMIT. */
export function quotaUsage(rq: ResourceQuota): { request: string; limit: string } {
  const hard = rq.status?.hard ?? {};
  const used = rq.status?.used ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const text = `${name}: ${used[name] ?? '0'}/${hard[name]}`;
    (name.startsWith('limits.') ? limit : request).push(text);
  }
  return { request: request.join(', '), limit: limit.join(', ') };
}

const quotaStatus: SubresourceStrategy<ResourceQuota> = {
  merge: (requested, current) => statusUpdate(requested, current),
  validateUpdate: (rq, old) => [...validateObjectMetaUpdate(rq.metadata, old.metadata, metaOptions), ...validateQuota(rq)],
};

/** ResourceQuota behaviour (core/v1): stored only (nothing computes usage), status via its subresource. */
export const resourceQuotaStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  // status is a value struct: upstream's JSON shows `status: {}` until usage is written.
  prepareForCreate(rq: ResourceQuota) {
    rq.spec ??= {};
    rq.status = {};
  },
  prepareForUpdate(rq: ResourceQuota, old: ResourceQuota) {
    rq.spec ??= {};
    rq.status = old.status ?? {};
  },
  validate: (rq: ResourceQuota) => [...validateObjectMeta(rq.metadata, metaOptions), ...validateQuota(rq)],
  validateUpdate: (rq: ResourceQuota, old: ResourceQuota) => [...validateObjectMetaUpdate(rq.metadata, old.metadata, metaOptions), ...validateQuota(rq)],
  subresources: { status: quotaStatus },
  table: {
    columns: [
      nameColumn,
      ageColumn,
      { name: 'Request', type: 'string', format: '', description: 'Request represents a minimum amount of cpu/memory that a container may consume.', priority: 0 },
      { name: 'Limit', type: 'string', format: '', description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.', priority: 0 },
    ],
    cells: (rq: ResourceQuota) => {
      const { request, limit } = quotaUsage(rq);
      return [rq.metadata.name ?? '', ageOf(rq.metadata.creationTimestamp, new Date()), request, limit];
    },
  },
} satisfies ResourceStrategy<ResourceQuota>;
