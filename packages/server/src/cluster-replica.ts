// A worker of a multi-worker replica (`--workers` > 1), a process or a thread: it serves the whole
// API on the shared secure port (node:cluster hands a process its connections; a thread accepts
// on its own descriptor of the socket), with its own etcd clients and watch caches. The primary's
// side is replica-primary.ts.
import { closeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { workerData } from 'node:worker_threads';
import type { Logger } from 'pino';
import { AggregatorRegistry, type Registry, type RegistryContentType } from 'prom-client';
import { sliceScheduler } from '@cluster/apiserver';
import type { ServerOptions } from './flags.js';
import { ENV_ETCD_SERVERS, ENV_LISTEN_FD, ENV_LOOPBACK_TOKEN, ENV_WORKER_ID, SINGLETON_WORKER, onPrimaryMessage, sendToPrimary as send, type Message } from './replica-protocol.js';
import type { ConnectionShare } from './connection-balance.js';
import { loadDup } from './replica-threads.js';
import { startServer, type RunningServer } from './start.js';
import { resolveWorkerCount, type MetricJson } from './workers.js';

/** A worker's bound on the whole aggregated answer (the primary's own bound plus slack). */
const METRICS_ANSWER_TIMEOUT_MS = 10_000;

/**
 * Starts this worker's replica: the options as the primary parsed them (the same command line),
 * pointed at the primary's embedded etcd when it runs one. Tells the primary once it serves.
 */
export async function startReplicaWorker(opts: ServerOptions, logger: Logger): Promise<RunningServer> {
  const id = Number(process.env[ENV_WORKER_ID]);
  const etcdServers = process.env[ENV_ETCD_SERVERS];
  const loopbackToken = process.env[ENV_LOOPBACK_TOKEN] ?? '';
  // Processes this worker may start need not see the privileged token (a thread's process.env
  // is its own copy: this removes it from what the thread's child processes would inherit).
  delete process.env[ENV_LOOPBACK_TOKEN];
  const listenFd = process.env[ENV_LISTEN_FD] === undefined ? undefined : Number(process.env[ENV_LISTEN_FD]);
  if (loopbackToken === '') throw new Error('worker started without the replica loopback token');
  const workerOpts: ServerOptions = etcdServers ? { ...opts, etcdServers: etcdServers.split(',') } : opts;
  // Sliced responses take a level's share of this worker's core only as far as the worker has
  // one: with more workers than cores each has cores/workers of one (see sharingShare).
  const cores = availableParallelism();
  sliceScheduler.setCoresPerWorker(cores / resolveWorkerCount(opts.workers, cores));
  sliceScheduler.setLevelServedListener((level, share) => send({ type: 'cluster-apiserver:level-served', level, share }));
  let registry: Registry | undefined;
  let nextRequest = 0;
  const waiting = new Map<number, (m: Extract<Message, { type: 'cluster-apiserver:aggregated-metrics' }>) => void>();
  onPrimaryMessage((m) => {
    if (m.type === 'cluster-apiserver:collect-metrics') {
      const own = registry ? registry.getMetricsAsJSON() : Promise.resolve([]);
      own.then(
        // The JSON form crosses IPC as plain data; prom-client's runtime `type` is a string.
        (metrics) => send({ type: 'cluster-apiserver:worker-metrics', requestId: m.requestId, worker: id, metrics: metrics as unknown as MetricJson[] }),
        (err: unknown) => logger.warn({ err }, 'reading metrics for the primary failed'),
      );
    } else if (m.type === 'cluster-apiserver:aggregated-metrics') {
      waiting.get(m.requestId)?.(m);
    } else if (m.type === 'cluster-apiserver:level-served') {
      if (typeof m.level === 'string' && Number.isFinite(m.share)) sliceScheduler.levelServedElsewhere(m.level, m.share);
    } else if (m.type === 'cluster-apiserver:adopt-connection') {
      if (Number.isInteger(m.fd) && m.fd >= 0) adopt(m.fd);
    }
  });
  // Until this thread serves, a connection handed to it (none should be: its slot is closed) is refused.
  let adopt = (fd: number) => closeSync(fd);
  const connectionShare = threadConnectionShare(id);
  const metricsText = () =>
    new Promise<string>((resolveText, reject) => {
      const requestId = nextRequest++;
      const timer = setTimeout(() => {
        waiting.delete(requestId);
        reject(new Error('the replica primary did not answer with the aggregated metrics in time'));
      }, METRICS_ANSWER_TIMEOUT_MS);
      waiting.set(requestId, (answer) => {
        clearTimeout(timer);
        waiting.delete(requestId);
        if (answer.registries === undefined) reject(new Error(answer.error ?? 'aggregating metrics failed'));
        else {
          try {
            // The JSON crossed IPC as plain data; prom-client reads it as its own metric objects.
            const registries = answer.registries as unknown as Parameters<typeof AggregatorRegistry.aggregate>[0];
            AggregatorRegistry.aggregate<RegistryContentType>(registries).metrics().then(resolveText, reject);
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        }
      });
      send({ type: 'cluster-apiserver:aggregate-metrics', requestId });
    });
  const server = await startServer(workerOpts, logger, {
    id,
    runsSingletons: id === SINGLETON_WORKER,
    metricsText,
    shareRegistry: (r) => (registry = r),
    loopbackToken,
    ...(listenFd !== undefined && Number.isInteger(listenFd) && listenFd >= 0 ? { listenFd } : {}),
    ...(connectionShare ? { connectionShare } : {}),
  });
  adopt = (fd) => server.adoptConnection(fd);
  server.takeConnections();
  send({ type: 'cluster-apiserver:ready', url: server.url });
  return server;
}

/**
 * A worker thread's part in spreading connections over the threads, when its primary passed the
 * shared counts (workerData) and the fd_dup addon is built; undefined otherwise.
 */
function threadConnectionShare(slotId: number): ConnectionShare | undefined {
  const data = workerData as { connectionCounts?: unknown } | null | undefined;
  const counts = data?.connectionCounts;
  const dup = counts instanceof SharedArrayBuffer ? loadDup() : undefined;
  if (!(counts instanceof SharedArrayBuffer) || !dup) return undefined;
  return {
    counts,
    slot: slotId - 1,
    dup,
    handOff: (fd, to) => send({ type: 'cluster-apiserver:adopt-connection', fd, slot: to + 1 }),
  };
}
