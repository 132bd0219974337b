// The primary of a multi-worker replica (`--workers` > 1): it starts the workers, as processes
// (node:cluster, cluster-replica.ts) or as threads of this process (replica-threads.ts), supervises
// them and collects their metrics; the workers serve. It loads only what that takes (no server
// modules: see primary-startup.ts for the start-up work that needs them).
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { closeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Logger } from 'pino';
import type { SupervisedEtcd } from '@cluster/storage/etcd-process';
import type { ServerOptions } from './flag-definitions.js';
import { startEmbeddedEtcd } from './embedded-etcd.js';
import { limitMallocArenas, loadReclaimers, THREAD_REPLICA_MALLOC_ARENAS } from './memory-reclaimer.js';
import { processSeries } from './process-metrics.js';
import type { PrimaryStartup } from './primary-startup.js';
import { ENV_ETCD_SERVERS, ENV_LISTEN_FD, ENV_LOOPBACK_TOKEN, ENV_WORKER_ID, isMessage, type Message } from './replica-protocol.js';
import { bindSharedPort, loadDup, startWorkerThread, type SharedPort } from './replica-threads.js';
import { closeConnectionSlot, createConnectionCounts } from './connection-balance.js';
import { createReplicaSharedStore } from './start-shared-store.js';
import { DEFAULT_RESTART_BACKOFF, labelPerThreadSeries, labelPerWorkerSeries, nextFailureCount, restartDelayMs, workerV8Flags, type MetricJson, type WorkerIsolation } from './workers.js';

/** How long the primary waits for the workers' registries before answering with those it has. */
const METRICS_COLLECT_TIMEOUT_MS = 5_000;

/**
 * glibc's allocator settings for the workers (read when a process starts, so only a parent can
 * give them): by default glibc keeps up to 8 arenas per core, one for each thread that allocates
 * (the main thread, libuv's pool, V8's helpers), each holding its own freed memory. Two arenas
 * left each process ~4 MiB less in the memory workload. An operator's own GLIBC_TUNABLES is kept.
 */
const WORKER_GLIBC_TUNABLES = 'glibc.malloc.arena_max=2';

/** What the start-up thread gave the primary: the checked options and the admin credentials. */
export interface PreparedPrimary {
  options: ServerOptions;
  adminToken: string;
  caPem?: string;
  startup: PrimaryStartup;
}

/** A running worker, process or thread, as the primary drives it. */
interface WorkerHandle {
  /** Where it runs, for the logs: `{ pid }` of a process, `{ pid, thread }` of a thread. */
  where: Record<string, number>;
  send(m: Message): void;
  /** Asks it to drain and end, as SIGTERM does a replica. */
  stop(signal: NodeJS.Signals): void;
  /** Ends it at once (it did not drain in time). */
  kill(): void;
  /** Whether it can still be sent messages. */
  connected(): boolean;
}

/** What the primary hears of a worker. */
interface WorkerEvents {
  message(m: unknown): void;
  exit(code: number | null, signal: string | null): void;
}

/** One worker position of the replica; a crashed worker is replaced in the same slot. */
interface Slot {
  id: number;
  worker?: WorkerHandle;
  startedAt: number;
  ready: boolean;
  failures: number;
  restartTimer?: NodeJS.Timeout;
}

/**
 * The primary of a replica of `count` workers. With what every worker reads from the data
 * directory prepared (primary-startup.ts: admin token, certificates, service-account key), it
 * starts the embedded etcd once, then forks the workers and supervises them: a worker that exits unasked is replaced after a
 * bounded backoff, SIGTERM/SIGINT are passed on so each worker drains as a replica does, and the
 * primary exits once all have. Resolves when every worker serves (the primary then prints where).
 */
