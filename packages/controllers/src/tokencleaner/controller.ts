import { ApiError } from '../client/api-client.js';
import type { ControllerContext } from '../index.js';
import { delayUntil, nextExpiry } from '../bootstraptoken/expiry.js';
import { BOOTSTRAP_TOKEN_NAMESPACE, bootstrapTokenListPath, type Secret } from '../bootstraptoken/secrets.js';
import { WorkQueue } from '../workqueue/queue.js';
import { expiredTokens } from './reconcile.js';

/**
 * The token cleaner (upstream `tokencleaner`): deletes expired bootstrap token Secrets in
 * `cluster-system`, looking again whenever a token changes and when the next one expires. Each
 * delete carries the Secret's UID as a precondition, so a token re-created under the same name in
 * between is not removed.
 */
export async function runTokenCleaner(ctx: ControllerContext, signal: AbortSignal, now: () => number = Date.now): Promise<void> {
  const informer = ctx.informers.informerFor<Secret>(bootstrapTokenListPath(ctx.apiDomain));
  const queue = new WorkQueue({ name: 'tokencleaner', metrics: ctx.metrics, logger: ctx.logger });
  const KEY = 'tokens';
  informer.onChange(() => queue.add(KEY));
  await queue.run(async () => {
    const secrets = informer.list();
    for (const d of expiredTokens(secrets, ctx.apiDomain, now())) {
      if (signal.aborted) return;
      const body = d.uid ? { preconditions: { uid: d.uid } } : undefined;
      try {
        await ctx.client.delete(`/api/v1/namespaces/${BOOTSTRAP_TOKEN_NAMESPACE}/secrets/${encodeURIComponent(d.name)}`, body);
        ctx.logger.info({ secret: d.name }, 'expired bootstrap token deleted');
      } catch (e) {
        // Gone already, or replaced by a newer Secret of the same name: nothing to do.
        if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
      }
    }
    const wait = delayUntil(nextExpiry(secrets, ctx.apiDomain, now()), now());
    if (wait !== undefined) queue.addAfter(KEY, wait);
  }, signal);
}
