// The table of command-line flags: upstream kube-apiserver names and defaults unless marked
// "ours". Durations are in milliseconds.

/** How a flag's text becomes a value; the names follow the pflag/cliflag value types. */
export type FlagKind =
  | 'string'
  | 'bool'
  | 'int'
  | 'duration'
  | 'ip'
  | 'level' // klog's -v: an unsigned 32-bit number we accept and ignore
  | 'stringSlice' // CSV, repeated flags append (the first use replaces the default)
  | 'stringArray' // no splitting, repeated flags append
  | 'mapStringString' // `k=v,k2=v2`, repeated flags merge
  | 'mapStringStringNoSplit' // one `k=v` per use, repeated flags merge
  | 'configurationMap' // `k[=v],...`, a missing value is ''
  | 'featureGates'; // `Name=bool,...`

/** One flag: its name without dashes, where its value goes and how it is parsed. */
export interface FlagDefinition {
  name: string;
  key: keyof ServerOptions;
  kind: FlagKind;
  shorthand?: string;
  /** The type word shown in usage, as pflag prints it. */
  typeName?: string;
  help: string;
}

/** The parsed command line of the server. */
export interface ServerOptions {
  /** `--etcd-servers`; empty means "run an embedded etcd under the data dir". */
  etcdServers: string[];
  etcdPrefix: string;
  /** `--etcd-compaction-interval` in ms; 0 disables compaction. */
  etcdCompactionInterval: number;
  /**
   * `--enable-garbage-collector` (upstream's default, true): Orphan and Foreground deletes leave the
   * object under the `orphan` / `foregroundDeletion` finalizer for a garbage collector to finish:
   * this server's own `garbagecollector` controller, or upstream's kube-controller-manager when
   * ours is turned off with `--controllers=*,-garbagecollector`.
   */
  enableGarbageCollector: boolean;
  /** `--delete-collection-workers` (default 1, as upstream): deletes one DeleteCollection keeps in flight. */
  deleteCollectionWorkers: number;
  /** `--enable-priority-and-fairness` (default true): API priority and fairness instead of the max-in-flight limit. */
  enablePriorityAndFairness: boolean;
  /** `--secure-port`; 0 picks a free port. */
  securePort: number;
  bindAddress: string;
  /** `--advertise-address`; '' means the bind address, or the first non-loopback address when bound to 0.0.0.0 or loopback. */
  advertiseAddress: string;
  /** `--service-cluster-ip-range`: the IPv4 CIDR cluster IPs of services come from. */
  serviceClusterIpRange: string;
  /** `--service-node-port-range`: the node ports of NodePort and LoadBalancer services. */
  serviceNodePortRange: string;
  /** `--event-ttl` in ms: events expire this long after their last write. */
  eventTtl: number;
  /** `--http2-max-streams-per-connection`; 0 means the default (250). */
  http2MaxStreamsPerConnection: number;
  disableHttp2Serving: boolean;
  /** `--data-dir` (ours): embedded etcd data, generated certificates and admin credentials. */
  dataDir: string;
  /** `--cert-dir`; defaults to `<data-dir>/certs`. */
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  /** `--proxy-client-cert-file`/`--proxy-client-key-file`: what the aggregator presents to extension API servers. */
  proxyClientCertFile: string;
  proxyClientKeyFile: string;
  /** `--apiservice-availability-check-period` (ours): how often each extension's discovery is checked (upstream: 30 s). */
  apiserviceAvailabilityCheckPeriod: number;
  clientCaFile: string;
  /** `--api-domain` (ours): the suffix of built-in group names. */
  apiDomain: string;
  tokenAuthFile: string;
  anonymousAuth: boolean;
  enableBootstrapTokenAuth: boolean;
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile: string;
  serviceAccountIssuers: string[];
  serviceAccountLookup: boolean;
  /** `--api-audiences`; empty means the service-account issuers. */
  apiAudiences: string[];
  oidcIssuerUrl: string;
  oidcClientId: string;
  oidcUsernameClaim: string;
  oidcUsernamePrefix: string;
  oidcGroupsClaim: string;
  oidcGroupsPrefix: string;
  oidcRequiredClaims: Record<string, string>;
  oidcCaFile: string;
  oidcSigningAlgs: string[];
  /** Not a flag: OIDC discovery retry and key refetch intervals (10 s each), which tests shorten. */
  oidcTiming?: { discoveryRetryMs?: number; keyRefreshIntervalMs?: number };
  authenticationTokenWebhookConfigFile: string;
  authenticationTokenWebhookCacheTtl: number;
  authenticationTokenWebhookVersion: string;
  requestheaderUsernameHeaders: string[];
  requestheaderUidHeaders: string[];
  requestheaderGroupHeaders: string[];
  requestheaderExtraHeadersPrefix: string[];
  requestheaderClientCaFile: string;
  requestheaderAllowedNames: string[];
  authorizationModes: string[];
  runtimeConfig: Record<string, string>;
  featureGates: Record<string, boolean>;
  livezGracePeriod: number;
  shutdownDelayDuration: number;
  requestTimeout: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** `--watch-cache-history` (ours): how far back the watch cache keeps events, in ms. */
  watchCacheHistory: number;
  clusterSigningDuration: number;
  clusterSigningCertFile: string;
  clusterSigningKeyFile: string;
  /** `--node-join-bindings` (ours): install the RBAC bindings that let machines join by bootstrap token. */
  nodeJoinBindings: boolean;
  /** Not a flag: the token webhook's per-call bound in ms (default 10 s), which tests shorten. */
  webhookTimeoutMs?: number;
  /** Not a flag: CSR garbage-collection periods (SPEC 3.2), which tests shorten. */
  csrRetention?: { finishedMs: number; pendingMs: number };
  controllers: string[];
  /** `--enable-admission-plugins`: upstream's default-off plugins to run (OwnerReferencesPermissionEnforcement). */
  enableAdmissionPlugins: string[];
  auditLogPath: string;
  auditPolicyFile: string;
  admissionControlConfigFile: string;
  showHiddenMetricsForVersion: string;
  auditLogMaxsize: number;
  auditLogMaxbackup: number;
  auditLogMaxage: number;
  /** `--dev-insecure-http` (ours): serve plain HTTP, loopback only, for development. */
  devInsecureHttp: boolean;
  /**
   * `--workers` (ours): processes serving the secure port, each a full replica; 0 means one per
   * core available, 1 a single process with no supervisor.
   */
  workers: number;
  /**
   * `--worker-isolation` (ours): how the workers of `--workers` > 1 run: `thread` (worker threads
   * of one process, sharing its memory; the default) or `process` (one process each,
   * node:cluster). Without the fd_dup addon the workers run as processes (replica-primary.ts).
   * See hack/bench/README.md, "Seventeenth session", for the start-up stall that kept threads
   * from being the default (CPU starvation, the same for processes).
   */
  workerIsolation: string;
  /**
   * `--watch-cache-shared-store` (ours): worker threads keep the JSON of their watch caches'
   * object versions once per replica, in shared memory (packages/storage/src/cacher/shared-store.ts).
   * On by default (threads only): each handle keeps what selectors read (labels, selectable
   * fields), so selector lists cost what they cost on decoded caches (hack/bench/README.md,
   * "Eighteenth session").
   */
  watchCacheSharedStore: boolean;
  /** `--log-level` (ours): pino level. */
  logLevel: string;
  /** `-v`/`--v`: accepted for compatibility with upstream scripts, otherwise ignored. */
  verbosity: number;
  help: boolean;
}