export async function runReplicaPrimary(prepared: PreparedPrimary, logger: Logger, count: number, argv: readonly string[]): Promise<void> {
  const { options: opts, startup } = prepared;
  let isolation = opts.workerIsolation as WorkerIsolation;
  const dup = isolation === 'thread' ? loadDup() : undefined;
  if (isolation === 'thread' && !dup) {
    logger.warn('worker threads need the fd_dup addon (hack/build-native.sh), which is not built: running the workers as processes');
    isolation = 'process';
  }
  let shared: SharedPort | undefined;
  if (isolation === 'thread') {
    // Before the worker threads exist: each would otherwise get malloc arenas of its own.
    limitMallocArenas(THREAD_REPLICA_MALLOC_ARENAS);
    try {
      shared = await bindSharedPort(opts.bindAddress, opts.securePort, dup!);
    } catch (err) {
      await startup.close();
      throw err;
    }
  }
  const sharedStore = isolation === 'thread' ? createReplicaSharedStore(opts.watchCacheSharedStore, count) : undefined;
  // Threads accept on one socket; these counts let them spread the connections (connection-balance.ts).
  const connectionCounts = isolation === 'thread' ? createConnectionCounts(count) : undefined;
  const dataDir = resolve(opts.dataDir);
  let etcd: SupervisedEtcd | undefined;
  if (opts.etcdServers.length === 0) {
    try {
      etcd = await startEmbeddedEtcd(dataDir, logger);
    } catch (err) {
      await startup.close();
      throw err;
    }
  }
  const etcdServers = etcd ? etcd.endpoint : '';
  // The controllers' privileged identity, known only to this replica's processes.
  const loopbackToken = randomBytes(32).toString('base64url');

  // The primary's one metric, kept as the JSON a registry would give (see replicaRegistries).
  let restarts = 0;
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

  const start = (slot: Slot) => {
    slot.restartTimer = undefined;
    slot.ready = false;
    slot.startedAt = Date.now();
    const env: Record<string, string> = {
      [ENV_WORKER_ID]: String(slot.id),
      [ENV_ETCD_SERVERS]: etcdServers,
      [ENV_LOOPBACK_TOKEN]: loopbackToken,
    };
    const events = {
      message: (m: unknown) => onMessage(slot, m),
      exit: (code: number | null, signal: string | null) => onExit(slot, worker, code, signal),
    };
    let worker: WorkerHandle;
    try {
      worker = shared ? startThread(slot, env, shared, events) : forkProcess(env, events);
    } catch (err) {
      // No descriptor or no thread to be had (out of file descriptors or memory): a failed start.
      logger.error({ worker: slot.id, err }, 'starting a worker failed');
      const failed: WorkerHandle = { where: {}, send: () => {}, stop: () => {}, kill: () => {}, connected: () => false };
      slot.worker = failed;
      setImmediate(() => onExit(slot, failed, null, null));
      return;
    }
    slot.worker = worker;
    logger.info({ worker: slot.id, ...worker.where }, 'worker started');
  };

  /** A thread: its own descriptor of the shared socket; no signal reaches it, a message asks it to stop. */
  const startThread = (slot: Slot, env: Record<string, string>, shared: SharedPort, events: WorkerEvents): WorkerHandle => {
    // The thread's listener closes this descriptor; a thread that ends before it listens leaves it
    // open (one descriptor per failed start, while the slot's backoff lasts).
    const workerData = { ...sharedStore?.workerData(slot.id), ...(connectionCounts ? { connectionCounts } : {}) };
    const thread = startWorkerThread(argv, { ...env, [ENV_LISTEN_FD]: String(shared.forThread()) }, workerData);
    const id = thread.threadId;
    let running = true;
    thread.on('message', events.message);
    // An exception the thread did not catch ends the thread, not the process: report it, and the
    // exit that follows replaces the thread.
    thread.on('error', (err) => logger.error({ worker: slot.id, thread: thread.threadId, err }, 'worker thread failed'));
    thread.once('exit', (code) => {
      running = false;
      if (connectionCounts) closeConnectionSlot(connectionCounts, slot.id - 1);
      const freed = sharedStore?.threadEnded(id, slot.id) ?? 0;
      if (freed > 0) logger.info({ worker: slot.id, thread: id, freed }, "released the ended thread's watch cache versions");
      events.exit(code, null);
    });
    return {
      where: { pid: process.pid, thread: thread.threadId },
      send: (m) => {
        if (running) thread.postMessage(m);
      },
      stop: (signal) => {
        if (!running) return;
        // A thread listens for the stop message once it serves; one still starting has nothing to
        // drain and ends at once, as a starting worker process does on SIGTERM.
        if (slot.ready) thread.postMessage({ type: 'cluster-apiserver:stop', reason: signal } satisfies Message);
        else void thread.terminate();
      },
      kill: () => void thread.terminate(),
      connected: () => running,
    };
  };

  const forkProcess = (env: Record<string, string>, events: WorkerEvents): WorkerHandle => {
    const child = cluster.fork({ ...env, ...(process.env['GLIBC_TUNABLES'] === undefined ? { GLIBC_TUNABLES: WORKER_GLIBC_TUNABLES } : {}) });
    child.on('message', events.message);
    child.once('exit', events.exit);
    // A worker's channel can close between isConnected() and the write (the worker is stopping or
    // died): the send then fails later, and an 'error' nobody listens to would end the primary,
    // and with it every other worker. The exit event replaces the worker; the message is lost
    // with it.
    const lost = (err: Error | null) => {
      if (err) logger.debug({ worker: env[ENV_WORKER_ID], err }, 'message to a closing worker not sent');
    };
    child.on('error', (err: Error) => lost(err));
    return {
      where: { pid: child.process.pid ?? 0 },
      send: (m) => {
        if (child.isConnected()) child.send(m, undefined, undefined, lost);
      },
      stop: (signal) => child.process.kill(signal),
      kill: () => child.process.kill('SIGKILL'),
      connected: () => child.isConnected(),
    };
  };

  const onMessage = (slot: Slot, m: unknown) => {
    if (!isMessage(m)) return;
    if (m.type === 'cluster-apiserver:ready') {
      slot.ready = true;
      firstUrl ??= m.url;
      logger.info({ worker: slot.id, ...slot.worker?.where }, 'worker serving');
      if (!serving && [...slots.values()].every((s) => s.ready)) {
        serving = true;
        onAllReady(firstUrl);
      }
    } else if (m.type === 'cluster-apiserver:aggregate-metrics') {
      replicaRegistries().then(
        (registries) => slot.worker?.send({ type: 'cluster-apiserver:aggregated-metrics', requestId: m.requestId, registries }),
        (err: Error) => slot.worker?.send({ type: 'cluster-apiserver:aggregated-metrics', requestId: m.requestId, error: err.message }),
      );
    } else if (m.type === 'cluster-apiserver:worker-metrics') {
      collecting.get(m.requestId)?.(m.worker, m.metrics);
    } else if (m.type === 'cluster-apiserver:level-served') {
      for (const other of slots.values()) if (other !== slot) other.worker?.send(m);
    } else if (m.type === 'cluster-apiserver:adopt-connection') {
      relayConnection(m);
    }
  };

  /** Passes a handed-over connection to its thread; closes it when that thread is gone. */
  const relayConnection = (m: Extract<Message, { type: 'cluster-apiserver:adopt-connection' }>) => {
    if (!Number.isInteger(m.fd) || m.fd < 0) return;
    const target = slots.get(m.slot)?.worker;
    if (target?.connected()) target.send(m);
    else closeSync(m.fd);
  };

  const onExit = (slot: Slot, worker: WorkerHandle, code: number | null, signal: string | null) => {
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
    restarts++;
    slot.restartTimer = setTimeout(() => start(slot), delayMs);
  };

  let nextCollect = 0;
  const collecting = new Map<number, (worker: number, metrics: MetricJson[]) => void>();
  /** Every live worker's registry (per-worker series labelled) and the primary's own, as JSON. */
  const replicaRegistries = async (): Promise<MetricJson[][]> => {
    const requestId = nextCollect++;
    const live = [...slots.values()].filter((s) => s.worker?.connected());
    const answers: MetricJson[][] = [];
    await new Promise<void>((done) => {
      let pending = live.length;
      const timer = setTimeout(done, METRICS_COLLECT_TIMEOUT_MS);
      const finish = () => {
        clearTimeout(timer);
        done();
      };
      collecting.set(requestId, (worker, metrics) => {
        answers.push(shared ? labelPerThreadSeries(metrics, worker) : labelPerWorkerSeries(metrics, worker));
        if (--pending === 0) finish();
      });
      if (pending === 0) finish();
      for (const s of live) s.worker?.send({ type: 'cluster-apiserver:collect-metrics', requestId });
    });
    collecting.delete(requestId);
    // Threads share one process: its series (memory, CPU, descriptors) are given once, by this thread.
    if (shared) answers.push(processSeries());
    answers.push([
      {
        name: 'apiserver_worker_restarts_total',
        help: 'Workers of this replica replaced after they exited unasked (ours).',
        type: 'counter',
        aggregator: 'sum',
        values: [{ value: restarts, labels: {} }],
      },
    ]);
    return answers;
  };

  let onAllStopped: () => void = () => {};
  const allStopped = new Promise<void>((res) => (onAllStopped = res));
  const maybeAllStopped = () => {
    if ([...slots.values()].every((s) => !s.worker)) onAllStopped();
  };
  const stopWorkers = async (signal: NodeJS.Signals) => {
    stopping = true;
    // No replacement will need a descriptor: the socket closes when the last thread closes its own.
    shared?.release();
    for (const slot of slots.values()) {
      clearTimeout(slot.restartTimer);
      slot.worker?.stop(signal);
    }
    maybeAllStopped();
    // Each worker drains within its own bounds (shutdown delay, request timeout); past those and
    // a margin it is stuck, and the primary must still end.
    const boundMs = opts.shutdownDelayDuration + (opts.requestTimeout > 0 ? opts.requestTimeout : 60_000) + 30_000;
    const timer = setTimeout(() => {
      for (const slot of slots.values()) slot.worker?.kill();
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
  const v8Flags = workerV8Flags(count, availableParallelism(), nodeOptions);
  // V8's flags are the process's: threads take them from here (a Worker's execArgv cannot set them).
  if (shared) for (const flag of v8Flags) setFlagsFromString(flag);
  else cluster.setupPrimary({ execArgv: [...process.execArgv, ...v8Flags] });
  for (const slot of slots.values()) start(slot);
  let url: string;
  try {
    url = await allReady;
  } catch (err) {
    await startup.close();
    await stopWorkers('SIGTERM');
    throw err;
  }
  const kubeconfigPath = join(dataDir, 'admin.kubeconfig');
  await startup.writeKubeconfig(kubeconfigPath, url, prepared.caPem, prepared.adminToken);
  logger.info({ url, kubeconfig: kubeconfigPath, workers: count, isolation }, 'serving');
  reclaimStartupMemory();
  process.stdout.write(`cluster-apiserver listening on ${url} (${count} worker ${isolation === 'thread' ? 'threads' : 'processes'})\nadmin kubeconfig: ${kubeconfigPath}\n`);
}

/**
 * The primary only supervises once its workers serve; start-up left garbage (and the start-up
 * thread's freed memory in the allocator): one full, compacting collection, the young generation
 * shrunk and the allocator trimmed, once, give most of that back.
 */
function reclaimStartupMemory(): void {
  const { gc, shrink, trim } = loadReclaimers();
  gc?.();
  shrink?.();
  trim?.();
}
