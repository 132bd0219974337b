import { ApiError } from '../client/api-client.js';
import type { ControllerContext } from '../index.js';
import { WorkQueue } from '../workqueue/queue.js';
import { discoverNamespacedCollections } from './discover.js';
import { reconcileNamespace, type Namespace } from './reconcile.js';

/**
 * The namespace finalizer: empties namespaces that are being deleted and then finalizes them.
 * Acts on namespace changes from the shared informer; a namespace still waiting for its contents
 * (objects held by finalizers) is looked at again after `retryMs`. Each pass re-reads discovery so
 * new resources are covered.
 */
export async function runNamespaceController(ctx: ControllerContext, signal: AbortSignal, retryMs = 1_000): Promise<void> {
  const informer = ctx.informers.informerFor<Namespace>('/api/v1/namespaces');
  const queue = new WorkQueue({ name: 'namespace', metrics: ctx.metrics, logger: ctx.logger });
  informer.onChange((type, ns) => {
    if (type !== 'DELETED' && ns.metadata.deletionTimestamp) queue.add(ns.metadata.name!);
  });
  await queue.run(async (name) => {
    const ns = informer.get('', name);
    if (!ns?.metadata.deletionTimestamp) return;
    try {
      const result = await reconcileNamespace(ctx.client, ns, await discoverNamespacedCollections(ctx.client));
      if (result === 'done') ctx.logger.info({ namespace: name }, 'namespace finalized');
      else if (result === 'waiting') queue.addAfter(name, retryMs);
    } catch (err) {
      // Finalized or changed meanwhile: the informer brings the new state.
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }, signal);
}
