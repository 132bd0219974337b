import { ApiError } from '../client/api-client.js';
import type { ControllerContext } from '../index.js';
import { delayUntil, nextExpiry } from '../bootstraptoken/expiry.js';
import { bootstrapTokenListPath, type Secret } from '../bootstraptoken/secrets.js';
import { WorkQueue } from '../workqueue/queue.js';
import { clusterInfoKubeconfig, type ClusterInfoSource } from './kubeconfig.js';
import { CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE, reconcileClusterInfo, type ConfigMap } from './reconcile.js';

const CLUSTER_INFO_PATH = `/api/v1/namespaces/${CLUSTER_INFO_NAMESPACE}/configmaps`;

/**
 * The bootstrap signer (upstream `bootstrapsigner`): keeps `cluster-public/cluster-info` holding
 * the cluster's public kubeconfig signed by every signing bootstrap token (SPEC 4.12). Looks again
 * whenever a token or cluster-info changes and when the next token expires. A write that meets a
 * conflict is planned again when the informer brings the newer cluster-info.
 */
export async function runBootstrapSigner(
  ctx: ControllerContext,
  cluster: ClusterInfoSource,
  signal: AbortSignal,
  now: () => number = Date.now,
): Promise<void> {
  const kubeconfig = clusterInfoKubeconfig(cluster);
  const tokens = ctx.informers.informerFor<Secret>(bootstrapTokenListPath(ctx.apiDomain));
  const clusterInfo = ctx.informers.informerFor<ConfigMap>(`${CLUSTER_INFO_PATH}?fieldSelector=${encodeURIComponent(`metadata.name=${CLUSTER_INFO_NAME}`)}`);
  const queue = new WorkQueue({ name: 'bootstrapsigner', metrics: ctx.metrics, logger: ctx.logger });
  const KEY = CLUSTER_INFO_NAME;
  tokens.onChange(() => queue.add(KEY));
  clusterInfo.onChange(() => queue.add(KEY));
  // The first pass may have to create cluster-info, which no event would announce.
  void Promise.all([tokens.synced, clusterInfo.synced]).then(() => queue.add(KEY));
  await queue.run(async () => {
    const secrets = tokens.list();
    const current = clusterInfo.get(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME);
    const plan = await reconcileClusterInfo({ current, secrets, kubeconfig, apiDomain: ctx.apiDomain, now: now() });
    const wait = delayUntil(nextExpiry(secrets, ctx.apiDomain, now()), now());
    if (wait !== undefined) queue.addAfter(KEY, wait);
    if (plan.op === 'none' || signal.aborted) return;
    try {
      if (plan.op === 'create') await ctx.client.create(CLUSTER_INFO_PATH, plan.object);
      else await ctx.client.update(`${CLUSTER_INFO_PATH}/${CLUSTER_INFO_NAME}`, plan.object);
      ctx.logger.info({ op: plan.op }, 'cluster-info written');
    } catch (e) {
      if (!(e instanceof ApiError && (e.code === 409 || e.code === 404))) throw e;
    }
  }, signal);
}
