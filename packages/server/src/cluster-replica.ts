// A replica of several processes (`--workers` > 1): a primary that only supervises, and workers
// that each serve the whole API on the shared secure port (node:cluster hands them the
// connections), each with its own etcd clients and watch caches.
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { AggregatorRegistry, Counter, Registry, type RegistryContentType } from 'prom-client';
import { sliceScheduler } from '@cluster/apiserver';
import type { SupervisedEtcd } from '@cluster/storage';
import type { ServerOptions } from './flags.js';
import { ensureAdminToken, writeAdminKubeconfig } from './admin-credentials.js';
import { ensureCertificates } from './certs.js';
import { withFrontProxyDefaults } from './start-aggregator.js';
import { loadServiceAccountConfig } from './service-accounts.js';
import { servingHosts, startEmbeddedEtcd, startServer, type RunningServer } from './start.js';
import { loadReclaimers } from './memory-reclaimer.js';
import { DEFAULT_RESTART_BACKOFF, labelPerWorkerSeries, nextFailureCount, resolveWorkerCount, restartDelayMs, workerV8Flags, type MetricJson } from './workers.js';

/** Set by the primary in a worker's environment: its slot, and the etcd it shares. */
const ENV_WORKER_ID = 'CLUSTER_APISERVER_WORKER_ID';
const ENV_ETCD_SERVERS = 'CLUSTER_APISERVER_WORKER_ETCD_SERVERS';
const ENV_LOOPBACK_TOKEN = 'CLUSTER_APISERVER_WORKER_LOOPBACK_TOKEN';

/** The slot whose worker runs the controllers and etcd compaction. */
const SINGLETON_WORKER = 1;

/** How long the primary waits for the workers' registries before answering with those it has. */
const METRICS_COLLECT_TIMEOUT_MS = 5_000;
/** A worker's bound on the whole aggregated answer (the primary's own bound plus slack). */
const METRICS_ANSWER_TIMEOUT_MS = 10_000;

/** Messages between primary and workers over the cluster IPC channel. */
type Message =
  | { type: 'cluster-apiserver:ready'; url: string }
  | { type: 'cluster-apiserver:collect-metrics'; requestId: number }
  | { type: 'cluster-apiserver:worker-metrics'; requestId: number; worker: number; metrics: MetricJson[] }
  | { type: 'cluster-apiserver:aggregate-metrics'; requestId: number }
  | { type: 'cluster-apiserver:aggregated-metrics'; requestId: number; text?: string; error?: string };

function isMessage(m: unknown): m is Message {
  return typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string' && (m as { type: string }).type.startsWith('cluster-apiserver:');
}

/** Whether this process is a worker forked by a multi-process replica's primary. */
export function isReplicaWorker(): boolean {
  return cluster.isWorker && process.env[ENV_WORKER_ID] !== undefined;
}

/**
 * Starts this worker's replica: the options as the primary parsed them (the same command line),
 * pointed at the primary's embedded etcd when it runs one. Tells the primary once it serves.
 */
export async function startReplicaWorker(opts: ServerOptions, logger: Logger): Promise<RunningServer> {
  const id = Number(process.env[ENV_WORKER_ID]);
  const etcdServers = process.env[ENV_ETCD_SERVERS];
  const loopbackToken = process.env[ENV_LOOPBACK_TOKEN] ?? '';
  // Processes this worker may start need not see the privileged token.
  delete process.env[ENV_LOOPBACK_TOKEN];
  if (loopbackToken === '') throw new Error('worker started without the replica loopback token');
  const workerOpts: ServerOptions = etcdServers ? { ...opts, etcdServers: etcdServers.split(',') } : opts;
  // Sliced responses take a level's share of this worker's core only as far as the worker has
  // one: with more workers than cores each has cores/workers of one (see sharingShare).
  const cores = availableParallelism();
  sliceScheduler.setCoresPerWorker(cores / resolveWorkerCount(opts.workers, cores));
  let registry: Registry | undefined;
  let nextRequest = 0;
  const waiting = new Map<number, (m: Extract<Message, { type: 'cluster-apiserver:aggregated-metrics' }>) => void>();
  process.on('message', (m: unknown) => {
    if (!isMessage(m)) return;
    if (m.type === 'cluster-apiserver:collect-metrics') {
      const own = registry ? registry.getMetricsAsJSON() : Promise.resolve([]);
      own.then(
        // The JSON form crosses IPC as plain data; prom-client's runtime `type` is a string.
        (metrics) => send({ type: 'cluster-apiserver:worker-metrics', requestId: m.requestId, worker: id, metrics: metrics as unknown as MetricJson[] }),
        (err: unknown) => logger.warn({ err }, 'reading metrics for the primary failed'),
      );
    } else if (m.type === 'cluster-apiserver:aggregated-metrics') {
      waiting.get(m.requestId)?.(m);
    }
  });
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
        if (answer.text !== undefined) resolveText(answer.text);
        else reject(new Error(answer.error ?? 'aggregating metrics failed'));
      });
      send({ type: 'cluster-apiserver:aggregate-metrics', requestId });
    });
  const server = await startServer(workerOpts, logger, {
    id,
    runsSingletons: id === SINGLETON_WORKER,
    metricsText,
    shareRegistry: (r) => (registry = r),
    loopbackToken,
  });
  send({ type: 'cluster-apiserver:ready', url: server.url });
  return server;
}

