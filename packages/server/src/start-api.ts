import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  builtinResources,
  createApiServer,
  CrdController,
  RbacAuthorizer,
  rbacEscalationPlugin,
  certificateAdmissionPlugins,
  webhookAdmission,
  startClusterRoleAggregator,
  aggregateUntilStable,
  ensureDefaultRbac,
  parseIPv4Range,
  parsePortRange,
  type ApiServer,
} from '@cluster/apiserver';
import type { ServerOptions } from './flags.js';
import type { ResolvedGates } from './feature-gates.js';
import type { RuntimeConfig } from './runtime-config.js';
import type { Authentication } from './start-authentication.js';
import type { Storage } from './start-storage.js';
import type { Health } from './start-health.js';
import type { WorkerRole } from './start.js';
import { authorizationFor } from './authorizers.js';
import { auditConfig } from './audit-config.js';
import { ensureBuiltinNamespaces } from './bootstrap.js';
import { ensureSystemPriorityClasses } from './start-priority-classes.js';
import { etcdComponentProbe } from './start-component-status.js';
import { retryStartupStep } from './startup-retry.js';
import { protobufCodecFor } from './protobuf.js';
import { readBuildInfo } from './build-info.js';
import { optInAdmissionPlugins } from './admission-plugins.js';
import { aggregationConfig } from './start-aggregator.js';
import { buildPriorityAndFairness } from './start-apf.js';
import { webhookCredentialsFor } from './start-admission.js';

/** The API stage of a replica: the Koa app with every registry, its authorizers and admission, bootstrapped. */
export interface Api {
  api: ApiServer;
  serviceRanges: { ipRange: ReturnType<typeof parseIPv4Range>; nodePorts: ReturnType<typeof parsePortRange> };
  /** Aborted when the replica's open watches are to end (shutdown). */
  endWatches(): void;
  stop(): Promise<void>;
}

export interface ApiStageInputs {
  opts: ServerOptions;
  logger: Logger;
  metrics: Registry;
  gates: ResolvedGates;
  runtimeConfig: RuntimeConfig;
  worker: WorkerRole | undefined;
  runsSingletons: boolean;
  authn: Authentication;
  storage: Storage;
  health: Health;
}

/**
 * Builds the API server (registries, authorization, admission, audit) over the store, then runs the
 * start-up writes (built-in namespaces, default RBAC, ClusterRole aggregation, each retried while
 * etcd is unavailable) and starts the watches every replica keeps: RBAC, the Node graph, CRDs.
 */