const MINUTE = 60_000;

/** Defaults before any flag is applied (`certDir` is derived from `dataDir` afterwards). */
export function defaultServerOptions(): ServerOptions {
  return {
    etcdServers: [],
    etcdPrefix: '/registry',
    etcdCompactionInterval: 5 * MINUTE,
    enableGarbageCollector: true,
    enablePriorityAndFairness: true,
    securePort: 6443,
    bindAddress: '0.0.0.0',
    advertiseAddress: '',
    serviceClusterIpRange: '10.0.0.0/24',
    serviceNodePortRange: '30000-32767',
    eventTtl: 60 * MINUTE,
    http2MaxStreamsPerConnection: 0,
    disableHttp2Serving: false,
    dataDir: './data',
    certDir: '',
    tlsCertFile: '',
    tlsPrivateKeyFile: '',
    proxyClientCertFile: '',
    proxyClientKeyFile: '',
    apiserviceAvailabilityCheckPeriod: 30_000,
    clientCaFile: '',
    apiDomain: 'k8s.io',
    tokenAuthFile: '',
    anonymousAuth: true,
    enableBootstrapTokenAuth: false,
    serviceAccountKeyFiles: [],
    serviceAccountSigningKeyFile: '',
    serviceAccountIssuers: [],
    serviceAccountLookup: true,
    apiAudiences: [],
    oidcIssuerUrl: '',
    oidcClientId: '',
    oidcUsernameClaim: 'sub',
    oidcUsernamePrefix: '',
    oidcGroupsClaim: '',
    oidcGroupsPrefix: '',
    oidcRequiredClaims: {},
    oidcCaFile: '',
    oidcSigningAlgs: ['RS256'],
    authenticationTokenWebhookConfigFile: '',
    authenticationTokenWebhookCacheTtl: 2 * MINUTE,
    authenticationTokenWebhookVersion: 'v1beta1',
    requestheaderUsernameHeaders: [],
    requestheaderUidHeaders: [],
    requestheaderGroupHeaders: [],
    requestheaderExtraHeadersPrefix: [],
    requestheaderClientCaFile: '',
    requestheaderAllowedNames: [],
    authorizationModes: ['AlwaysAllow'],
    runtimeConfig: {},
    featureGates: {},
    livezGracePeriod: 0,
    shutdownDelayDuration: 0,
    requestTimeout: MINUTE,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    deleteCollectionWorkers: 1,
    watchCacheHistory: 5 * MINUTE,
    clusterSigningDuration: 8760 * 60 * MINUTE,
    clusterSigningCertFile: '',
    clusterSigningKeyFile: '',
    nodeJoinBindings: false,
    controllers: ['*'],
    enableAdmissionPlugins: [],
    auditLogPath: '',
    auditPolicyFile: '',
    admissionControlConfigFile: '',
    showHiddenMetricsForVersion: '',
    auditLogMaxsize: 0,
    auditLogMaxbackup: 0,
    auditLogMaxage: 0,
    devInsecureHttp: false,
    workers: 0,
    workerIsolation: 'thread',
    watchCacheSharedStore: true,
    logLevel: 'info',
    verbosity: 0,
    help: false,
  };
}

