import {
  calculateUsage,
  countedResource,
  evaluatorsFor,
  QuotaRegistry,
  type KubeObject,
  type QuotaEvaluator,
  type ResourceQuotaObject,
} from '@cluster/apimachinery';
import { ApiError } from '../client/api-client.js';
import { untilSynced } from '../client/informer.js';
import type { ControllerContext } from '../index.js';
import { WorkQueue } from '../workqueue/queue.js';
import { QuotableResources } from './discovery.js';
import { METADATA_ONLY, needsWholeObjects, QuotaMonitors, type ServedResource } from './monitors.js';
import { planQuotaStatus, quotaNeedsSync, quotasToReplenish, resourcesCounted } from './reconcile.js';

export interface ResourceQuotaControllerOptions {
  /** Full recalculation of every quota (upstream's --resource-quota-sync-period, 5 min). */
  resyncMs?: number;
  now?: () => Date;
}

const CONFLICT_RETRY_MS = 200;
const UNSERVED_RETRY_MS = 2_000;
const UNSERVED_RETRY_MAX_MS = 5 * 60_000;

const keyOf = (rq: KubeObject) => `${rq.metadata.namespace ?? ''}/${rq.metadata.name ?? ''}`;

/**
 * The resource quota controller (upstream `resourcequota`): keeps each ResourceQuota's
 * `status.hard` equal to `spec.hard` and `status.used` equal to what the namespace's objects use,
 * by listing them through the API. A quota is recomputed when it is created or its limits change,
 * when objects it counts are deleted (or a pod stops being charged, or a service changes type),
 * and every `resyncMs`. Creations are charged by the ResourceQuota admission plugin, not here.
 * Status is written with the read resourceVersion: a conflict (a charge or another writer) is
 * retried from the newer copy.
 */
export async function runResourceQuotaController(ctx: ControllerContext, signal: AbortSignal, opts: ResourceQuotaControllerOptions = {}): Promise<void> {
  const now = opts.now ?? (() => new Date());
  const resyncMs = opts.resyncMs ?? 5 * 60_000;
  const registry = new QuotaRegistry(ctx.apiDomain);
  const builtin = registry.builtin();
  const discovery = new QuotableResources(ctx.client);
  const quotas = ctx.informers.informerFor<ResourceQuotaObject>('/api/v1/resourcequotas');
  const queue = new WorkQueue({ name: 'resourcequota', metrics: ctx.metrics, logger: ctx.logger });
  const inNamespace = (ns: string) => quotas.list().filter((q) => ns === '' || q.metadata.namespace === ns);

  const replenish = (group: string, resource: string, namespace: string) => {
    const ev = registry.evaluatorFor(group, resource);
    if (ev) for (const rq of quotasToReplenish(inNamespace(namespace), ev)) queue.add(keyOf(rq));
  };
  const monitors = new QuotaMonitors(ctx.client, ctx.logger, replenish, now);
  let monitorsDirty = true;
  const syncMonitors = async () => {
    if (!monitorsDirty || signal.aborted) return;
    monitorsDirty = false;
    const wanted: ServedResource[] = [];
    for (const key of resourcesCounted(quotas.list(), builtin)) {
      const [group, resource] = key.split('/') as [string, string];
      const served = await discovery.lookup(group, resource).catch(() => undefined);
      if (served) wanted.push(served);
    }
    monitors.sync(wanted, signal);
  };

  const measurable = (name: string) => builtin.some((e) => e.matchingResources([name]).length > 0) || !!countedResource(name);
  quotas.onChange((type, rq) => {
    monitorsDirty = true;
    if (type === 'ADDED' || (type === 'MODIFIED' && quotaNeedsSync(rq, measurable))) queue.add(keyOf(rq));
  });
  if (!(await untilSynced([quotas.synced], signal))) return;

  const resync = setInterval(() => {
    monitorsDirty = true;
    for (const rq of quotas.list()) queue.add(keyOf(rq));
  }, resyncMs);
  resync.unref?.();
  signal.addEventListener('abort', () => clearInterval(resync), { once: true });

  /** The objects of `ev`'s resource in the namespace, or undefined when they cannot be listed. */
  const listItems = async (ev: QuotaEvaluator, namespace: string): Promise<KubeObject[] | undefined> => {
    const served = await discovery.lookup(ev.group, ev.resource).catch(() => undefined);
    if (!served) return undefined;
    const base = served.path.slice(0, served.path.length - served.resource.length - 1);
    try {
      const path = `${base}/namespaces/${encodeURIComponent(namespace)}/${served.resource}`;
      // Object counts need only the metadata of what they count.
      const list = await ctx.client.list<KubeObject>(path, needsWholeObjects(ev.group, ev.resource) ? undefined : METADATA_ONLY.list);
      return list.items;
    } catch (err) {
      ctx.logger.warn({ err, resource: `${ev.resource}.${ev.group}`, namespace }, 'quota usage: listing failed');
      return undefined;
    }
  };

  const unservedRetry = new Map<string, number>();
  await queue.run(async (key) => {
    await syncMonitors();
    const [namespace, name] = key.split('/') as [string, string];
    const rq = quotas.get(namespace, name);
    if (!rq || signal.aborted) return void unservedRetry.delete(key);
    const hard = Object.keys(rq.spec?.hard ?? {});
    const servedCounts = new Set<string>();
    let unknown = false;
    for (const n of hard) {
      const gr = countedResource(n);
      if (!gr) continue;
      if (await discovery.lookup(gr.group, gr.resource).catch(() => undefined)) servedCounts.add(`${gr.group}/${gr.resource}`);
      else unknown = true;
    }
    // A count of a resource not served (yet: a custom resource about to be defined) is looked
    // for again, less and less often, until it is served.
    if (unknown) {
      const delay = Math.min((unservedRetry.get(key) ?? UNSERVED_RETRY_MS / 2) * 2, UNSERVED_RETRY_MAX_MS);
      unservedRetry.set(key, delay);
      queue.addAfter(key, delay);
    } else unservedRetry.delete(key);
    const evaluators = evaluatorsFor(hard, builtin, (g, r) => servedCounts.has(`${g}/${r}`));
    const items = new Map<QuotaEvaluator, KubeObject[] | undefined>();
    await Promise.all(evaluators.map(async (ev) => items.set(ev, await listItems(ev, namespace))));
    const plan = planQuotaStatus(rq, calculateUsage(rq, evaluators, (ev) => items.get(ev), now()));
    if (plan.op === 'none') return;
    try {
      await ctx.client.update(`/api/v1/namespaces/${encodeURIComponent(namespace)}/resourcequotas/${encodeURIComponent(name)}/status`, plan.object);
    } catch (e) {
      // Gone meanwhile: nothing to count.
      if (e instanceof ApiError && e.code === 404) return;
      // Charged by admission or written by another controller since it was read: counted again
      // once the informer holds the newer copy (an expected race, not an error worth a warning).
      if (e instanceof ApiError && e.code === 409) return queue.addAfter(key, CONFLICT_RETRY_MS);
      throw e;
    }
  }, signal);
}
