// What the primary and the workers of a multi-worker replica (`--workers` > 1) share: the
// environment the primary gives a worker and the messages between them, over the cluster IPC
// channel (workers as processes) or the thread's MessagePort (workers as threads). Small on
// purpose: the primary loads this, not the server (see replica-primary.ts).
import cluster from 'node:cluster';
import { isMainThread, parentPort } from 'node:worker_threads';
import type { MetricJson } from './workers.js';

/** Set by the primary in a worker's environment: its slot, and the etcd it shares. */
export const ENV_WORKER_ID = 'CLUSTER_APISERVER_WORKER_ID';
export const ENV_ETCD_SERVERS = 'CLUSTER_APISERVER_WORKER_ETCD_SERVERS';
export const ENV_LOOPBACK_TOKEN = 'CLUSTER_APISERVER_WORKER_LOOPBACK_TOKEN';
/** A worker thread's own descriptor of the replica's listening socket (see replica-threads.ts). */
export const ENV_LISTEN_FD = 'CLUSTER_APISERVER_WORKER_LISTEN_FD';

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
  | { type: 'cluster-apiserver:level-served'; level: string; share: number }
  // A worker thread hands a connection it accepted (a duplicated descriptor) to the thread of
  // `slot` (1-based) through the primary, to spread connections evenly (connection-balance.ts).
  | { type: 'cluster-apiserver:adopt-connection'; fd: number; slot: number }
  // To a worker thread, which no signal reaches: drain as a replica does on SIGTERM, then end.
  | { type: 'cluster-apiserver:stop'; reason: string };

export function isMessage(m: unknown): m is Message {
  return typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string' && (m as { type: string }).type.startsWith('cluster-apiserver:');
}

/** Whether this is a worker thread started by a replica's primary (not the primary's start-up thread). */
export function isReplicaThread(): boolean {
  return !isMainThread && parentPort !== null && process.env[ENV_WORKER_ID] !== undefined;
}

/** Whether this process (or thread) is a worker started by a multi-worker replica's primary. */
export function isReplicaWorker(): boolean {
  return (cluster.isWorker || isReplicaThread()) && process.env[ENV_WORKER_ID] !== undefined;
}

/** From a worker: sends to the primary. */
export function sendToPrimary(m: Message): void {
  if (isReplicaThread()) parentPort?.postMessage(m);
  // The channel can close after the check (the primary is ending): without a callback the failed
  // write would be an 'error' event on process, an uncaught exception in this worker. The message
  // has no one to reach then.
  else if (process.connected) process.send?.(m, undefined, undefined, ignoreClosedChannel);
}

function ignoreClosedChannel(): void {}

/** In a worker: calls `listener` with each message of the primary's. */
export function onPrimaryMessage(listener: (m: Message) => void): void {
  const accept = (m: unknown) => {
    if (isMessage(m)) listener(m);
  };
  if (isReplicaThread()) parentPort?.on('message', accept);
  else process.on('message', accept);
}
