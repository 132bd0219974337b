import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { FlowControl, FlowControlConfigSource, FlowControlMetrics, type PriorityAndFairnessDeps, type RegistrySet } from '@cluster/apiserver';
import type { ServerOptions } from './flags.js';

/** The priority-and-fairness stage of a replica: the filter's dependencies and the config watch. */
export interface PriorityAndFairness {
  /** Absent when --enable-priority-and-fairness=false (the max-in-flight filter runs instead). */
  deps?: PriorityAndFairnessDeps;
  /** Starts the watch of flow schemas and priority levels (every replica); resolves once both were listed. */
  start(registries: () => RegistrySet): Promise<void>;
  stop(): void;
}

/** How often list seat estimates re-read the watch caches' object counts. */
const COUNTS_REFRESH_MS = 1000;

/**
 * Builds API priority and fairness for this process: the seats are --max-requests-inflight plus
 * --max-mutating-requests-inflight (upstream's server concurrency limit), queue waits are bounded
 * by a quarter of --request-timeout (upstream's default), list seats come from the watch caches'
 * object counts (refreshed once a second), and upstream's apiserver_flowcontrol_* metrics go to `metrics`.
 */
export function buildPriorityAndFairness(opts: ServerOptions, metrics: Registry, logger: Logger, objectCounts: () => Map<string, number>): PriorityAndFairness {
  if (!opts.enablePriorityAndFairness) return { start: async () => undefined, stop: () => undefined };
  const control = new FlowControl({
    apiDomain: opts.apiDomain,
    serverConcurrencyLimit: Math.max(1, opts.maxRequestsInflight + opts.maxMutatingRequestsInflight),
    queueWaitLimitMs: opts.requestTimeout > 0 ? opts.requestTimeout / 4 : 15_000,
    metrics: new FlowControlMetrics(metrics),
  });
  let counts = new Map<string, number>();
  let countsAt = -Infinity;
  const objectCount = (group: string, resource: string) => {
    const now = performance.now();
    if (now - countsAt > COUNTS_REFRESH_MS) {
      counts = objectCounts();
      countsAt = now;
    }
    return counts.get(`/registry/${group === '' ? 'core' : group}/${resource}/`);
  };
  let source: FlowControlConfigSource | undefined;
  return {
    deps: { control, objectCount, metrics },
    start(registries) {
      source ??= new FlowControlConfigSource(registries, control, { apiDomain: opts.apiDomain, log: (msg, err) => logger.warn({ err, component: 'flowcontrol' }, msg) });
      return source.start();
    },
    stop: () => source?.stop(),
  };
}
