import { flowControlBootstrap, flowControlGroup, type FlowSchema, type PriorityLevelConfiguration } from '@cluster/apimachinery';
import { ApiError } from '../client/api-client.js';
import { untilSynced } from '../client/informer.js';
import type { ControllerContext } from '../index.js';
import { WorkQueue } from '../workqueue/queue.js';
import { planFlowControlWrites } from './reconcile.js';

/** How often the keeper looks again even without changes (upstream re-ensures periodically). */
const RESYNC_MS = 60_000;

/**
 * The flow-control configuration keeper (upstream's APF configuration ensurer and the Dangling
 * condition writer): keeps the mandatory and suggested flow schemas and priority levels stored
 * as the bootstrap configuration says, honouring `apf.kubernetes.io/autoupdate-spec`, and sets
 * each flow schema's Dangling condition. One key: every change replans the whole (small) set.
 */
export async function runFlowControlKeeper(ctx: ControllerContext, signal: AbortSignal): Promise<void> {
  const group = flowControlGroup(ctx.apiDomain);
  const base = `/apis/${group}/v1beta2`;
  const schemas = ctx.informers.informerFor<FlowSchema>(`${base}/flowschemas`);
  const levels = ctx.informers.informerFor<PriorityLevelConfiguration>(`${base}/prioritylevelconfigurations`);
  const queue = new WorkQueue({ name: 'flowcontrol-keeper', metrics: ctx.metrics, logger: ctx.logger });
  const KEY = 'config';
  schemas.onChange(() => queue.add(KEY));
  levels.onChange(() => queue.add(KEY));
  if (!(await untilSynced([schemas.synced, levels.synced], signal))) return;
  queue.add(KEY);
  const timer = setInterval(() => queue.add(KEY), RESYNC_MS);
  signal.addEventListener('abort', () => clearInterval(timer), { once: true });
  await queue.run(async () => {
    const writes = planFlowControlWrites(
      { bootstrap: flowControlBootstrap(ctx.apiDomain), flowSchemas: schemas.list(), priorityLevels: levels.list(), now: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
      `${group}/v1beta2`,
    );
    for (const w of writes) {
      if (signal.aborted) return;
      const collection = `${base}/${w.resource}`;
      const name = encodeURIComponent(w.object.metadata.name ?? '');
      try {
        if (w.op === 'create') await ctx.client.create(collection, w.object);
        else if (w.op === 'update') await ctx.client.update(`${collection}/${name}`, w.object);
        else if (w.op === 'delete') {
          const { uid, resourceVersion } = w.object.metadata;
          await ctx.client.delete(`${collection}/${name}`, { preconditions: { ...(uid ? { uid } : {}), ...(resourceVersion ? { resourceVersion } : {}) } });
        }
        else await ctx.client.update(`${collection}/${name}/status`, w.object);
        ctx.logger.info({ resource: w.resource, name: w.object.metadata.name, op: w.op }, 'flow-control configuration written');
      } catch (e) {
        // Written meanwhile (409) or gone (404): the informers bring the newer state and a new plan.
        if (!(e instanceof ApiError && (e.code === 409 || e.code === 404))) throw e;
      }
    }
  }, signal);
}
