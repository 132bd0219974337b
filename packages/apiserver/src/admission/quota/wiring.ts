import { QuotaRegistry, type ResourceQuotaObject } from '@cluster/apimachinery';
import type { RegistrySet } from '../../registry/registry-set.js';
import type { AdmissionPlugin } from '../admission.js';
import { resourceQuotaAdmission, type ResourceQuotaOptions } from '../resource-quota.js';

/**
 * The ResourceQuota plugin over the server's own resourcequotas registry, or undefined when the
 * kind is not served. Quotas are looked up in the watch cache first (a namespace without quotas
 * costs nothing more), then read most-recent, and charged through the status subresource.
 */
export function resourceQuotaPlugin(registries: RegistrySet, apiDomain: string, opts: ResourceQuotaOptions = {}): AdmissionPlugin | undefined {
  const quotas = registries.byResource('', 'resourcequotas');
  if (!quotas) return undefined;
  const items = async (namespace: string, resourceVersion?: string) =>
    (await quotas.list(namespace, { hasSelector: false, ...(resourceVersion ? { resourceVersion } : {}) })).items as ResourceQuotaObject[];
  return resourceQuotaAdmission(
    {
      cached: (namespace) => items(namespace, '0'),
      cachedNow: (namespace) => quotas.listCached(namespace) as ResourceQuotaObject[] | undefined,
      current: (namespace) => items(namespace),
      async updateStatus(rq) {
        await quotas.update(rq.metadata.namespace ?? '', rq.metadata.name ?? '', rq, { dryRun: false, subresource: 'status' });
      },
    },
    new QuotaRegistry(apiDomain),
    opts,
  );
}
