import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { startControllerManager } from '@cluster/controllers';
import { garbageCollectorControllers } from './start-garbage-collector.js';
import { pino, type Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { builtinResourceInfos, firstIP, startKubernetesServiceReconciler, type ApiServer } from '@cluster/apiserver';
import type { SupervisedEtcd } from '@cluster/storage';
import { startEmbeddedEtcd } from './embedded-etcd.js';
import type { ServerOptions } from './flags.js';
import { clusterSigningAuthority } from './certs.js';
import { resolveFeatureGates } from './feature-gates.js';
import { parseRuntimeConfig, servedGroupVersions } from './runtime-config.js';
import { writeAdminKubeconfig } from './admin-credentials.js';
import { startMemoryReclaimer } from './memory-reclaimer.js';
import { createListener, type RequestListener } from './listener.js';
import type { ConnectionShare } from './connection-balance.js';
import { resolveAdvertiseAddress } from './advertise-address.js';
import { buildAuthentication } from './start-authentication.js';
import { buildStorage } from './start-storage.js';
import { buildHealth } from './start-health.js';
import { servingTls, type ServingTls } from './start-tls.js';
import { startApi, type Api } from './start-api.js';
import { availabilitySettings, startAggregation, withFrontProxyDefaults } from './start-aggregator.js';

export { servingHosts } from './start-tls.js';
export { startEmbeddedEtcd } from './embedded-etcd.js';

/** Upstream's "golang's default" for --http2-max-streams-per-connection=0. */
const DEFAULT_HTTP2_MAX_STREAMS = 250;

/** A running replica: where it listens and how to stop it. */
export interface RunningServer {
  url: string;
  port: number;
  kubeconfigPath: string;
  adminToken: string;
  caPem?: string;
  api: ApiServer;
  /** The supervised embedded etcd, when this replica owns one. */
  embeddedEtcd?: SupervisedEtcd;
  /** Graceful stop: readyz fails, listeners close, etcd client closes, the embedded etcd stops. */
  stop(): Promise<void>;
  /** A worker thread: from now on it takes connections others hand over, and hands over its own. */
  takeConnections(): void;
  /** A worker thread: serves a connection another thread accepted (descriptor `fd`). */
  adoptConnection(fd: number): void;
}

/**
 * What a worker of a multi-process replica (`--workers` > 1) does differently from a replica of
 * one process. The primary has already prepared the data directory (certificates, tokens,
 * service-account key) and started the embedded etcd, whose endpoint is in `opts.etcdServers`.
 */
export interface WorkerRole {
  /** 1..N; the slot's number stays when a crashed worker is replaced. */
  id: number;
  /** Controllers (behind the Lease) and etcd compaction: exactly one worker of a replica runs them. */
  runsSingletons: boolean;
  /** The /metrics text of the whole replica (the primary aggregates every worker's registry). */
  metricsText: () => Promise<string>;
  /** Exposes this worker's registry to the primary's aggregation. */
  shareRegistry: (registry: Registry) => void;
  /**
   * The controllers' loopback token, the same in every worker: their requests go to the shared
   * port, and any worker may answer them.
   */
  loopbackToken: string;
  /** A worker thread's descriptor of the replica's listening socket (a worker process listens by port). */
  listenFd?: number;
  /** A worker thread's part in spreading connections over the threads (connection-balance.ts). */
  connectionShare?: ConnectionShare;
}

/**
 * Starts one replica from parsed options: embedded etcd when no --etcd-servers, generated CA,
 * serving certificate and admin token when none are given, then HTTPS (or dev HTTP) listening.
 */
export async function startServer(opts: ServerOptions, logger: Logger = pino({ level: opts.logLevel }), worker?: WorkerRole): Promise<RunningServer> {
  const dataDir = resolve(opts.dataDir);
  let etcd: SupervisedEtcd | undefined;
  let endpoints = opts.etcdServers;
  if (endpoints.length === 0) {
    etcd = await startEmbeddedEtcd(dataDir, logger);
    endpoints = [etcd.endpoint];
  }
  try {
    return await startWithEtcd(opts, logger, dataDir, endpoints, etcd, worker);
  } catch (e) {
    await etcd?.stop();
    throw e;
  }
}

/**
 * The composition root of a replica, in stages: configuration, authentication and serving
 * certificates, storage, the API (registries, authorization, admission, start-up writes), the
 * listener, then the singletons (the `kubernetes` Service and the controllers).
 */
async function startWithEtcd(
  opts: ServerOptions,
  logger: Logger,
  dataDir: string,
  endpoints: string[],
  etcd: SupervisedEtcd | undefined,
  worker: WorkerRole | undefined,
): Promise<RunningServer> {
  const runsSingletons = worker?.runsSingletons ?? true;
  opts = await withFrontProxyDefaults(opts, dataDir);
  const gates = resolveFeatureGates(opts.featureGates);
  for (const w of gates.warnings) logger.warn(w);
  const runtimeConfig = parseRuntimeConfig(opts.runtimeConfig, servedGroupVersions(builtinResourceInfos(opts.apiDomain)));
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  worker?.shareRegistry(metrics);

  const authn = await buildAuthentication(opts, logger, dataDir, worker?.loopbackToken);
  const serving = await servingTls(opts, dataDir, authn.requestHeaderCaPem);
  authn.trustClientCas(serving.clientCas);
  const storage = buildStorage(opts, gates, endpoints, metrics, logger, runsSingletons);
  const health = buildHealth(storage.store, opts.livezGracePeriod);
  const api = await startApi({ opts, logger, metrics, gates, runtimeConfig, worker, runsSingletons, authn, storage, health });
  const aggregation = await startAggregation(api.api, opts, logger, runsSingletons, { clientCaPem: serving.clientCaPem, requestHeaderCaPem: authn.requestHeaderCaPem });
  const listening = await listen(opts, serving, api.api, worker?.listenFd, worker?.connectionShare);
  const kubeconfigPath = join(dataDir, 'admin.kubeconfig');
  // A worker's primary writes the kubeconfig once, so workers do not replace each other's file.
  if (!worker) await writeAdminKubeconfig({ path: kubeconfigPath, serverUrl: listening.url, caPem: serving.caPem, token: authn.adminToken });
  logger.info({ url: listening.url, kubeconfig: kubeconfigPath }, 'serving');
  const singletons = runsSingletons ? await startSingletons(opts, logger, metrics, api, serving, listening, authn.loopbackToken) : undefined;
  health.hookDone('bootstrap-controller');

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      // SPEC 4.9: readyz fails at once, so load balancers stop sending; the Lease is released
      // so another replica's controllers take over; requests are served normally for
      // --shutdown-delay-duration; then watches end cleanly (their clients see the stream end and
      // re-watch elsewhere), the listener stops accepting, and requests in flight finish (bounded
      // by --request-timeout) before connections close.
      health.shuttingDown();
      listening.stopReclaimer();
      // Each is an etcd write or two; without quorum etcd takes ~7 s to refuse each, so they are
      // bounded: the replica still drains and exits in time (its leases then expire by themselves).
      await settleWithin(SHUTDOWN_WRITES_MS, singletons?.stop() ?? [], (err) => logger.warn({ err }, 'shutdown step failed'));
      if (opts.shutdownDelayDuration > 0) await new Promise((r) => setTimeout(r, opts.shutdownDelayDuration));
      api.endWatches();
      await listening.server.close(opts.requestTimeout > 0 ? opts.requestTimeout : 60_000);
      aggregation.stop();
      await api.stop();
      authn.stop();
      await storage.stop();
      await etcd?.stop();
    })();
    return stopped;
  };
  return {
    url: listening.url,
    port: listening.port,
    kubeconfigPath,
    adminToken: authn.adminToken,
    caPem: serving.caPem,
    api: api.api,
    stop,
    embeddedEtcd: etcd,
    takeConnections: () => listening.server.takeConnections(),
    adoptConnection: (fd) => listening.server.adopt(fd),
  };
}

