import { ApiError } from '../client/api-client.js';
import type { ControllerContext } from '../index.js';
import { csrCollection } from '../csrsigning/controller.js';
import type { CertificateSigningRequest } from '../csrsigning/reconcile.js';
import { WorkQueue } from '../workqueue/queue.js';
import { collectibleAt, UPSTREAM_RETENTION, type RetentionPeriods } from './reconcile.js';

/**
 * The CSR garbage collector (`csrcleaner`): deletes each request when it becomes garbage
 * (SPEC 3.2), by scheduling a look at that moment rather than polling every hour.
 */
export async function runCsrCleanerController(
  ctx: ControllerContext,
  signal: AbortSignal,
  opts: { periods?: RetentionPeriods; now?: () => number } = {},
): Promise<void> {
  const periods = opts.periods ?? UPSTREAM_RETENTION;
  const now = opts.now ?? Date.now;
  const path = csrCollection(ctx.apiDomain);
  const informer = ctx.informers.informerFor<CertificateSigningRequest>(path);
  const queue = new WorkQueue({ name: 'csrcleaner', metrics: ctx.metrics, logger: ctx.logger });
  informer.onChange((type, csr) => {
    if (type !== 'DELETED') queue.add(csr.metadata.name!);
  });
  await queue.run(async (name) => {
    const csr = informer.get('', name);
    if (!csr) return;
    const at = collectibleAt(csr, periods);
    if (at === undefined) return;
    const wait = at - now();
    if (wait > 0) {
      // Timers are capped so a far deadline is looked at again rather than held for days.
      queue.addAfter(name, Math.min(wait, 60 * 60 * 1000));
      return;
    }
    try {
      // Only the version judged: a request that changed meanwhile is judged again (409).
      await ctx.client.delete(`${path}/${name}`, { preconditions: { uid: csr.metadata.uid, resourceVersion: csr.metadata.resourceVersion } });
      ctx.logger.info({ csr: name }, 'garbage-collected certificate signing request');
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
    }
  }, signal);
}
