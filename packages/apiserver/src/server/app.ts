import Koa from 'koa';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Store } from '@cluster/storage';
import type { AdmissionPlugin } from '../admission/admission.js';
import { admissionStepMetrics } from '../admission/step-metrics.js';
import type { Authenticator } from '../authn/authenticator.js';
import type { Authorizer } from '../authz/authorizer.js';
import type { AuditConfig } from '../filters/with-audit.js';
import type { PriorityAndFairnessDeps } from '../filters/with-priority-and-fairness.js';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { ProtobufCodec } from '../handlers/scope.js';
import type { HealthCheck } from '../health/health.js';
import type { ResourceRegistration } from '../registry/registration.js';
import { RegistrySet } from '../registry/registry-set.js';
import type { RequestState } from '../filters/state.js';
import { buildHandlerChain } from './handler-chain.js';
import { WatchFlusher } from '../handlers/watch-flusher.js';
import { ApiApplication } from './api-application.js';
import { ApiCatalog } from './api-catalog.js';
import type { BuildInfo } from '../discovery/server-version.js';
import { Aggregator, type AggregationConfig } from '../aggregator/aggregator.js';

export interface ApiServerConfig {
  store: Store;
  logger: Logger;
  metrics: Registry;
  /**
   * The /metrics text when it is not this registry's alone: a worker of a multi-process replica
   * answers with every worker's figures, which its primary aggregates. In the registry's format.
   */
  metricsText?: () => Promise<string>;
  apiDomain: string;
  registrations: readonly ResourceRegistration[];
  authenticators: readonly Authenticator[];
  anonymousAuth: boolean;
  /** The --authorization-mode chain as one authorizer (UnionAuthorizer). */
  authorizer: Authorizer;
  protobuf?: ProtobufCodec;
  /** The commit and date of this build, for /version (absent: unknown, as an unstamped build). */
  build?: BuildInfo;
  inflight: { readOnly: number; mutating: number };
  /** --enable-priority-and-fairness: API priority and fairness in place of the in-flight limit. */
  flowControl?: PriorityAndFairnessDeps;
  /** --request-timeout in ms: the longest a request other than a watch may take (0: no limit; default 60 s). */
  requestTimeoutMs?: number;
  health: { livez: HealthCheck[]; readyz: HealthCheck[] };
  /** host:port clients use to reach this server (discovery's serverAddressByClientCIDRs). */
  serverAddress: string;
  extraAdmission?: readonly AdmissionPlugin[];
  /** --runtime-config: whether a resource at its group version is served (absent: all are). */
  serves?: (info: ResourceInfo) => boolean;
  /** --show-hidden-metrics-for-version: shows metrics deprecated two releases ago again. */
  showHiddenMetricsForVersion?: string;
  /** Feature gate APIListChunking (default on): off, lists ignore `limit` and `continue`. */
  listChunking?: boolean;
  /** --enable-garbage-collector: Orphan and Foreground deletes leave their finalizers for a garbage collector. */
  garbageCollection?: boolean;
  /** --delete-collection-workers: deletes one DeleteCollection keeps in flight (default 1). */
  deleteCollectionWorkers?: number;
  /** Aborted when the replica shuts down: open watches then end cleanly. */
  shutdownSignal?: AbortSignal;
  /** --audit-policy-file and --audit-log-path: absent, nothing is audited and the filter is not in the chain. */
  audit?: AuditConfig;
  /** The aggregation layer's settings (the proxy client certificate, ...); it is always in the chain. */
  aggregation?: AggregationConfig;
}

export interface ApiServer {
  app: Koa<RequestState>;
  registries: RegistrySet;
  catalog: ApiCatalog;
  /** The aggregation layer: `start()` it once the server's start-up writes are done. */
  aggregator: Aggregator;
  /** Rounds of watch-stream writing so far (see WatchFlusher.rounds): watch activity, for the memory reclaimer. */
  watchRounds(): number;
}

/** Wires registries, documents and the filter chain into a Koa application (no listening). */
export function createApiServer(config: ApiServerConfig): ApiServer {
  // Disabled versions are left out of discovery and OpenAPI and answer 404; their registries
  // still exist for the server's own use (RBAC index, bootstrap).
  const served = config.serves ? config.registrations.filter((r) => config.serves!(r.info)) : config.registrations;
  const catalog = new ApiCatalog(served, config.apiDomain, config.serverAddress, config.build);
  let admission: readonly AdmissionPlugin[] = [];
  const registries = new RegistrySet(config.registrations, config.store, () => admission, (d, decode) => catalog.schemas(d, decode), {
    garbageCollection: config.garbageCollection ?? false,
    deleteCollectionWorkers: config.deleteCollectionWorkers ?? 1,
    admissionSteps: admissionStepMetrics(config.metrics),
  });
  admission = catalog.defaultAdmission(registries, config.extraAdmission ?? []);
  const app = new ApiApplication<RequestState>();
  app.proxy = false;
  app.silent = true;
  const aggregator = new Aggregator(() => registries, catalog, config.apiDomain, config.requestTimeoutMs ?? 60_000, config.aggregation);
  const flusher = new WatchFlusher();
  buildHandlerChain(app, config, registries, catalog, flusher, aggregator.middleware);
  return { app, registries, catalog, aggregator, watchRounds: () => flusher.rounds };
}