export async function startApi(inputs: ApiStageInputs): Promise<Api> {
  const { opts, logger, metrics, authn, storage, health } = inputs;
  const { store } = storage;
  const watchesEnd = new AbortController();
  // The RBAC index (watch of the four kinds) also drives ClusterRole aggregation, so it runs in every mode.
  const rbac = new RbacAuthorizer(() => api.registries, { apiDomain: opts.apiDomain, log: (msg, err) => logger.warn({ err }, msg) });
  const { authorizer, node } = authorizationFor(opts, rbac, () => api.registries, logger, inputs.runsSingletons);
  const audit = await auditConfig(opts, metrics, logger);
  const serviceRanges = { ipRange: parseIPv4Range(opts.serviceClusterIpRange), nodePorts: parsePortRange(opts.serviceNodePortRange) };
  const sa = authn.serviceAccounts;
  // Dynamic admission webhooks run after the built-in plugins; their configurations are watched.
  const webhooks = webhookAdmission(() => api.registries, { apiDomain: opts.apiDomain, metrics, credentials: webhookCredentialsFor(opts), log: (msg, err) => logger.warn({ err, component: 'admission-webhooks' }, msg) });
  const apf = buildPriorityAndFairness(opts, metrics, logger, () => store.cachedObjectCounts);
  const api = createApiServer({
    store,
    logger,
    metrics,
    metricsText: inputs.worker?.metricsText,
    apiDomain: opts.apiDomain,
    registrations: builtinResources(opts.apiDomain, {
      tokens: { issuer: authn.tokenIssuer, apiAudiences: sa.apiAudiences, secrets: authn.secretLookup, pods: authn.podLookup, apiDomain: opts.apiDomain },
      tokenReview: { tokens: authn.tokenAuthenticator, apiAudiences: sa.apiAudiences },
      authorizer,
      registries: () => api?.registries,
    }, serviceRanges, Math.ceil(opts.eventTtl / 1000), etcdComponentProbe(storage.endpoints)),
    authenticators: authn.authenticators,
    anonymousAuth: opts.anonymousAuth,
    authorizer,
    extraAdmission: [rbacEscalationPlugin(opts.apiDomain, () => authorizer, rbac), ...certificateAdmissionPlugins(opts.apiDomain, () => authorizer), ...optInAdmissionPlugins(opts.enableAdmissionPlugins, () => authorizer, () => api.registries), ...webhooks.plugins],
    audit: audit?.config,
    aggregation: await aggregationConfig(opts, logger),
    shutdownSignal: watchesEnd.signal,
    listChunking: inputs.gates.enabled['APIListChunking']!,
    garbageCollection: opts.enableGarbageCollector,
    deleteCollectionWorkers: opts.deleteCollectionWorkers,
    showHiddenMetricsForVersion: opts.showHiddenMetricsForVersion || undefined,
    serves: (info) => inputs.runtimeConfig.serves(info.group, info.version, info.resource),
    protobuf: protobufCodecFor(opts.apiDomain),
    build: readBuildInfo(),
    inflight: { readOnly: opts.maxRequestsInflight, mutating: opts.maxMutatingRequestsInflight },
    flowControl: apf.deps,
    requestTimeoutMs: opts.requestTimeout,
    health: { livez: health.livez, readyz: health.readyz },
    serverAddress: `${opts.bindAddress === '0.0.0.0' ? '127.0.0.1' : opts.bindAddress}:${opts.securePort}`,
  });
  authn.bindRegistries(api.registries);
  // Every resource gets its watch cache now, not under the first burst of reads that need it.
  for (const registry of api.registries.stored()) store.cacherFor(registry.prefix(''));
  // Each step is idempotent, so an etcd hiccup (a leader election, a timeout) or another replica
  // writing first is retried rather than ending the process (see startup-retry.ts).
  const retrying = { log: (msg: string, err: unknown) => logger.warn({ err }, msg) };
  await retryStartupStep('start-system-namespaces', () => ensureBuiltinNamespaces(api), retrying);
  health.hookDone('start-system-namespaces-controller');
  await retryStartupStep('scheduling/bootstrap-system-priority-classes', () => ensureSystemPriorityClasses(api, opts.apiDomain), retrying);
  await retryStartupStep('rbac/bootstrap-roles', () => ensureDefaultRbac(api.registries, opts.apiDomain, { nodeJoin: opts.nodeJoinBindings }), retrying);
  const clusterRoles = api.registries.byResource(`rbac.authorization.${opts.apiDomain}`, 'clusterroles')!;
  await retryStartupStep('clusterrole-aggregation', () => aggregateUntilStable(clusterRoles), retrying);
  await rbac.start();
  await node?.start();
  health.hookDone('rbac/bootstrap-roles');
  health.hookDone('informer-sync');
  const stopAggregator = startClusterRoleAggregator(rbac.index, () => clusterRoles);
  // Custom resources are served from a watch on CRDs, so every replica follows every change.
  const crds = new CrdController({
    registries: api.registries,
    catalog: api.catalog,
    apiDomain: opts.apiDomain,
    startCache: (prefix) => void store.cacherFor(prefix),
    releaseCache: (prefix) => store.releaseCacher(prefix),
    log: (msg, err) => logger.warn({ err, component: 'crd-controller' }, msg),
  });
  await crds.start();
  await webhooks.source.start();
  await apf.start(() => api.registries);
  return {
    api,
    serviceRanges,
    endWatches: () => watchesEnd.abort(),
    stop: async () => {
      stopAggregator();
      crds.stop();
      webhooks.source.stop();
      apf.stop();
      rbac.stop();
      node?.stop();
      await audit?.backend.close();
    },
  };
}