function send(m: Message, to?: Worker): void {
  if (to) {
    if (to.isConnected()) to.send(m);
  } else if (process.connected) process.send?.(m);
}

/** One worker position of the replica; a crashed worker is replaced in the same slot. */
interface Slot {
  id: number;
  worker?: Worker;
  startedAt: number;
  ready: boolean;
  failures: number;
  restartTimer?: NodeJS.Timeout;
}

/**
 * The primary of a replica of `count` workers. It prepares what every worker reads from the data
 * directory (admin token, certificates, service-account key) and starts the embedded etcd once,
 * then forks the workers and supervises them: a worker that exits unasked is replaced after a
 * bounded backoff, SIGTERM/SIGINT are passed on so each worker drains as a replica does, and the
 * primary exits once all have. Resolves when every worker serves (the primary then prints where).
 */
export async function runReplicaPrimary(opts: ServerOptions, logger: Logger, count: number): Promise<void> {
  const dataDir = resolve(opts.dataDir);
  // Written before any worker exists, so workers only read these files and never race to create them.
  const admin = await ensureAdminToken(dataDir);
  const certDir = opts.certDir || join(dataDir, 'certs');
  await loadServiceAccountConfig(opts, certDir);
  const caPem = !opts.devInsecureHttp && !opts.tlsCertFile ? (await ensureCertificates({ certDir, hosts: servingHosts(opts) })).caCertPem : undefined;
  await withFrontProxyDefaults(opts, dataDir);
  let etcd: SupervisedEtcd | undefined;
  if (opts.etcdServers.length === 0) etcd = await startEmbeddedEtcd(dataDir, logger);
  const etcdServers = etcd ? etcd.endpoint : '';
  // The controllers' privileged identity, known only to this replica's processes.
  const loopbackToken = randomBytes(32).toString('base64url');

  const primaryMetrics = new Registry();
  const restarts = new Counter({
    name: 'apiserver_worker_restarts_total',
    help: 'Workers of this replica replaced after they exited unasked (ours).',
    registers: [primaryMetrics],
  });
  restarts.inc(0);
  const slots = new Map<number, Slot>();
  let stopping = false;
  let serving = false;
  let onAllReady: (url: string) => void = () => {};
  let onStartFailed: (err: Error) => void = () => {};
  const allReady = new Promise<string>((res, rej) => {
    onAllReady = res;
    onStartFailed = rej;
  });
  let firstUrl: string | undefined;

  const fork = (slot: Slot) => {
    slot.restartTimer = undefined;
    slot.ready = false;
    slot.startedAt = Date.now();
    const worker = cluster.fork({ [ENV_WORKER_ID]: String(slot.id), [ENV_ETCD_SERVERS]: etcdServers, [ENV_LOOPBACK_TOKEN]: loopbackToken });
    slot.worker = worker;
    logger.info({ worker: slot.id, pid: worker.process.pid }, 'worker started');
    worker.on('message', (m: unknown) => onMessage(slot, m));
    worker.once('exit', (code, signal) => onExit(slot, worker, code, signal));
  };

  const onMessage = (slot: Slot, m: unknown) => {
    if (!isMessage(m)) return;
    if (m.type === 'cluster-apiserver:ready') {
      slot.ready = true;
      firstUrl ??= m.url;
      logger.info({ worker: slot.id, pid: slot.worker?.process.pid }, 'worker serving');
      if (!serving && [...slots.values()].every((s) => s.ready)) {
        serving = true;
        onAllReady(firstUrl);
      }
    } else if (m.type === 'cluster-apiserver:aggregate-metrics') {
      aggregateMetrics().then(
        (text) => send({ type: 'cluster-apiserver:aggregated-metrics', requestId: m.requestId, text }, slot.worker),
        (err: Error) => send({ type: 'cluster-apiserver:aggregated-metrics', requestId: m.requestId, error: err.message }, slot.worker),
      );
    } else if (m.type === 'cluster-apiserver:worker-metrics') {
      collecting.get(m.requestId)?.(m.worker, m.metrics);
    }
  };

  const onExit = (slot: Slot, worker: Worker, code: number | null, signal: string | null) => {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    slot.ready = false;
    if (stopping) {
      logger.info({ worker: slot.id, code, signal }, 'worker stopped');
      maybeAllStopped();
      return;
    }
    if (!serving) {
      // A worker that cannot start is a replica that cannot start (flags, files, ports): stop.
      onStartFailed(new Error(`worker ${slot.id} exited while starting (code ${code}, signal ${signal})`));
      return;
    }
    slot.failures = nextFailureCount(slot.failures, Date.now() - slot.startedAt, DEFAULT_RESTART_BACKOFF);
    const delayMs = restartDelayMs(slot.failures, DEFAULT_RESTART_BACKOFF);
    logger.error({ worker: slot.id, code, signal, restartInMs: delayMs }, 'worker exited; replacing it');
    restarts.inc();
    slot.restartTimer = setTimeout(() => fork(slot), delayMs);
  };

  let nextCollect = 0;
  const collecting = new Map<number, (worker: number, metrics: MetricJson[]) => void>();
  const aggregateMetrics = async (): Promise<string> => {
    const requestId = nextCollect++;
    const live = [...slots.values()].filter((s) => s.worker?.isConnected());
    const answers: MetricJson[][] = [];
    await new Promise<void>((done) => {
      let pending = live.length;
      const timer = setTimeout(done, METRICS_COLLECT_TIMEOUT_MS);
      const finish = () => {
        clearTimeout(timer);
        done();
      };
      collecting.set(requestId, (worker, metrics) => {
        answers.push(labelPerWorkerSeries(metrics, worker));
        if (--pending === 0) finish();
      });
      if (pending === 0) finish();
      for (const s of live) send({ type: 'cluster-apiserver:collect-metrics', requestId }, s.worker);
    });
    collecting.delete(requestId);
    answers.push((await primaryMetrics.getMetricsAsJSON()) as unknown as MetricJson[]);
    return AggregatorRegistry.aggregate<RegistryContentType>(answers).metrics();
  };

  let onAllStopped: () => void = () => {};
  const allStopped = new Promise<void>((res) => (onAllStopped = res));
  const maybeAllStopped = () => {
    if ([...slots.values()].every((s) => !s.worker)) onAllStopped();
  };
  const stopWorkers = async (signal: NodeJS.Signals) => {
    stopping = true;
    for (const slot of slots.values()) {
      clearTimeout(slot.restartTimer);
      slot.worker?.process.kill(signal);
    }
    maybeAllStopped();
    // Each worker drains within its own bounds (shutdown delay, request timeout); past those and
    // a margin it is stuck, and the primary must still end.
    const boundMs = opts.shutdownDelayDuration + (opts.requestTimeout > 0 ? opts.requestTimeout : 60_000) + 30_000;
    const timer = setTimeout(() => {
      for (const slot of slots.values()) slot.worker?.process.kill('SIGKILL');
    }, boundMs);
    await allStopped;
    clearTimeout(timer);
    await etcd?.stop();
  };

  let shutdown: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (shutdown) return;
    logger.info({ signal }, 'shutting down the workers');
    shutdown = stopWorkers('SIGTERM').then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  for (let id = 1; id <= count; id++) slots.set(id, { id, startedAt: 0, ready: false, failures: 0 });
  const nodeOptions = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/).filter(Boolean)];
  cluster.setupPrimary({ execArgv: [...process.execArgv, ...workerV8Flags(count, availableParallelism(), nodeOptions)] });
  for (const slot of slots.values()) fork(slot);
  let url: string;
  try {
    url = await allReady;
  } catch (err) {
    await stopWorkers('SIGTERM');
    throw err;
  }
  const kubeconfigPath = join(dataDir, 'admin.kubeconfig');
  await writeAdminKubeconfig({ path: kubeconfigPath, serverUrl: url, caPem, token: admin.token });
  logger.info({ url, kubeconfig: kubeconfigPath, workers: count }, 'serving');
  reclaimStartupMemory();
  process.stdout.write(`cluster-apiserver listening on ${url} (${count} workers)\nadmin kubeconfig: ${kubeconfigPath}\n`);
}

/**
 * The primary only supervises once its workers serve, but it loaded the whole server (flag checks
 * and start-up share the modules) and start-up left its garbage: one full, compacting collection,
 * the young generation shrunk and the allocator trimmed, once, give most of that back.
 */
function reclaimStartupMemory(): void {
  const { gc, shrink, trim } = loadReclaimers();
  gc?.();
  shrink?.();
  trim?.();
}
