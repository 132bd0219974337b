import type { KubeObject } from '@cluster/apimachinery';
import { ApiError } from '../client/api-client.js';
import type { ControllerContext } from '../index.js';
import type { Namespace } from '../namespace/reconcile.js';
import { WorkQueue } from '../workqueue/queue.js';
import { untilSynced } from '../client/informer.js';
import { DEFAULT_SERVICE_ACCOUNT, defaultServiceAccountFor } from './reconcile.js';

/**
 * The ServiceAccounts controller (upstream `serviceaccount`): every namespace that is not being
 * deleted holds a ServiceAccount `default`, created with the namespace and again whenever it is
 * deleted. Keys are namespace names.
 */
export async function runServiceAccountController(ctx: ControllerContext, signal: AbortSignal): Promise<void> {
  const namespaces = ctx.informers.informerFor<Namespace>('/api/v1/namespaces');
  const accounts = ctx.informers.informerFor<KubeObject>('/api/v1/serviceaccounts');
  const queue = new WorkQueue({ name: 'serviceaccount', metrics: ctx.metrics, logger: ctx.logger });
  namespaces.onChange((type, ns) => {
    if (type !== 'DELETED') queue.add(ns.metadata.name ?? '');
  });
  accounts.onChange((type, sa) => {
    if (type === 'DELETED' && sa.metadata.name === DEFAULT_SERVICE_ACCOUNT) queue.add(sa.metadata.namespace ?? '');
  });
  // Namespaces listed before the accounts were would otherwise be judged against an empty copy.
  if (!(await untilSynced([namespaces.synced, accounts.synced], signal))) return;
  await queue.run(async (name) => {
    const account = defaultServiceAccountFor(namespaces.get('', name), accounts.get(name, DEFAULT_SERVICE_ACCOUNT));
    if (!account || signal.aborted) return;
    try {
      await ctx.client.create(`/api/v1/namespaces/${encodeURIComponent(name)}/serviceaccounts`, account);
      ctx.logger.info({ namespace: name }, 'default service account created');
    } catch (e) {
      // Created meanwhile (409), or the namespace began terminating or went away (403, 404):
      // the informers bring whatever follows.
      if (!(e instanceof ApiError && (e.code === 409 || e.code === 403 || e.code === 404))) throw e;
    }
  }, signal);
}
