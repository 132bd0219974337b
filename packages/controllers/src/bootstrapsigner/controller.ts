import type { Logger } from 'pino';
import { ApiError, type ApiClient } from '../client/api-client.js';
import { bootstrapTokenListPath, type Secret } from '../bootstraptoken/secrets.js';
import { runPeriodically } from '../loop/poll.js';
import { clusterInfoKubeconfig, type ClusterInfoSource } from './kubeconfig.js';
import { CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE, reconcileClusterInfo, type ConfigMap } from './reconcile.js';

export interface BootstrapSignerOptions {
  client: ApiClient;
  logger: Logger;
  apiDomain: string;
  /** Server URL and cluster CA written into `cluster-info`'s kubeconfig. */
  cluster: ClusterInfoSource;
  /** How often tokens and cluster-info are compared. */
  resyncMs: number;
  /** Clock in ms; Date.now by default. */
  now?: () => number;
}

const CLUSTER_INFO_PATH = `/api/v1/namespaces/${CLUSTER_INFO_NAMESPACE}/configmaps`;

/**
 * The bootstrap signer (upstream `bootstrapsigner`): keeps `cluster-public/cluster-info` holding
 * the cluster's public kubeconfig signed by every signing bootstrap token (SPEC 4.12). Runs while
 * its replica leads. A write that meets a conflict (someone else wrote first) is simply planned
 * again at the next pass, from a fresh read.
 */
export function runBootstrapSigner(opts: BootstrapSignerOptions, signal: AbortSignal): Promise<void> {
  const { client, logger } = opts;
  const kubeconfig = clusterInfoKubeconfig(opts.cluster);
  const pass = async () => {
    const secrets = await client.list<Secret>(bootstrapTokenListPath(opts.apiDomain));
    const current = await getOrUndefined<ConfigMap>(client, `${CLUSTER_INFO_PATH}/${CLUSTER_INFO_NAME}`);
    const plan = await reconcileClusterInfo({ current, secrets: secrets.items, kubeconfig, apiDomain: opts.apiDomain, now: (opts.now ?? Date.now)() });
    if (plan.op === 'none' || signal.aborted) return;
    try {
      if (plan.op === 'create') await client.create(CLUSTER_INFO_PATH, plan.object);
      else await client.update(`${CLUSTER_INFO_PATH}/${CLUSTER_INFO_NAME}`, plan.object);
      logger.info({ op: plan.op }, 'cluster-info written');
    } catch (e) {
      if (e instanceof ApiError && (e.code === 409 || e.code === 404)) return;
      throw e;
    }
  };
  return runPeriodically('bootstrapsigner', pass, opts.resyncMs, logger, signal);
}

async function getOrUndefined<T extends ConfigMap>(client: ApiClient, path: string): Promise<T | undefined> {
  try {
    return await client.get<T>(path);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return undefined;
    throw e;
  }
}