/** The secure port (or dev HTTP) serving the API's app, and the memory reclaimer that counts its requests. */
async function listen(opts: ServerOptions, serving: ServingTls, api: ApiServer, fd: number | undefined, balance: ConnectionShare | undefined) {
  const server = createListener(
    {
      ...(balance ? { balance } : {}),
      tls: serving.tls,
      http2: !opts.disableHttp2Serving,
      http2MaxStreams: opts.http2MaxStreamsPerConnection || DEFAULT_HTTP2_MAX_STREAMS,
      keepAliveTimeoutMs: 65_000,
    },
    api.app.callback() as RequestListener,
  );
  let requests = 0;
  server.onRequest(() => requests++);
  // A round of watch writes counts as a request: a worker thread that only writes its watchers'
  // events (the writer's connection on another thread) is busy too.
  const stopReclaimer = startMemoryReclaimer(() => requests + api.watchRounds());
  const { port } = await server.listen(opts.securePort, opts.bindAddress, fd);
  const host = opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::' ? '127.0.0.1' : opts.bindAddress;
  const url = `${opts.devInsecureHttp ? 'http' : 'https'}://${host}:${port}`;
  return { server, port, url, stopReclaimer };
}

/**
 * What one process of a replica runs: the `kubernetes` Service and its Endpoints (this replica's
 * address while it serves) and the controllers behind their Lease. Resolves once the Service
 * exists (upstream's `bootstrap-controller` post-start hook). `stop` gives the writes it makes.
 */
