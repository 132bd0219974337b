import type { Logger } from 'pino';
import { ApiClient, type ApiClientOptions } from './client/api-client.js';
import { LeaderElector } from './leaderelection/leader-elector.js';
import { LeaseLock } from './leaderelection/lease-lock.js';
import { runNamespaceController } from './namespace/controller.js';
import { runBootstrapSigner } from './bootstrapsigner/controller.js';
import type { ClusterInfoSource } from './bootstrapsigner/kubeconfig.js';
import { runTokenCleaner } from './tokencleaner/controller.js';

export { ApiClient, ApiError } from './client/api-client.js';
export { LeaderElector } from './leaderelection/leader-elector.js';
export { LeaseLock } from './leaderelection/lease-lock.js';
export type { ClusterInfoSource } from './bootstrapsigner/kubeconfig.js';

export interface ControllerManagerOptions {
  client: ApiClientOptions;
  apiDomain: string;
  identity: string;
  logger: Logger;
  /** Names from --controllers: `*` (all), a name, or `-name` to disable one. */
  enabled: readonly string[];
  leaseDurationMs?: number;
  /** Server URL and cluster CA that `bootstrapsigner` publishes in `cluster-public/cluster-info`. */
  clusterInfo: ClusterInfoSource;
  /** Poll period of the controllers (1 s by default). */
  resyncMs?: number;
}

export interface ControllerManager {
  /** Undefined when no controller is enabled: then no leader election runs either. */
  elector: LeaderElector | undefined;
  /** Stops the controllers and releases the leader lease. */
  stop(): Promise<void>;
}

export const ALL_CONTROLLERS = ['namespace', 'bootstrapsigner', 'tokencleaner'] as const;

/** Controllers `*` does not turn on: they run only when named (upstream's ControllersDisabledByDefault). */
export const CONTROLLERS_DISABLED_BY_DEFAULT: ReadonlySet<string> = new Set(['bootstrapsigner', 'tokencleaner']);

/**
 * Whether a controller is on under --controllers (upstream semantics): `-name` turns it off,
 * `name` turns it on, and `*` turns on every controller not disabled by default.
 */
export function controllerEnabled(name: string, flags: readonly string[], disabledByDefault: ReadonlySet<string> = CONTROLLERS_DISABLED_BY_DEFAULT): boolean {
  if (flags.includes(`-${name}`)) return false;
  if (flags.includes(name)) return true;
  return flags.includes('*') && !disabledByDefault.has(name);
}

/**
 * Starts the controllers of this replica. They run only while it holds the leader Lease
 * (`cluster-system/cluster-controller-manager`), and reach the API only as a client.
 */
export function startControllerManager(opts: ControllerManagerOptions): ControllerManager {
  const enabled = ALL_CONTROLLERS.filter((n) => controllerEnabled(n, opts.enabled));
  if (enabled.length === 0) return { elector: undefined, stop: async () => {} };
  const client = new ApiClient(opts.client);
  const lock = new LeaseLock(client, opts.apiDomain, 'cluster-system', 'cluster-controller-manager');
  const leaseDurationMs = opts.leaseDurationMs ?? 15_000;
  const running: Promise<void>[] = [];
  const elector = new LeaderElector({
    lock,
    identity: opts.identity,
    leaseDurationMs,
    renewDeadlineMs: Math.round(leaseDurationMs * (2 / 3)),
    retryPeriodMs: Math.max(500, Math.round(leaseDurationMs / 7.5)),
    logger: opts.logger,
    onStartedLeading: (signal) => {
      const base = { client, logger: opts.logger, resyncMs: opts.resyncMs ?? 1_000 };
      for (const name of enabled) {
        if (name === 'namespace') running.push(runNamespaceController(base, signal));
        if (name === 'bootstrapsigner') running.push(runBootstrapSigner({ ...base, apiDomain: opts.apiDomain, cluster: opts.clusterInfo }, signal));
        if (name === 'tokencleaner') running.push(runTokenCleaner({ ...base, apiDomain: opts.apiDomain }, signal));
      }
    },
  });
  elector.start();
  return {
    elector,
    async stop() {
      await elector.stop();
      await Promise.all(running);
      client.close();
    },
  };
}
