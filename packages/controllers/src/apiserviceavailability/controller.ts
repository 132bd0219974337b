import { Counter, Gauge, type Registry } from 'prom-client';
import { ApiError } from '../client/api-client.js';
import { untilSynced } from '../client/informer.js';
import type { ControllerContext } from '../index.js';
import { WorkQueue } from '../workqueue/queue.js';
import { checkDiscovery, type ProxyClientCertificate } from './discovery-check.js';
import { discoveryVerdict, planStatus, reachability, type ApiService, type Endpoints, type Service } from './reconcile.js';

export interface AvailabilitySettings {
  proxyClientCert?: ProxyClientCertificate;
  /** How often every external APIService is checked again (upstream: 30 s). */
  checkPeriodMs?: number;
  /** Where aggregator_unavailable_apiservice{,_total} go. */
  metrics?: Registry;
}

/** Upstream's metrics of the availability controller. */
function availabilityMetrics(registry: Registry | undefined) {
  if (!registry) return undefined;
  const existing = registry.getSingleMetric('aggregator_unavailable_apiservice');
  if (existing) {
    return { gauge: existing as Gauge<'name'>, total: registry.getSingleMetric('aggregator_unavailable_apiservice_total') as Counter<'name' | 'reason'> };
  }
  return {
    gauge: new Gauge({ name: 'aggregator_unavailable_apiservice', help: '[ALPHA] Gauge of APIServices which are marked as unavailable broken down by APIService name.', labelNames: ['name'], registers: [registry] }),
    total: new Counter({ name: 'aggregator_unavailable_apiservice_total', help: '[ALPHA] Counter of APIServices which are marked as unavailable broken down by APIService name and reason.', labelNames: ['name', 'reason'], registers: [registry] }),
  };
}

/**
 * The APIService availability controller (upstream's AvailableConditionController): each
 * APIService is judged when it, its Service or its Endpoints change, and every `checkPeriodMs`:
 * local ones are Available (Local); others must resolve to a ready endpoint and answer a discovery
 * check there. The Available condition is written only when it changes.
 */
export async function runApiServiceAvailability(ctx: ControllerContext, settings: AvailabilitySettings, signal: AbortSignal): Promise<void> {
  const group = `apiregistration.${ctx.apiDomain}`;
  const apiServices = ctx.informers.informerFor<ApiService>(`/apis/${group}/v1/apiservices`);
  const services = ctx.informers.informerFor<Service>('/api/v1/services');
  const endpoints = ctx.informers.informerFor<Endpoints>('/api/v1/endpoints');
  const metrics = availabilityMetrics(settings.metrics);
  const queue = new WorkQueue({ name: 'apiservice-availability', metrics: ctx.metrics, logger: ctx.logger });
  const referencing = (ns: string, name: string) => {
    for (const svc of apiServices.list()) {
      const ref = svc.spec?.service;
      if (ref && ref.namespace === ns && ref.name === name) queue.add(svc.metadata.name ?? '');
    }
  };
  apiServices.onChange((type, svc) => {
    if (type === 'DELETED') metrics?.gauge.remove({ name: svc.metadata.name ?? '' });
    else queue.add(svc.metadata.name ?? '');
  });
  services.onChange((_t, s) => referencing(s.metadata.namespace ?? '', s.metadata.name ?? ''));
  endpoints.onChange((_t, e) => referencing(e.metadata.namespace ?? '', e.metadata.name ?? ''));
  if (!(await untilSynced([apiServices.synced, services.synced, endpoints.synced], signal))) return;
  const period = settings.checkPeriodMs ?? 30_000;
  const timer = setInterval(() => {
    for (const svc of apiServices.list()) if (svc.spec?.service) queue.add(svc.metadata.name ?? '');
  }, period);
  signal.addEventListener('abort', () => clearInterval(timer), { once: true });
  try {
    await queue.run(async (name) => {
      const svc = apiServices.get('', name);
      if (!svc || signal.aborted) return;
      const ref = svc.spec?.service;
      const found = reachability(
        svc,
        ref ? services.get(ref.namespace ?? '', ref.name ?? '') : undefined,
        ref ? endpoints.get(ref.namespace ?? '', ref.name ?? '') : undefined,
      );
      const condition =
        'verdict' in found
          ? found.verdict
          : discoveryVerdict(`/apis/${svc.spec?.group ?? ''}/${svc.spec?.version ?? ''}`, await checkDiscovery(svc, found.endpoint, settings.proxyClientCert));
      if (metrics) {
        metrics.gauge.set({ name }, condition.status === 'True' ? 0 : 1);
        if (condition.status !== 'True') metrics.total.inc({ name, reason: condition.reason ?? '' });
      }
      // The informer's copy may be older than a write made meanwhile: a conflict is judged again.
      const current = apiServices.get('', name) ?? svc;
      const next = planStatus(current, condition, new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
      if (!next || signal.aborted) return;
      try {
        await ctx.client.update(`/apis/${group}/v1/apiservices/${encodeURIComponent(name)}/status`, next);
        ctx.logger.info({ apiservice: name, available: condition.status, reason: condition.reason }, 'APIService availability changed');
      } catch (e) {
        if (e instanceof ApiError && e.code === 409) queue.addAfter(name, 100);
        else if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }, signal);
  } finally {
    clearInterval(timer);
  }
}
