import {
  child,
  index,
  invalid,
  isDNS1123Subdomain,
  nameIsPathSegment,
  notSupported,
  required,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type NameValidator,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import { isDNS1035Label } from '../core/services/validation.js';
import type { ApiService } from './types.js';

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

/** Upstream's default of ServiceReference.port. */
export const DEFAULT_SERVICE_PORT = 443;

/** The name an APIService must have: `<version>.<group>` (`v1.` for the core group). */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

function metaOptions(svc: ApiService): ObjectMetaOptions {
  const requiredName = apiServiceName(svc.spec?.group ?? '', svc.spec?.version ?? '');
  const nameValidator: NameValidator = (name, prefix) => {
    const segment = nameIsPathSegment(name, prefix);
    if (segment.length > 0) return segment;
    return name === requiredName ? [] : [`must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`];
  };
  return { namespaced: false, nameValidator };
}

/** Fills upstream's defaults (the service port). Mutates `svc`. */
export function defaultApiService(svc: ApiService): void {
  const service = svc.spec?.service;
  if (service && service.port === undefined) service.port = DEFAULT_SERVICE_PORT;
}

/**
 * Upstream's ValidateAPIService: the name is `<version>.<group>`; only v1 may have an empty group;
 * the group is a DNS subdomain and the version a DNS-1035 label; both priorities are in range;
 * a local APIService has no caBundle nor insecureSkipTLSVerify; a service reference names a
 * namespace and a name (and a valid port); caBundle and insecureSkipTLSVerify exclude each other.
 */
export function validateApiService(svc: ApiService): FieldErrorList {
  const errs = validateObjectMeta(svc.metadata, metaOptions(svc));
  const spec = svc.spec ?? {};
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  if (group === '' && version !== 'v1') errs.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const m of isDNS1123Subdomain(group)) errs.push(invalid('spec.group', group, m));
  for (const m of isDNS1035Label(version)) errs.push(invalid('spec.version', version, m));
  const gpm = spec.groupPriorityMinimum ?? 0;
  if (!Number.isInteger(gpm) || gpm <= 0 || gpm > 20000) errs.push(invalid('spec.groupPriorityMinimum', gpm, 'must be positive and less than 20000'));
  const vp = spec.versionPriority ?? 0;
  if (!Number.isInteger(vp) || vp <= 0 || vp > 1000) errs.push(invalid('spec.versionPriority', vp, 'must be positive and less than 1000'));
  const caBundle = spec.caBundle ?? '';
  const service = spec.service;
  if (!service) {
    if (caBundle.length > 0) errs.push(invalid('spec.caBundle', `${Buffer.from(caBundle, 'base64').length} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify) errs.push(invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (!service.namespace) errs.push(required('spec.service.namespace'));
  if (!service.name) errs.push(required('spec.service.name'));
  const port = service.port;
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) {
    errs.push(invalid('spec.service.port', port, 'must be a valid port number (1-65535, inclusive)'));
  }
  if (spec.insecureSkipTLSVerify && caBundle.length > 0) errs.push(invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

/** Upstream's ValidateAPIServiceUpdate: metadata update rules plus the create rules. */
export function validateApiServiceUpdate(svc: ApiService, old: ApiService): FieldErrorList {
  return [...validateObjectMetaUpdate(svc.metadata, old.metadata, metaOptions(svc)), ...validateApiService(svc)];
}

/** Upstream's ValidateAPIServiceStatus: each condition status is True, False or Unknown. */
export function validateApiServiceStatus(svc: ApiService): FieldErrorList {
  const errs: FieldErrorList = [];
  (svc.status?.conditions ?? []).forEach((c, i) => {
    if (!CONDITION_STATUSES.includes(c.status ?? '')) errs.push(notSupported(child(index('status.conditions', i), 'status'), c.status ?? '', CONDITION_STATUSES));
  });
  return errs;
}
