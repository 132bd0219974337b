// Pure pieces of the multi-process replica (`--workers`): how many workers, how long to wait
// before replacing a crashed one, and how per-worker metrics are labelled before aggregation.

/** The largest `--workers` accepted: a typo must not fork thousands of processes. */
export const MAX_WORKERS = 1024;

/** `--worker-isolation`: what a worker is, a thread of the replica's process or a process of its own. */
export const WORKER_ISOLATIONS = ['thread', 'process'] as const;
export type WorkerIsolation = (typeof WORKER_ISOLATIONS)[number];

export function isWorkerIsolation(value: string): value is WorkerIsolation {
  return (WORKER_ISOLATIONS as readonly string[]).includes(value);
}

/** `--workers`: 0 (the default) means one worker per core available to the process. */
export function resolveWorkerCount(flag: number, availableCores: number): number {
  if (flag > 0) return flag;
  return Math.max(1, Math.floor(availableCores));
}

/**
 * V8 flags added to each worker's command line. With at least as many workers as cores, every
 * core already runs a worker's event loop, so V8's parallel scavenge (the young-generation
 * collection split over helper threads, the main thread waiting until every helper finished)
 * finds no spare core: a helper thread waits behind another worker and the collecting worker
 * waits for it, pausing its requests for tens of milliseconds instead of one or two. Those
 * workers collect on their own thread. Nothing is added when the operator already chose
 * (`--parallel-scavenge`, `--no-parallel-scavenge` or `--single-threaded-gc` in the node
 * options or NODE_OPTIONS).
 */
export function workerV8Flags(workers: number, cores: number, nodeOptions: readonly string[]): string[] {
  if (workers < Math.max(1, Math.floor(cores))) return [];
  const chosen = nodeOptions.some((o) => /^--(no-)?parallel[-_]scavenge$|^--single[-_]threaded[-_]gc$/.test(o.split('=')[0]!));
  return chosen ? [] : ['--no-parallel-scavenge'];
}

/** Restart backoff of a worker slot: doubling from `initialMs`, never above `maxMs`. */
export interface RestartBackoff {
  initialMs: number;
  maxMs: number;
  /** A worker that stayed up this long counts as healthy: its slot's failure count starts over. */
  resetAfterMs: number;
}

export const DEFAULT_RESTART_BACKOFF: RestartBackoff = { initialMs: 500, maxMs: 30_000, resetAfterMs: 60_000 };

/**
 * The wait before starting the replacement of a worker that exited unexpectedly, given how many
 * times in a row (this one included, >= 1) its slot has failed without staying up for
 * `resetAfterMs`.
 */
export function restartDelayMs(consecutiveFailures: number, backoff: RestartBackoff = DEFAULT_RESTART_BACKOFF): number {
  const exponent = Math.max(0, Math.floor(consecutiveFailures) - 1);
  // 2^31 already exceeds any sensible cap; the clamp keeps the arithmetic finite.
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(exponent, 31));
}

/** The failure count of a slot after its worker exited unexpectedly having run for `uptimeMs`. */
export function nextFailureCount(previousFailures: number, uptimeMs: number, backoff: RestartBackoff = DEFAULT_RESTART_BACKOFF): number {
  return uptimeMs >= backoff.resetAfterMs ? 1 : previousFailures + 1;
}

/**
 * One metric of a registry's `getMetricsAsJSON()`, as it crosses the IPC channel. prom-client
 * declares `type` as a numeric enum, but at run time it is the exposition word (`counter`, ...).
 */
export interface MetricJson {
  name: string;
  help: string;
  type: string;
  aggregator?: string;
  values: { value: number; labels: Record<string, string | number | undefined>; metricName?: string }[];
}

/**
 * Prepares one worker's metrics for prom-client's cluster aggregation (which sums series of equal
 * labels across workers). Counters and histograms are left as they are, so the replica's request
 * counts and latency buckets add up over its workers. Gauges and summaries describe one process
 * (its memory, its watch cache, whether it leads the controllers; a summary's quantiles cannot
 * be added) and summing them would misstate them, so they get a `worker` label and each worker's
 * series passes through unchanged.
 */
export function labelPerWorkerSeries(metrics: readonly MetricJson[], worker: number): MetricJson[] {
  return metrics.map((metric) => {
    if (metric.type !== 'gauge' && metric.type !== 'summary') return metric;
    return {
      ...metric,
      // Each labelled series is unique to its worker, so "first" keeps it as it is; prom-client's
      // "omit" (the process start time) would otherwise drop a per-process fact.
      aggregator: 'first',
      values: metric.values.map((v) => ({ ...v, labels: { ...v.labels, worker: String(worker) } })),
    };
  });
}

/**
 * The series prom-client's default metrics read from the process as a whole (/proc/self, the
 * process's CPU time): every thread of a process reports the same values.
 */
export function isProcessWideSeries(metric: MetricJson): boolean {
  return metric.name.startsWith('process_');
}

/**
 * labelPerWorkerSeries for workers that are threads of one process: the per-isolate series (the
 * V8 heap, the event loop, the watch caches) are labelled per worker as a process's are, and the
 * process-wide ones are dropped: every thread would report the same process (summed, its CPU
 * time would count N times; N equal series of its memory would read as N processes' worth). The
 * primary gives them once for the process (process-metrics.ts).
 */
export function labelPerThreadSeries(metrics: readonly MetricJson[], worker: number): MetricJson[] {
  return labelPerWorkerSeries(
    metrics.filter((m) => !isProcessWideSeries(m)),
    worker,
  );
}
