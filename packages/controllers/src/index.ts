import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { ApiClient, type ApiClientOptions } from './client/api-client.js';
import { SharedInformers } from './client/informer.js';
import { LeaderElector } from './leaderelection/leader-elector.js';
import { LeaseLock } from './leaderelection/lease-lock.js';
import { registerControllerMetrics, type ControllerMetrics } from './metrics.js';
import { runNamespaceController } from './namespace/controller.js';
import { runCsrApprovingController } from './csrapproving/controller.js';
import { runCsrCleanerController } from './csrcleaner/controller.js';
import type { RetentionPeriods } from './csrcleaner/reconcile.js';
import { runCsrSigningController } from './csrsigning/controller.js';
import { loadSigningAuthority, type SigningAuthority } from './csrsigning/x509.js';
import { runBootstrapSigner } from './bootstrapsigner/controller.js';
import type { ClusterInfoSource } from './bootstrapsigner/kubeconfig.js';
import { runTokenCleaner } from './tokencleaner/controller.js';
import { runServiceAccountController } from './serviceaccount/controller.js';
import { runRootCaCertPublisher } from './rootcacertpublisher/controller.js';
import { runResourceQuotaController } from './resourcequota/controller.js';
import { runGarbageCollector, type GarbageCollectorOptions } from './garbagecollector/controller.js';
import { runApiServiceAvailability, type AvailabilitySettings } from './apiserviceavailability/controller.js';
import { runFlowControlKeeper } from './flowcontrolkeeper/controller.js';

export { ApiClient, ApiError, type WatchEvent } from './client/api-client.js';
export { Informer, SharedInformers } from './client/informer.js';
export { LeaderElector } from './leaderelection/leader-elector.js';
export { LeaseLock } from './leaderelection/lease-lock.js';
export { WorkQueue } from './workqueue/queue.js';
export { loadSigningAuthority, type SigningAuthority };
export type { RetentionPeriods, GarbageCollectorOptions, AvailabilitySettings };
export type { ClusterInfoSource } from './bootstrapsigner/kubeconfig.js';

const LEASE_NAME = 'cluster-controller-manager';

export interface ControllerManagerOptions {
  client: ApiClientOptions;
  apiDomain: string;
  identity: string;
  logger: Logger;
  /** Names from --controllers: `*` (all on by default), a name, or `-name` to disable one. */
  enabled: readonly string[];
  leaseDurationMs?: number;
  /** Where the controller metrics go (the replica's /metrics registry). */
  metrics?: Registry;
  settings?: ControllerSettings;
}

/** What the built-in controllers are configured with. */
export interface ControllerSettings {
  /** The cluster signing CA (--cluster-signing-cert-file/--cluster-signing-key-file); csrsigning needs it. */
  signingAuthority?: SigningAuthority;
  /** --cluster-signing-duration in ms (default one year). */
  signingDurationMs?: number;
  /** CSR garbage-collection periods (SPEC 3.2); shortened by tests. */
  csrRetention?: RetentionPeriods;
  /**
   * Server URL and cluster CA that `bootstrapsigner` publishes in `cluster-public/cluster-info`;
   * `root-ca-cert-publisher` publishes the same CA in every namespace.
   */
  clusterInfo?: ClusterInfoSource;
  /** How soon the namespace controller looks again at a namespace still being emptied (1 s by default). */
  resyncMs?: number;
  /** How often the resource quota controller recomputes every quota (5 min by default). */
  quotaResyncMs?: number;
  /** The garbage collector's discovery period and first-list bound. */
  garbageCollector?: GarbageCollectorOptions;
  /** The APIService availability checks: the proxy client certificate, the period, the metrics registry. */
  apiServiceAvailability?: AvailabilitySettings;
}

/** What every controller is given while its replica leads. */
export interface ControllerContext {
  client: ApiClient;
  informers: SharedInformers;
  logger: Logger;
  apiDomain: string;
  metrics?: ControllerMetrics;
}

/** One controller of the manager: its --controllers name, whether `*` includes it, and its loop. */
export interface ControllerDefinition {
  name: string;
  /** Upstream leaves some off unless named (tokencleaner, bootstrapsigner). */
  onByDefault: boolean;
  /** Runs until `signal` aborts (leadership lost or shutdown). Informers it asks for are started after. */
  start(ctx: ControllerContext, signal: AbortSignal): Promise<void>;
}

