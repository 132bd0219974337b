import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { randomBytes, randomUUID, type X509Certificate } from 'node:crypto';
import { startControllerManager } from '@cluster/controllers';
import { join, resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { registerEtcdRequestHistogram, registerStorageObjectsGauge } from './storage-metrics.js';
import {
  builtinResources,
  builtinResourceInfos,
  createApiServer,
  CrdController,
  BearerTokenAuthenticator,
  BootstrapTokenAuthenticator,
  registryLookup,
  ServiceAccountAuthenticator,
  ServiceAccountTokenIssuer,
  TokenAuthenticatorChain,
  TokenFileAuthenticator,
  X509Authenticator,
  RequestHeaderAuthenticator,
  WebhookTokenAuthenticator,
  certificatesOf,
  parseWebhookConfig,
  RbacAuthorizer,
  rbacEscalationPlugin,
  certificateAdmissionPlugins,
  startClusterRoleAggregator,
  aggregateUntilStable,
  ensureDefaultRbac,
  firstIP,
  parseIPv4Range,
  parsePortRange,
  startKubernetesServiceReconciler,
  AuditLogBackend,
  parseAuditPolicy,
  type AuditConfig,
  type Authenticator,
  type ApiServer,
  type RegistrySet,
  type TokenAuthenticator,
  type UserInfo,
} from '@cluster/apiserver';
import { CachedStore, Compactor, Etcd3Store, EtcdKvClient, newEtcdClient, superviseEtcd, type SupervisedEtcd } from '@cluster/storage';
import type { ServerOptions } from './flags.js';
import { clusterSigningAuthority, ensureCertificates } from './certs.js';
import { resolveFeatureGates } from './feature-gates.js';
import { parseRuntimeConfig, servedGroupVersions } from './runtime-config.js';
import { ensureAdminToken, parseTokenFile, writeAdminKubeconfig } from './admin-credentials.js';
import { authorizationFor } from './authorizers.js';
import { ensureBuiltinNamespaces } from './bootstrap.js';
import { retryStartupStep } from './startup-retry.js';
import { protobufCodecFor } from './protobuf.js';
import { readBuildInfo } from './build-info.js';
import { startMemoryReclaimer } from './memory-reclaimer.js';
import { createListener, type RequestListener } from './listener.js';
import { loadServiceAccountConfig } from './service-accounts.js';
import { startOidcAuthenticator } from './oidc.js';
import { resolveAdvertiseAddress } from './advertise-address.js';

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
 * The etcd of the embedded default, under `<dataDir>/etcd`. It is supervised: if it dies it comes
 * back (same ports and data) with backoff, and readyz reports etcd until then.
 */
export async function startEmbeddedEtcd(dataDir: string, logger: Logger): Promise<SupervisedEtcd> {
  const etcd = await superviseEtcd({
    dataDir: join(dataDir, 'etcd'),
    log: (line) => logger.debug({ etcd: line }),
    onEvent: (e) => (e.type === 'restarted' ? logger.info({ etcd: e.detail }, 'embedded etcd restarted') : logger.warn({ etcd: e.detail }, `embedded etcd ${e.type}`)),
  });
  logger.info({ endpoint: etcd.endpoint, pid: etcd.pid() }, 'embedded etcd started');
  return etcd;
}

/** The names the generated serving certificate covers. */
export function servingHosts(opts: ServerOptions): string[] {
  const hosts = ['127.0.0.1', 'localhost', hostname()];
  if (opts.bindAddress !== '0.0.0.0' && !hosts.includes(opts.bindAddress)) hosts.push(opts.bindAddress);
  return hosts;
}

async function startWithEtcd(
  opts: ServerOptions,
  logger: Logger,
  dataDir: string,
  endpoints: string[],
  etcd: SupervisedEtcd | undefined,
  worker: WorkerRole | undefined,
): Promise<RunningServer> {
  const runsSingletons = worker?.runsSingletons ?? true;
  const admin = await ensureAdminToken(dataDir);
  const tokens = new Map<string, UserInfo>();
  for (const file of [admin.tokenFile, opts.tokenAuthFile].filter(Boolean)) {
    for (const [token, user] of await parseTokenFile(file, { warn: (m) => logger.warn(m) })) tokens.set(token, user);
  }
  // The controllers' loopback identity: privileged, known only to this process.
  const loopbackToken = worker?.loopbackToken ?? randomBytes(32).toString('base64url');
  tokens.set(loopbackToken, { username: 'system:apiserver', uid: randomUUID(), groups: ['system:masters'] });
  const authenticators: Authenticator[] = [];
  // The authenticating proxy first (SPEC 5.3): it strips its headers from every request.
  const requestHeaderCaPem = opts.requestheaderClientCaFile ? await readFile(opts.requestheaderClientCaFile, 'utf8') : undefined;
  if (requestHeaderCaPem) {
    const cas = certificatesOf(requestHeaderCaPem);
    if (cas.length === 0) throw new Error(`--requestheader-client-ca-file ${opts.requestheaderClientCaFile}: no certificate found`);
    authenticators.push(
      new RequestHeaderAuthenticator({
        cas,
        allowedNames: opts.requestheaderAllowedNames,
        usernameHeaders: opts.requestheaderUsernameHeaders,
        uidHeaders: opts.requestheaderUidHeaders,
        groupHeaders: opts.requestheaderGroupHeaders,
        extraHeaderPrefixes: opts.requestheaderExtraHeadersPrefix,
      }),
    );
  }
  // Without a client CA the TLS layer asks for no certificate, so x509 then never answers. The
  // listener also trusts the proxy's CA; x509 accepts only leaves of the client CA.
  let clientCaCerts: X509Certificate[] = [];
  authenticators.push(new X509Authenticator(() => clientCaCerts));
  // Token methods in DESIGN's order: token file, bootstrap tokens, service-account JWTs. The
  // lookups read through the registries, bound once the API server exists.
  const sa = await loadServiceAccountConfig(opts, opts.certDir || join(dataDir, 'certs'));
  let registries: RegistrySet | undefined;
  const secretLookup = registryLookup(() => registries, '', 'secrets');
  const tokenMethods: TokenAuthenticator[] = [new TokenFileAuthenticator(tokens, sa.apiAudiences)];
  if (opts.enableBootstrapTokenAuth) {
    tokenMethods.push(new BootstrapTokenAuthenticator({ secrets: secretLookup, apiDomain: opts.apiDomain, apiAudiences: sa.apiAudiences }));
  }
  tokenMethods.push(
    new ServiceAccountAuthenticator({
      keys: sa.verifyKeys,
      issuers: sa.issuers,
      apiAudiences: sa.apiAudiences,
      apiDomain: opts.apiDomain,
      // Every token issued here is bound: always checked, whatever --service-account-lookup says.
      lookup: { serviceAccount: registryLookup(() => registries, '', 'serviceaccounts'), secret: secretLookup },
    }),
  );
  // OIDC after service accounts, as upstream: both read JWTs, and an OIDC miss may refetch keys.
  const oidc = await startOidcAuthenticator(opts, sa.apiAudiences, logger);
  if (oidc) tokenMethods.push(oidc);
  if (opts.authenticationTokenWebhookConfigFile) {
    const file = opts.authenticationTokenWebhookConfigFile;
    const config = parseWebhookConfig(await readFile(file, 'utf8'), file, (p) => readFileSync(p, 'utf8'));
    tokenMethods.push(
      new WebhookTokenAuthenticator({
        config,
        version: opts.authenticationTokenWebhookVersion as 'v1' | 'v1beta1',
        apiDomain: opts.apiDomain,
        apiAudiences: sa.apiAudiences,
        cacheTtlMs: opts.authenticationTokenWebhookCacheTtl,
        timeoutMs: opts.webhookTimeoutMs,
        onError: (err) => logger.warn({ err: err.message }, 'token webhook failed'),
      }),
    );
  }
  const tokenAuthenticator = new TokenAuthenticatorChain(tokenMethods);
  const tokenIssuer = new ServiceAccountTokenIssuer(sa.signingKey, sa.issuers[0]!, opts.apiDomain);
  authenticators.push(new BearerTokenAuthenticator(tokenAuthenticator));

  const client = newEtcdClient(endpoints);
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  worker?.shareRegistry(metrics);
  const etcdWatches = new Gauge({
    name: 'apiserver_storage_etcd_watches',
    help: 'Number of etcd watch streams this replica holds (one per cached resource).',
    registers: [metrics],
  });
  // Upstream's gate (on by default): most-recent lists and their pages from the watch cache once
  // shown current; off: from etcd. Progress requests only where etcd orders their answers.
  const gates = resolveFeatureGates(opts.featureGates);
  const runtimeConfig = parseRuntimeConfig(opts.runtimeConfig, servedGroupVersions(builtinResourceInfos(opts.apiDomain)));
  for (const w of gates.warnings) logger.warn(w);
  const consistentListFromCache = gates.enabled['ConsistentListFromCache']!;
  // Ours (on by default): most-recent gets from the watch cache the same way; off: from etcd.
  const consistentGetFromCache = gates.enabled['ConsistentGetFromCache']!;
  // Ranges and transactions go through the lean KV client, each store on a connection of its own
  // (the cache's lists must not queue behind writes); watches stay on the etcd3 clients.
  const store = new CachedStore(
    new Etcd3Store(client, { kv: new EtcdKvClient(endpoints), observeRequest: registerEtcdRequestHistogram(metrics) }),
    {
      cacheSource: new Etcd3Store(newEtcdClient(endpoints), { kv: new EtcdKvClient(endpoints) }),
      windowMs: opts.watchCacheHistory,
      consistentListFromCache,
      consistentGetFromCache,
      progressRequests: consistentListFromCache || consistentGetFromCache ? 'auto' : 'never',
      log: (message) => logger.info({ component: 'watch-cache' }, message),
      onEtcdWatchCountChange: (delta) => etcdWatches.inc(delta),
    },
  );
  const clientWatchers = new Gauge({
    name: 'apiserver_watch_cache_watchers',
    help: 'Number of client watches served from the watch cache.',
    registers: [metrics],
    collect() {
      this.set(store.watcherCount);
    },
  });
  void clientWatchers;
  registerStorageObjectsGauge(metrics, () => store.cachedObjectCounts);
  const compactor = runsSingletons && opts.etcdCompactionInterval > 0 ? new Compactor(client, { intervalMs: opts.etcdCompactionInterval }) : undefined;
  compactor?.start();
  let shuttingDown = false;
  const shutdown = new AbortController();
  const etcdCheck = { name: 'etcd', check: () => store.ping() };
  // --livez-grace-period: while starting up, a failing check does not make the process "dead".
  const startedAt = Date.now();
  const etcdLiveness = {
    name: 'etcd',
    check: async () => {
      try {
        await store.ping();
      } catch (e) {
        if (Date.now() - startedAt >= opts.livezGracePeriod) throw e;
      }
    },
  };
  const ping = { name: 'ping', check: async () => {} };
  // SPEC 4.9 post-start hooks, reported by readyz (`poststarthook/<name>`) until each has run.
  const hooksDone = new Set<string>();
  const hook = (name: string) => ({
    name: `poststarthook/${name}`,
    check: async () => {
      if (!hooksDone.has(name)) throw new Error('not finished');
    },
  });
  const hooks = ['start-system-namespaces-controller', 'rbac/bootstrap-roles', 'informer-sync', 'bootstrap-controller'].map(hook);
  // The RBAC index (watch of the four kinds) also drives ClusterRole aggregation, so it runs in every mode.
  const rbac = new RbacAuthorizer(() => api.registries, { apiDomain: opts.apiDomain, log: (msg, err) => logger.warn({ err }, msg) });
  const { authorizer, node } = authorizationFor(opts, rbac, () => api.registries, logger, runsSingletons);
  const audit = await auditConfig(opts, metrics, logger);
  const serviceRanges = { ipRange: parseIPv4Range(opts.serviceClusterIpRange), nodePorts: parsePortRange(opts.serviceNodePortRange) };
  const api = createApiServer({
    store,
    logger,
    metrics,
    metricsText: worker?.metricsText,
    apiDomain: opts.apiDomain,
    registrations: builtinResources(opts.apiDomain, {
      tokens: { issuer: tokenIssuer, apiAudiences: sa.apiAudiences, secrets: secretLookup, apiDomain: opts.apiDomain },
      tokenReview: { tokens: tokenAuthenticator, apiAudiences: sa.apiAudiences },
      authorizer,
    }, serviceRanges, Math.ceil(opts.eventTtl / 1000)),
    authenticators,
    anonymousAuth: opts.anonymousAuth,
    authorizer,
    extraAdmission: [rbacEscalationPlugin(opts.apiDomain, () => authorizer, rbac), ...certificateAdmissionPlugins(opts.apiDomain, () => authorizer)],
    audit: audit?.config,
    shutdownSignal: shutdown.signal,
    listChunking: gates.enabled['APIListChunking']!,
    showHiddenMetricsForVersion: opts.showHiddenMetricsForVersion || undefined,
    serves: (info) => runtimeConfig.serves(info.group, info.version, info.resource),
    protobuf: protobufCodecFor(opts.apiDomain),
    build: readBuildInfo(),
    inflight: { readOnly: opts.maxRequestsInflight, mutating: opts.maxMutatingRequestsInflight },
    requestTimeoutMs: opts.requestTimeout,
    health: {
      livez: [ping, etcdLiveness],
      readyz: [
        ping,
        etcdCheck,
        ...hooks,
        {
          name: 'shutdown',
          check: async () => {
            if (shuttingDown) throw new Error('process is shutting down');
          },
        },
      ],
    },
    serverAddress: `${opts.bindAddress === '0.0.0.0' ? '127.0.0.1' : opts.bindAddress}:${opts.securePort}`,
  });
  registries = api.registries;
  // Every resource gets its watch cache now, not under the first burst of reads that need it.
  for (const registry of api.registries.stored()) store.cacherFor(registry.prefix(''));
  // Each step is idempotent, so an etcd hiccup (a leader election, a timeout) or another replica
  // writing first is retried rather than ending the process (see startup-retry.ts).
  const retrying = { log: (msg: string, err: unknown) => logger.warn({ err }, msg) };
  await retryStartupStep('start-system-namespaces', () => ensureBuiltinNamespaces(api), retrying);
  hooksDone.add('start-system-namespaces-controller');
  await retryStartupStep('rbac/bootstrap-roles', () => ensureDefaultRbac(api.registries, opts.apiDomain, { nodeJoin: opts.nodeJoinBindings }), retrying);
  const clusterRoles = api.registries.byResource(`rbac.authorization.${opts.apiDomain}`, 'clusterroles')!;
  await retryStartupStep('clusterrole-aggregation', () => aggregateUntilStable(clusterRoles), retrying);
  await rbac.start();
  await node?.start();
  hooksDone.add('rbac/bootstrap-roles');
  hooksDone.add('informer-sync');
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

  let tls: { cert: string; key: string; clientCa?: string } | undefined;
  let clientCaPem: string | undefined;
  let caPem: string | undefined;
  let dataDirCa: { certPem: string; keyPem: string } | undefined;
  if (!opts.devInsecureHttp) {
    let cert: string;
    let key: string;
    if (opts.tlsCertFile) {
      cert = await readFile(opts.tlsCertFile, 'utf8');
      key = await readFile(opts.tlsPrivateKeyFile, 'utf8');
    } else {
      const certs = await ensureCertificates({ certDir: opts.certDir || join(dataDir, 'certs'), hosts: servingHosts(opts) });
      cert = certs.servingCertPem;
      key = certs.servingKeyPem;
      caPem = certs.caCertPem;
      dataDirCa = { certPem: certs.caCertPem, keyPem: certs.caKeyPem };
    }
    // The embedded default (CA generated in the data dir) also trusts that CA for client
    // certificates, as an installer configures a single-machine cluster: the certificates the
    // cluster issues (admin, nodes) then authenticate. Explicit certificates keep upstream's rule.
    const clientCa = opts.clientCaFile ? await readFile(opts.clientCaFile, 'utf8') : caPem;
    clientCaPem = clientCa;
    clientCaCerts = clientCa ? certificatesOf(clientCa) : [];
    const trusted = [clientCa, requestHeaderCaPem].filter(Boolean).join('\n');
    tls = { cert, key, clientCa: trusted || undefined };
  }
  const server = createListener(
    {
      tls,
      http2: !opts.disableHttp2Serving,
      http2MaxStreams: opts.http2MaxStreamsPerConnection || DEFAULT_HTTP2_MAX_STREAMS,
      keepAliveTimeoutMs: 65_000,
    },
    api.app.callback() as RequestListener,
  );
  let requests = 0;
  server.onRequest(() => requests++);
  const stopReclaimer = startMemoryReclaimer(() => requests);
  const { port } = await server.listen(opts.securePort, opts.bindAddress);
  const host = opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::' ? '127.0.0.1' : opts.bindAddress;
  const url = `${opts.devInsecureHttp ? 'http' : 'https'}://${host}:${port}`;
  const kubeconfigPath = join(dataDir, 'admin.kubeconfig');
  // A worker's primary writes the kubeconfig once, so workers do not replace each other's file.
  if (!worker) await writeAdminKubeconfig({ path: kubeconfigPath, serverUrl: url, caPem, token: admin.token });
  logger.info({ url, kubeconfig: kubeconfigPath }, 'serving');
  // The `kubernetes` Service and its Endpoints: this replica's address while it serves. With
  // several workers, the worker that runs the singletons keeps them for the whole replica.
  const kubernetesService = runsSingletons
    ? startKubernetesServiceReconciler({
        registries: api.registries,
        apiDomain: opts.apiDomain,
        serviceIP: firstIP(serviceRanges.ipRange),
        advertiseAddress: resolveAdvertiseAddress(opts.advertiseAddress, opts.bindAddress),
        securePort: port,
        identity: `${hostname()}_${randomUUID()}`,
        leaseNamespace: 'cluster-system',
        log: (msg, err) => logger.warn({ err }, msg),
      })
    : undefined;
  // Upstream's post-start hook of the same name: the kubernetes Service exists before we say ready.
  await kubernetesService?.firstPass;
  hooksDone.add('bootstrap-controller');
  const controllers = !runsSingletons
    ? { stop: async () => {} }
    : startControllerManager({
    client: { baseUrl: url, token: loopbackToken, caPem, userAgent: 'cluster-controller-manager' },
    apiDomain: opts.apiDomain,
    identity: `${hostname()}_${randomUUID()}`,
    logger: logger.child({ component: 'controllers' }),
    enabled: opts.controllers,
    metrics,
    settings: {
      signingAuthority: await clusterSigningAuthority(opts, dataDirCa),
      signingDurationMs: opts.clusterSigningDuration,
      csrRetention: opts.csrRetention,
      // What bootstrapsigner publishes in cluster-public/cluster-info: this URL, and the cluster CA.
      // With explicit serving certificates that is taken to be the --client-ca-file, as in a
      // kubeadm cluster where one CA signs both; in plain-HTTP development there is none.
      clusterInfo: { serverUrl: url, caPem: caPem ?? clientCaPem },
    },
  });

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      // SPEC 4.9: readyz fails at once, so load balancers stop sending; the Lease is released
      // so another replica's controllers take over; requests are served normally for
      // --shutdown-delay-duration; then watches end cleanly (their clients see the stream end and
      // re-watch elsewhere), the listener stops accepting, and requests in flight finish (bounded
      // by --request-timeout) before connections close.
      shuttingDown = true;
      stopReclaimer();
      // Each is an etcd write or two; without quorum etcd takes ~7 s to refuse each, so they are
      // bounded: the replica still drains and exits in time (its leases then expire by themselves).
      await settleWithin(SHUTDOWN_WRITES_MS, [kubernetesService?.stop(), controllers.stop()], (err) => logger.warn({ err }, 'shutdown step failed'));
      if (opts.shutdownDelayDuration > 0) await new Promise((r) => setTimeout(r, opts.shutdownDelayDuration));
      shutdown.abort();
      await server.close(opts.requestTimeout > 0 ? opts.requestTimeout : 60_000);
      stopAggregator();
      crds.stop();
      rbac.stop();
      node?.stop();
      await audit?.backend.close();
      oidc?.stop();
      await compactor?.stop();
      await store.close();
      await etcd?.stop();
    })();
    return stopped;
  };
  return { url, port, kubeconfigPath, adminToken: admin.token, caPem, api, stop, embeddedEtcd: etcd };
}