async function startSingletons(
  opts: ServerOptions,
  logger: Logger,
  metrics: Registry,
  api: Api,
  serving: ServingTls,
  listening: { url: string; port: number },
  loopbackToken: string,
): Promise<{ stop(): Promise<unknown>[] }> {
  const kubernetesService = startKubernetesServiceReconciler({
    registries: api.api.registries,
    apiDomain: opts.apiDomain,
    serviceIP: firstIP(api.serviceRanges.ipRange),
    advertiseAddress: resolveAdvertiseAddress(opts.advertiseAddress, opts.bindAddress),
    securePort: listening.port,
    identity: `${hostname()}_${randomUUID()}`,
    leaseNamespace: 'cluster-system',
    log: (msg, err) => logger.warn({ err }, msg),
  });
  await kubernetesService.firstPass;
  const controllers = startControllerManager({
    client: { baseUrl: listening.url, token: loopbackToken, caPem: serving.caPem, userAgent: 'cluster-controller-manager' },
    apiDomain: opts.apiDomain,
    identity: `${hostname()}_${randomUUID()}`,
    logger: logger.child({ component: 'controllers' }),
    enabled: garbageCollectorControllers(opts, logger),
    metrics,
    settings: {
      signingAuthority: await clusterSigningAuthority(opts, serving.dataDirCa),
      signingDurationMs: opts.clusterSigningDuration,
      csrRetention: opts.csrRetention,
      // What bootstrapsigner publishes in cluster-public/cluster-info: this URL, and the cluster CA.
      // With explicit serving certificates that is taken to be the --client-ca-file, as in a
      // kubeadm cluster where one CA signs both; in plain-HTTP development there is none.
      clusterInfo: { serverUrl: listening.url, caPem: serving.caPem ?? serving.clientCaPem },
      apiServiceAvailability: await availabilitySettings(opts, metrics),
    },
  });
  return { stop: () => [kubernetesService.stop(), controllers.stop()] };
}

const SHUTDOWN_WRITES_MS = 5_000; // a stopping replica's wait for its lease releases and endpoint removal

/** Waits for `work` to settle, at most `ms`; failures are reported, not thrown. */
async function settleWithin(ms: number, work: (Promise<unknown> | undefined)[], onError: (err: unknown) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const reported = work.map((w) => w?.catch(onError));
  await Promise.race([Promise.all(reported), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
