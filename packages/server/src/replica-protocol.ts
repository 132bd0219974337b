// What the primary and the workers of a multi-process replica (`--workers` > 1) share: the
// environment the primary gives a worker and the messages over the cluster IPC channel. Small on
// purpose: the primary loads this, not the server (see replica-primary.ts).
import cluster, { type Worker } from 'node:cluster';
import type { MetricJson } from './workers.js';

/** Set by the primary in a worker's environment: its slot, and the etcd it shares. */
export const ENV_WORKER_ID = 'CLUSTER_APISERVER_WORKER_ID';
export const ENV_ETCD_SERVERS = 'CLUSTER_APISERVER_WORKER_ETCD_SERVERS';
export const ENV_LOOPBACK_TOKEN = 'CLUSTER_APISERVER_WORKER_LOOPBACK_TOKEN';

/** The slot whose worker runs the controllers and etcd compaction. */
export const SINGLETON_WORKER = 1;

/**
 * Messages between primary and workers. A worker asks for the replica's metrics with
 * `aggregate-metrics`; the primary collects every worker's registry (`collect-metrics`,
 * `worker-metrics`) and answers with all of them, labelled per worker, for the asking worker to
 * aggregate (it has prom-client loaded already; the primary need not).
 */
export type Message =
  | { type: 'cluster-apiserver:ready'; url: string }
  | { type: 'cluster-apiserver:collect-metrics'; requestId: number }
  | { type: 'cluster-apiserver:worker-metrics'; requestId: number; worker: number; metrics: MetricJson[] }
  | { type: 'cluster-apiserver:aggregate-metrics'; requestId: number }
  | { type: 'cluster-apiserver:aggregated-metrics'; requestId: number; registries?: MetricJson[][]; error?: string }
  // A worker served a small request of a priority level; the primary passes it to the other workers
  // (their sliced responses yield to it too: they share the machine's cores, see SliceScheduler).
  | { type: 'cluster-apiserver:level-served'; level: string; share: number };

export function isMessage(m: unknown): m is Message {
  return typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string' && (m as { type: string }).type.startsWith('cluster-apiserver:');
}

/** Whether this process is a worker forked by a multi-process replica's primary. */
export function isReplicaWorker(): boolean {
  return cluster.isWorker && process.env[ENV_WORKER_ID] !== undefined;
}

/** Sends to a worker (from the primary) or, without `to`, to the primary (from a worker). */
export function send(m: Message, to?: Worker): void {
  if (to) {
    if (to.isConnected()) to.send(m);
  } else if (process.connected) process.send?.(m);
}