/** Every flag the server accepts, in usage order. */
export const FLAG_DEFINITIONS: readonly FlagDefinition[] = [
  { name: 'etcd-servers', key: 'etcdServers', kind: 'stringSlice', help: 'List of etcd servers to connect with (scheme://ip:port), comma separated. Empty: run an embedded etcd under --data-dir.' },
  { name: 'etcd-prefix', key: 'etcdPrefix', kind: 'string', help: 'The prefix to prepend to all resource paths in etcd.' },
  { name: 'enable-garbage-collector', key: 'enableGarbageCollector', kind: 'bool', help: 'Enables the generic garbage collector. MUST be synced with the corresponding flag of the kube-controller-manager. Orphan and Foreground deletes wait for a garbage collector to finish them: the built-in garbagecollector controller (see --controllers), or a kube-controller-manager run beside this server.' },
  { name: 'delete-collection-workers', key: 'deleteCollectionWorkers', kind: 'int', help: 'Number of workers spawned for DeleteCollection call. These are used to speed up namespace cleanup.' },
  { name: 'etcd-compaction-interval', key: 'etcdCompactionInterval', kind: 'duration', help: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled.' },
  { name: 'secure-port', key: 'securePort', kind: 'int', help: 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.' },
  { name: 'bind-address', key: 'bindAddress', kind: 'ip', help: 'The IP address on which to listen for the --secure-port port.' },
  { name: 'advertise-address', key: 'advertiseAddress', kind: 'ip', help: 'The IP address on which to advertise the apiserver to members of the cluster (the endpoints of the kubernetes Service). Empty: --bind-address, or the first non-loopback address when that is 0.0.0.0 or loopback.' },
  { name: 'service-cluster-ip-range', key: 'serviceClusterIpRange', kind: 'string', help: 'A CIDR notation IP range from which to assign service cluster IPs (IPv4 only; the first IP goes to the kubernetes Service).' },
  { name: 'event-ttl', key: 'eventTtl', kind: 'duration', help: 'Amount of time to retain events.' },
  { name: 'service-node-port-range', key: 'serviceNodePortRange', kind: 'string', help: 'A port range to reserve for services with NodePort visibility, e.g. 30000-32767. Inclusive at both ends.' },
  { name: 'http2-max-streams-per-connection', key: 'http2MaxStreamsPerConnection', kind: 'int', help: 'The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means the default (250).' },
  { name: 'disable-http2-serving', key: 'disableHttp2Serving', kind: 'bool', help: 'If true, HTTP2 serving will be disabled.' },
  { name: 'data-dir', key: 'dataDir', kind: 'string', help: 'Directory for the embedded etcd, generated certificates and admin credentials (ours).' },
  { name: 'cert-dir', key: 'certDir', kind: 'string', help: 'The directory where the TLS certs are located (default <data-dir>/certs). Ignored if --tls-cert-file and --tls-private-key-file are provided.' },
  { name: 'tls-cert-file', key: 'tlsCertFile', kind: 'string', help: 'File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert).' },
  { name: 'tls-private-key-file', key: 'tlsPrivateKeyFile', kind: 'string', help: 'File containing the default x509 private key matching --tls-cert-file.' },
  { name: 'proxy-client-cert-file', key: 'proxyClientCertFile', kind: 'string', help: 'Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request (proxying to extension API servers).' },
  { name: 'proxy-client-key-file', key: 'proxyClientKeyFile', kind: 'string', help: 'Private key for the client certificate in --proxy-client-cert-file.' },
  { name: 'apiservice-availability-check-period', key: 'apiserviceAvailabilityCheckPeriod', kind: 'duration', help: 'How often the availability of each APIService served by an extension API server is checked (ours; upstream checks every 30s).' },
  { name: 'client-ca-file', key: 'clientCaFile', kind: 'string', help: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.' },
  { name: 'api-domain', key: 'apiDomain', kind: 'string', help: 'Domain suffix of the built-in API groups (ours).' },
  { name: 'token-auth-file', key: 'tokenAuthFile', kind: 'string', help: 'If set, the file that will be used to secure the secure port of the API server via token authentication.' },
  { name: 'anonymous-auth', key: 'anonymousAuth', kind: 'bool', help: 'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests.' },
  { name: 'enable-bootstrap-token-auth', key: 'enableBootstrapTokenAuth', kind: 'bool', help: "Enable to allow secrets of type 'bootstrap.kubernetes.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication." },
  { name: 'service-account-key-file', key: 'serviceAccountKeyFiles', kind: 'stringArray', help: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. Repeatable.' },
  { name: 'service-account-signing-key-file', key: 'serviceAccountSigningKeyFile', kind: 'string', help: 'Path to the file that contains the current private key of the service account token issuer.' },
  { name: 'service-account-issuer', key: 'serviceAccountIssuers', kind: 'stringArray', help: 'Identifier of the service account token issuer. Repeatable; the first one is used to issue tokens.' },
  { name: 'service-account-lookup', key: 'serviceAccountLookup', kind: 'bool', help: 'If true, validate ServiceAccount tokens exist in etcd as part of authentication.' },
  { name: 'api-audiences', key: 'apiAudiences', kind: 'stringSlice', help: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. Defaults to the --service-account-issuer values.' },
  { name: 'oidc-issuer-url', key: 'oidcIssuerUrl', kind: 'string', help: 'The URL of the OpenID issuer, only HTTPS scheme will be accepted.' },
  { name: 'oidc-client-id', key: 'oidcClientId', kind: 'string', help: 'The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.' },
  { name: 'oidc-username-claim', key: 'oidcUsernameClaim', kind: 'string', help: 'The OpenID claim to use as the user name.' },
  { name: 'oidc-username-prefix', key: 'oidcUsernamePrefix', kind: 'string', help: "If provided, all usernames will be prefixed with this value. The value '-' disables all prefixing." },
  { name: 'oidc-groups-claim', key: 'oidcGroupsClaim', kind: 'string', help: "If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be an array of strings." },
  { name: 'oidc-groups-prefix', key: 'oidcGroupsPrefix', kind: 'string', help: 'If provided, all groups will be prefixed with this value.' },
  { name: 'oidc-required-claim', key: 'oidcRequiredClaims', kind: 'mapStringStringNoSplit', typeName: '<claim>=<value>', help: 'A key=value pair that describes a required claim in the ID Token. Repeatable.' },
  { name: 'oidc-ca-file', key: 'oidcCaFile', kind: 'string', help: "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file." },
  { name: 'oidc-signing-algs', key: 'oidcSigningAlgs', kind: 'stringSlice', help: 'Comma-separated list of allowed JOSE asymmetric signing algorithms.' },
  { name: 'authentication-token-webhook-config-file', key: 'authenticationTokenWebhookConfigFile', kind: 'string', help: 'File with webhook configuration for token authentication in kubeconfig format.' },
  { name: 'authentication-token-webhook-cache-ttl', key: 'authenticationTokenWebhookCacheTtl', kind: 'duration', help: 'The duration to cache responses from the webhook token authenticator.' },
  { name: 'authentication-token-webhook-version', key: 'authenticationTokenWebhookVersion', kind: 'string', help: 'The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook.' },
  { name: 'requestheader-username-headers', key: 'requestheaderUsernameHeaders', kind: 'stringSlice', help: 'List of request headers to inspect for usernames. X-Remote-User is common.' },
  { name: 'requestheader-uid-headers', key: 'requestheaderUidHeaders', kind: 'stringSlice', help: 'List of request headers to inspect for UIDs. X-Remote-Uid is suggested.' },
  { name: 'requestheader-group-headers', key: 'requestheaderGroupHeaders', kind: 'stringSlice', help: 'List of request headers to inspect for groups. X-Remote-Group is suggested.' },
  { name: 'requestheader-extra-headers-prefix', key: 'requestheaderExtraHeadersPrefix', kind: 'stringSlice', help: 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.' },
  { name: 'requestheader-client-ca-file', key: 'requestheaderClientCaFile', kind: 'string', help: 'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers.' },
  { name: 'requestheader-allowed-names', key: 'requestheaderAllowedNames', kind: 'stringSlice', help: 'List of client certificate common names to allow to provide usernames in headers. If empty, any client certificate validated by the requestheader CA is allowed.' },
  { name: 'authorization-mode', key: 'authorizationModes', kind: 'stringSlice', help: 'Ordered list of plug-ins to do authorization on secure port. Comma-delimited list of: AlwaysAllow,AlwaysDeny,ABAC,Webhook,RBAC,Node.' },
  { name: 'runtime-config', key: 'runtimeConfig', kind: 'configurationMap', typeName: 'mapStringString', help: 'A set of key=value pairs that enable or disable built-in APIs (api/all, api/ga, api/beta, api/alpha, <group>/<version>).' },
  { name: 'feature-gates', key: 'featureGates', kind: 'featureGates', typeName: 'mapStringBool', help: 'A set of key=value pairs that describe feature gates for alpha/experimental features.' },
  { name: 'livez-grace-period', key: 'livezGracePeriod', kind: 'duration', help: 'This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live.' },
  { name: 'shutdown-delay-duration', key: 'shutdownDelayDuration', kind: 'duration', help: 'Time to delay the termination. During that time the server keeps serving requests normally while /readyz returns failure.' },
  { name: 'request-timeout', key: 'requestTimeout', kind: 'duration', help: 'An optional field indicating the duration a handler must keep a request open before timing it out.' },
  { name: 'enable-priority-and-fairness', key: 'enablePriorityAndFairness', kind: 'bool', help: 'If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness' },
  { name: 'max-requests-inflight', key: 'maxRequestsInflight', kind: 'int', help: 'The maximum number of non-mutating requests in flight at a given time. Zero for no limit.' },
  { name: 'max-mutating-requests-inflight', key: 'maxMutatingRequestsInflight', kind: 'int', help: 'The maximum number of mutating requests in flight at a given time. Zero for no limit.' },
  { name: 'watch-cache-history', key: 'watchCacheHistory', kind: 'duration', help: 'How long the watch cache keeps past events for watches resuming from an older resourceVersion (ours).' },
  { name: 'cluster-signing-duration', key: 'clusterSigningDuration', kind: 'duration', help: 'The max length of duration signed certificates will be given.' },
  { name: 'cluster-signing-cert-file', key: 'clusterSigningCertFile', kind: 'string', help: 'Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped certificates. Defaults to the CA generated in the data directory.' },
  { name: 'node-join-bindings', key: 'nodeJoinBindings', kind: 'bool', help: 'Install the RBAC bindings a cluster installer adds so machines can join: group system:bootstrappers may create certificate signing requests and have node-agent client requests auto-approved, and group system:nodes may renew its certificates.' },
  { name: 'cluster-signing-key-file', key: 'clusterSigningKeyFile', kind: 'string', help: 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign cluster-scoped certificates. Defaults to the key of the CA generated in the data directory.' },
  { name: 'enable-admission-plugins', key: 'enableAdmissionPlugins', kind: 'stringSlice', help: 'admission plugins that should be enabled in addition to default enabled ones. Of the plugins upstream leaves off by default this server has OwnerReferencesPermissionEnforcement; naming a default-on plugin changes nothing.' },
  { name: 'controllers', key: 'controllers', kind: 'stringSlice', help: "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'." },
  { name: 'audit-log-path', key: 'auditLogPath', kind: 'string', help: "If set, all requests coming to the apiserver will be logged to this file. '-' means standard out." },
  { name: 'show-hidden-metrics-for-version', key: 'showHiddenMetricsForVersion', kind: 'string', help: 'The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: \'1.16\'.' },
  { name: 'admission-control-config-file', key: 'admissionControlConfigFile', kind: 'string', help: 'File with admission control configuration.' },
  { name: 'audit-policy-file', key: 'auditPolicyFile', kind: 'string', help: 'Path to the file that defines the audit policy configuration.' },
  { name: 'audit-log-maxsize', key: 'auditLogMaxsize', kind: 'int', help: 'The maximum size in megabytes of the audit log file before it gets rotated.' },
  { name: 'audit-log-maxbackup', key: 'auditLogMaxbackup', kind: 'int', help: 'The maximum number of old audit log files to retain. Setting a value of 0 will mean there\'s no restriction on the number of files.' },
  { name: 'audit-log-maxage', key: 'auditLogMaxage', kind: 'int', help: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.' },
  { name: 'dev-insecure-http', key: 'devInsecureHttp', kind: 'bool', help: 'Serve plain HTTP instead of HTTPS, on loopback only. For development (ours).' },
  { name: 'workers', key: 'workers', kind: 'int', help: 'Number of workers (threads or processes, see --worker-isolation) sharing the secure port, each serving the whole API with its own etcd clients and watch caches; the first also runs the controllers and etcd compaction. 0 means one per core available to the process; 1 serves from a single process (ours).' },
  { name: 'watch-cache-shared-store', key: 'watchCacheSharedStore', kind: 'bool', help: 'With --worker-isolation=thread (the default), the workers keep the JSON of every watch-cached object version once per replica in shared memory, each worker holding handles to it, so the watch caches\' memory does not grow with --workers; objects are decoded when a request needs them (selectors read labels and fields kept per version). On by default; =false gives each thread decoded caches of its own. No effect on worker processes or a single process (ours).' },
  { name: 'worker-isolation', key: 'workerIsolation', kind: 'string', help: 'How the workers of --workers > 1 run: "thread" (threads of one process, sharing its memory; the default) or "process" (a process each) (ours).' },
  { name: 'log-level', key: 'logLevel', kind: 'string', help: 'Log level: trace, debug, info, warn, error, fatal or silent (ours).' },
  { name: 'v', key: 'verbosity', kind: 'level', shorthand: 'v', typeName: 'Level', help: 'Accepted for compatibility and ignored; use --log-level.' },
  { name: 'help', key: 'help', kind: 'bool', shorthand: 'h', help: 'help for the server' },
];
