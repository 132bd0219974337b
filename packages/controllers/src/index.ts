import type { Logger } from 'pino';
import { ApiClient, type ApiClientOptions } from './client/api-client.js';
import { LeaderElector } from './leaderelection/leader-elector.js';
import { LeaseLock } from './leaderelection/lease-lock.js';
import { runNamespaceController } from './namespace/controller.js';

export { ApiClient, ApiError } from './client/api-client.js';
export { LeaderElector } from './leaderelection/leader-elector.js';
export { LeaseLock } from './leaderelection/lease-lock.js';

export interface ControllerManagerOptions {
  client: ApiClientOptions;
  apiDomain: string;
  identity: string;
  logger: Logger;
  /** Names from --controllers: `*` (all), a name, or `-name` to disable one. */
  enabled: readonly string[];
  leaseDurationMs?: number;
}

export interface ControllerManager {
  /** Undefined when no controller is enabled: then no leader election runs either. */
  elector: LeaderElector | undefined;
  /** Stops the controllers and releases the leader lease. */
  stop(): Promise<void>;
}

const ALL_CONTROLLERS = ['namespace'];

/** Whether a controller is on under --controllers (upstream semantics: `*`, `name`, `-name`). */
export function controllerEnabled(name: string, flags: readonly string[]): boolean {
  if (flags.includes(`-${name}`)) return false;
  return flags.includes(name) || flags.includes('*');
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
      for (const name of enabled) {
        if (name === 'namespace') running.push(runNamespaceController({ client, logger: opts.logger, resyncMs: 1_000 }, signal));
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