const SHUTDOWN_WRITES_MS = 5_000; // a stopping replica's wait for its lease releases and endpoint removal

/** Waits for `work` to settle, at most `ms`; failures are reported, not thrown. */
async function settleWithin(ms: number, work: (Promise<unknown> | undefined)[], onError: (err: unknown) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const reported = work.map((w) => w?.catch(onError));
  await Promise.race([Promise.all(reported), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * The audit log of --audit-log-path with the policy of --audit-policy-file. As upstream, a log
 * without a policy records nothing (said once in the log), and a policy without a log has nowhere
 * to write. A policy file that does not parse stops start-up.
 */
async function auditConfig(opts: ServerOptions, metrics: Registry, logger: Logger): Promise<{ config: AuditConfig; backend: AuditLogBackend } | undefined> {
  if (!opts.auditLogPath || !opts.auditPolicyFile) {
    if (opts.auditLogPath) logger.warn('--audit-log-path without --audit-policy-file: no audit events are recorded');
    return undefined;
  }
  const policy = parseAuditPolicy(await readFile(opts.auditPolicyFile, 'utf8'), opts.apiDomain);
  const backend = new AuditLogBackend({
    path: opts.auditLogPath,
    maxSizeMB: opts.auditLogMaxsize,
    maxBackups: opts.auditLogMaxbackup,
    maxAgeDays: opts.auditLogMaxage,
    metrics,
  });
  return { config: { policy, sink: backend }, backend };
}