export interface ControllerManager {
  /** Undefined when no controller is enabled: then no leader election runs either. */
  elector: LeaderElector | undefined;
  /** Names of the controllers this replica runs while leading. */
  enabled: readonly string[];
  /** Stops the controllers and releases the leader lease. */
  stop(): Promise<void>;
}

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/** The controllers this package provides, with upstream's names, in start order. */
export function builtinControllers(settings: ControllerSettings = {}): ControllerDefinition[] {
  const resyncMs = settings.resyncMs ?? 1_000;
  return [
    { name: 'namespace', onByDefault: true, start: (ctx, signal) => runNamespaceController(ctx, signal, resyncMs) },
    {
      name: 'csrsigning',
      onByDefault: true,
      start: async (ctx, signal) => {
        const ca = settings.signingAuthority;
        if (!ca) {
          ctx.logger.warn('no cluster signing CA (--cluster-signing-cert-file/--cluster-signing-key-file): csrsigning does not run');
          return;
        }
        await runCsrSigningController(ctx, { ca, maxDurationMs: settings.signingDurationMs ?? YEAR_MS }, signal);
      },
    },
    { name: 'csrapproving', onByDefault: true, start: (ctx, signal) => runCsrApprovingController(ctx, signal) },
    { name: 'csrcleaner', onByDefault: true, start: (ctx, signal) => runCsrCleanerController(ctx, signal, { periods: settings.csrRetention }) },
    { name: 'garbagecollector', onByDefault: true, start: (ctx, signal) => runGarbageCollector(ctx, signal, settings.garbageCollector) },
    { name: 'serviceaccount', onByDefault: true, start: (ctx, signal) => runServiceAccountController(ctx, signal) },
    {
      name: 'root-ca-cert-publisher',
      onByDefault: true,
      start: async (ctx, signal) => {
        const caPem = settings.clusterInfo?.caPem;
        if (!caPem) {
          ctx.logger.warn('no cluster CA to publish: root-ca-cert-publisher does not run');
          return;
        }
        await runRootCaCertPublisher(ctx, caPem, signal);
      },
    },
    { name: 'resourcequota', onByDefault: true, start: (ctx, signal) => runResourceQuotaController(ctx, signal, { resyncMs: settings.quotaResyncMs }) },
    {
      name: 'apiservice-availability',
      onByDefault: true,
      start: (ctx, signal) => runApiServiceAvailability(ctx, settings.apiServiceAvailability ?? {}, signal),
    },
    { name: 'priority-and-fairness-config', onByDefault: true, start: (ctx, signal) => runFlowControlKeeper(ctx, signal) },
    // Off unless named, as upstream's ControllersDisabledByDefault.
    {
      name: 'bootstrapsigner',
      onByDefault: false,
      start: async (ctx, signal) => {
        if (!settings.clusterInfo) {
          ctx.logger.warn('no cluster information to publish: bootstrapsigner does not run');
          return;
        }
        await runBootstrapSigner(ctx, settings.clusterInfo, signal);
      },
    },
    {
      name: 'tokencleaner',
      onByDefault: false,
      start: (ctx, signal) => runTokenCleaner(ctx, signal),
    },
  ];
}

/**
 * Whether a controller is on under --controllers, with upstream's semantics: `-name` turns it
 * off, `name` on, and `*` turns on those that are on by default.
 */
export function controllerEnabled(name: string, flags: readonly string[], onByDefault = true): boolean {
  if (flags.includes(`-${name}`)) return false;
  if (flags.includes(name)) return true;
  return onByDefault && flags.includes('*');
}

/** The names --controllers may hold (besides `*` and their `-` forms), for start-up checks. */
export function knownControllerNames(definitions: readonly ControllerDefinition[] = builtinControllers()): string[] {
  return definitions.map((d) => d.name);
}

/**
 * Starts the controllers of this replica. They run only while it holds the leader Lease
 * (`cluster-system/cluster-controller-manager`), and reach the API only as a client; the
 * informers they share run for as long as the replica leads.
 */
export function startControllerManager(
  opts: ControllerManagerOptions,
  definitions: readonly ControllerDefinition[] = builtinControllers(opts.settings),
): ControllerManager {
  const enabled = definitions.filter((d) => controllerEnabled(d.name, opts.enabled, d.onByDefault));
  if (enabled.length === 0) return { elector: undefined, enabled: [], stop: async () => {} };
  const client = new ApiClient(opts.client);
  const metrics = opts.metrics ? registerControllerMetrics(opts.metrics) : undefined;
  metrics?.leader.set({ name: LEASE_NAME }, 0);
  const lock = new LeaseLock(client, opts.apiDomain, 'cluster-system', LEASE_NAME);
  const leaseDurationMs = opts.leaseDurationMs ?? 15_000;
  const running: Promise<unknown>[] = [];
  const elector = new LeaderElector({
    lock,
    identity: opts.identity,
    leaseDurationMs,
    renewDeadlineMs: Math.round(leaseDurationMs * (2 / 3)),
    retryPeriodMs: Math.max(500, Math.round(leaseDurationMs / 7.5)),
    logger: opts.logger,
    onStartedLeading: (signal) => {
      metrics?.leader.set({ name: LEASE_NAME }, 1);
      const informers = new SharedInformers(client, { logger: opts.logger });
      for (const d of enabled) {
        const ctx: ControllerContext = { client, informers, logger: opts.logger.child({ controller: d.name }), apiDomain: opts.apiDomain, metrics };
        running.push(d.start(ctx, signal).catch((err) => opts.logger.error({ err, controller: d.name }, 'controller stopped with an error')));
      }
      running.push(informers.run(signal));
    },
    onStoppedLeading: () => metrics?.leader.set({ name: LEASE_NAME }, 0),
  });
  elector.start();
  return {
    elector,
    enabled: enabled.map((d) => d.name),
    async stop() {
      await elector.stop();
      await Promise.all(running);
      client.close();
    },
  };
}
