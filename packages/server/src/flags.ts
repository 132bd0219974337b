import { isIP } from 'node:net';
import { builtinResourceInfos, parseIPv4Range, parsePortRange, validateShowHiddenMetricsVersion } from '@cluster/apiserver';
import { knownControllerNames } from '@cluster/controllers';
import { admissionPluginErrors } from './admission-plugins.js';
import type { ServerOptions } from './flag-definitions.js';
import { resolveFeatureGates } from './feature-gates.js';
import { FlagError, parseFlagSyntax } from './flags-syntax.js';
import { parseRuntimeConfig, servedGroupVersions } from './runtime-config.js';
import { validateServiceAccountFlags } from './service-accounts.js';
import { validateOidcFlags } from './oidc.js';
import { MAX_WORKERS, WORKER_ISOLATIONS, isWorkerIsolation } from './workers.js';
import { goQuote } from './flag-values.js';

export type { ServerOptions } from './flag-definitions.js';
export { FlagError, formatUsage } from './flags-syntax.js';

const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'];
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/**
 * Parses the server's arguments (without `node` and the script) with pflag's rules (see
 * flags-syntax.ts), then validates the combination. Throws {@link FlagError} on an unknown flag,
 * a malformed value, a positional argument or an invalid combination.
 */
export function parseFlags(argv: readonly string[], commandName = 'cluster-apiserver'): ServerOptions {
  const options = parseFlagSyntax(argv, commandName);
  if (!options.help) validate(options);
  return options;
}

/** Cross-flag checks, reported together like upstream's aggregate (`[a, b]` when several). */
function validate(o: ServerOptions): void {
  const errors: string[] = [];
  if (o.securePort < 0 || o.securePort > 65535) {
    errors.push(`--secure-port ${o.securePort} must be between 0 and 65535, inclusive. 0 picks a free port`);
  }
  if (o.http2MaxStreamsPerConnection < 0 || o.http2MaxStreamsPerConnection > 0xffffffff) {
    errors.push(`--http2-max-streams-per-connection ${o.http2MaxStreamsPerConnection} must be between 0 and ${0xffffffff}`);
  }
  if (o.livezGracePeriod < 0) errors.push('--livez-grace-period can not be a negative value');
  if (o.shutdownDelayDuration < 0) errors.push('--shutdown-delay-duration can not be negative value');
  if (o.maxRequestsInflight < 0) errors.push('--max-requests-inflight can not be negative value');
  if (o.maxMutatingRequestsInflight < 0) errors.push('--max-mutating-requests-inflight can not be negative value');
  // Upstream's check: priority and fairness divides their sum among the priority levels.
  if (o.enablePriorityAndFairness && o.maxRequestsInflight + o.maxMutatingRequestsInflight <= 0) {
    errors.push('--max-requests-inflight plus --max-mutating-requests-inflight must be positive when --enable-priority-and-fairness is true');
  }
  if (o.requestTimeout < 0) errors.push('--request-timeout can not be negative value');
  if (o.watchCacheHistory <= 0) errors.push('--watch-cache-history must be greater than 0');
  if (o.eventTtl < 1000) errors.push('--event-ttl must be at least 1s');
  if (o.deleteCollectionWorkers < 0) errors.push('--delete-collection-workers can not be negative value');
  if (o.etcdCompactionInterval < 0) errors.push('--etcd-compaction-interval can not be negative value');
  if (o.workers < 0 || o.workers > MAX_WORKERS) errors.push(`--workers ${o.workers} must be between 0 and ${MAX_WORKERS}, inclusive. 0 means one per core`);
  if (!isWorkerIsolation(o.workerIsolation)) errors.push(`--worker-isolation "${o.workerIsolation}" must be one of: ${WORKER_ISOLATIONS.join(', ')}`);
  if (o.authorizationModes.length === 0) errors.push('at least one authorization-mode must be passed');
  for (const mode of o.authorizationModes) {
    if (!AUTHORIZATION_MODES.includes(mode)) errors.push(`authorization-mode ${goQuote(mode)} is not a valid mode`);
  }
  if (new Set(o.authorizationModes).size !== o.authorizationModes.length) {
    errors.push(`authorization-mode [${o.authorizationModes.map(goQuote).join(' ')}] has mode specified more than once`);
  }
  if ((o.tlsCertFile === '') !== (o.tlsPrivateKeyFile === '')) {
    errors.push('--tls-cert-file and --tls-private-key-file must be specified together');
  }
  if (!['v1', 'v1beta1'].includes(o.authenticationTokenWebhookVersion)) {
    errors.push(`authentication-token-webhook-version must be v1 or v1beta1`);
  }
  if (o.apiDomain === '') errors.push('--api-domain must not be empty');
  try {
    parseRuntimeConfig(o.runtimeConfig, servedGroupVersions(builtinResourceInfos(o.apiDomain)));
  } catch (e) {
    errors.push((e as Error).message);
  }
  const hiddenMetrics = validateShowHiddenMetricsVersion(o.showHiddenMetricsForVersion);
  if (hiddenMetrics) errors.push(hiddenMetrics);
  for (const e of resolveFeatureGates(o.featureGates).errors) errors.push(`invalid argument for "--feature-gates" flag: ${e}`);
  const known = knownControllerNames();
  for (const c of o.controllers) {
    const name = c.startsWith('-') ? c.slice(1) : c;
    if (c !== '*' && !known.includes(name)) errors.push(`${goQuote(name)} is not in the list of known controllers`);
  }
  errors.push(...admissionPluginErrors(o.enableAdmissionPlugins));
  for (const [flag, v] of [['audit-log-maxsize', o.auditLogMaxsize], ['audit-log-maxbackup', o.auditLogMaxbackup], ['audit-log-maxage', o.auditLogMaxage]] as const) {
    if (v < 0) errors.push(`--${flag} must be greater than or equal to 0`);
  }
  if ((o.clusterSigningCertFile === '') !== (o.clusterSigningKeyFile === '')) {
    errors.push('--cluster-signing-cert-file and --cluster-signing-key-file must be specified together');
  }
  errors.push(...validateServiceAccountFlags(o));
  try {
    parseIPv4Range(o.serviceClusterIpRange);
  } catch (e) {
    errors.push(`--service-cluster-ip-range ${(e as Error).message}`);
  }
  try {
    parsePortRange(o.serviceNodePortRange);
  } catch (e) {
    errors.push(`--service-node-port-range ${(e as Error).message}`);
  }
  errors.push(...validateOidcFlags(o));
  if (!LOG_LEVELS.includes(o.logLevel)) {
    errors.push(`--log-level ${goQuote(o.logLevel)} must be one of ${LOG_LEVELS.join(', ')}`);
  }
  if (o.devInsecureHttp && !isLoopback(o.bindAddress)) {
    errors.push(`--dev-insecure-http serves plain HTTP on loopback only, but --bind-address is ${o.bindAddress}`);
  }
  if (errors.length === 1) throw new FlagError(errors[0]);
  if (errors.length > 1) throw new FlagError(`[${errors.join(', ')}]`);
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.') || ip.toLowerCase().startsWith('::ffff:127.');
}
