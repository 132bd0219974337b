import { isIP } from 'node:net';
import { join } from 'node:path';
import { builtinResourceInfos, parseIPv4Range, parsePortRange, validateShowHiddenMetricsVersion } from '@cluster/apiserver';
import { knownControllerNames } from '@cluster/controllers';
import { admissionPluginErrors } from './admission-plugins.js';
import {
  FLAG_DEFINITIONS,
  defaultServerOptions,
  type FlagDefinition,
  type ServerOptions,
} from './flag-definitions.js';
import { resolveFeatureGates } from './feature-gates.js';
import { parseRuntimeConfig, servedGroupVersions } from './runtime-config.js';
import { validateServiceAccountFlags } from './service-accounts.js';
import { validateOidcFlags } from './oidc.js';
import { MAX_WORKERS } from './workers.js';
import {
  formatGoDuration,
  goQuote,
  parseCsvList,
  parseGoBool,
  parseGoDuration,
  parseGoInt,
} from './flag-values.js';

export type { ServerOptions } from './flag-definitions.js';

/** A bad command line; `message` is one line in upstream's wording. Main prints it and exits 2. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}

const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'];
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/**
 * Parses the server's arguments (without `node` and the script) with pflag's rules: `--flag=value`
 * and `--flag value`, booleans as `--flag` or `--flag=false`, `_` read as `-` in names, `--` ends
 * the flags, `-v3`/`-h` shorthands. Then validates the combination. Throws {@link FlagError} on
 * an unknown flag, a malformed value, a positional argument or an invalid combination.
 */
export function parseFlags(argv: readonly string[], commandName = 'cluster-apiserver'): ServerOptions {
  const options = defaultServerOptions();
  const changed = new Set<string>();
  const positional: string[] = [];
  const byName = new Map(FLAG_DEFINITIONS.map((d) => [d.name, d]));
  const byShorthand = new Map(FLAG_DEFINITIONS.filter((d) => d.shorthand).map((d) => [d.shorthand, d]));

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    if (arg.startsWith('--')) {
      const body = arg.slice(2);
      const eq = body.indexOf('=');
      const rawName = eq === -1 ? body : body.slice(0, eq);
      if (rawName === '' || rawName.startsWith('-') || rawName.startsWith('=')) {
        throw new FlagError(`bad flag syntax: ${arg}`);
      }
      const name = rawName.replaceAll('_', '-');
      const def = byName.get(name);
      if (def === undefined) throw new FlagError(`unknown flag: --${name}`);
      let value: string;
      if (eq !== -1) value = body.slice(eq + 1);
      else if (def.kind === 'bool') value = 'true';
      else if (i + 1 < argv.length) value = argv[++i] ?? '';
      else throw new FlagError(`flag needs an argument: --${name}`);
      apply(options, def, value, changed);
      continue;
    }
    // One or more shorthands: `-h`, `-v3`, `-v=3`, `-v 3`.
    const shorts = arg.slice(1);
    for (let j = 0; j < shorts.length; j++) {
      const c = shorts.charAt(j);
      const def = byShorthand.get(c);
      if (def === undefined) throw new FlagError(`unknown shorthand flag: '${c}' in ${arg}`);
      const rest = shorts.slice(j + 1);
      if (def.kind === 'bool') {
        if (rest.startsWith('=')) {
          apply(options, def, rest.slice(1), changed);
          break;
        }
        apply(options, def, 'true', changed);
        continue;
      }
      let value: string;
      if (rest.startsWith('=')) value = rest.slice(1);
      else if (rest !== '') value = rest;
      else if (i + 1 < argv.length) value = argv[++i] ?? '';
      else throw new FlagError(`flag needs an argument: '${c}' in ${arg}`);
      apply(options, def, value, changed);
      break;
    }
  }

  if (positional.length > 0) {
    throw new FlagError(`${goQuote(commandName)} does not take any arguments, got [${positional.map(goQuote).join(' ')}]`);
  }
  if (!changed.has('cert-dir')) options.certDir = join(options.dataDir, 'certs');
  // SPEC 5.4: anonymous requests are on by default only when the authorization mode is not AlwaysAllow.
  if (!changed.has('anonymous-auth')) options.anonymousAuth = options.authorizationModes.some((m) => m !== 'AlwaysAllow');
  if (options.devInsecureHttp && !changed.has('bind-address')) options.bindAddress = '127.0.0.1';
  if (!options.help) validate(options);
  return options;
}

function flagLabel(def: FlagDefinition): string {
  return def.shorthand ? `-${def.shorthand}, --${def.name}` : `--${def.name}`;
}

/** Applies one value with the set semantics of the flag's pflag type. */
function apply(options: ServerOptions, def: FlagDefinition, value: string, changed: Set<string>): void {
  const first = !changed.has(def.name);
  changed.add(def.name);
  // The table pairs every key with a kind of matching type; one cast keeps it a table.
  const target = options as unknown as Record<string, unknown>;
  const current = target[def.key];
  try {
    target[def.key] = parseValue(def, value, first, current);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new FlagError(`invalid argument ${goQuote(value)} for ${goQuote(flagLabel(def))} flag: ${why}`);
  }
}

function parseValue(def: FlagDefinition, value: string, first: boolean, current: unknown): unknown {
  switch (def.kind) {
    case 'string':
      return value;
    case 'bool':
      return parseGoBool(value);
    case 'int':
      return parseGoInt(value, 64);
    case 'level':
      return parseGoInt(value, 32, 'ParseUint');
    case 'duration':
      return parseGoDuration(value);
    case 'ip': {
      const ip = value.trim();
      if (isIP(ip) === 0) throw new Error(`failed to parse IP: ${goQuote(value)}`);
      return ip;
    }
    case 'stringSlice':
      return [...(first ? [] : (current as string[])), ...parseCsvList(value)];
    case 'stringArray':
      return [...(first ? [] : (current as string[])), value];
    case 'mapStringString':
    case 'mapStringStringNoSplit': {
      const map: Record<string, string> = first ? {} : { ...(current as Record<string, string>) };
      const pairs = def.kind === 'mapStringString' ? value.split(',') : [value];
      for (const pair of pairs) {
        const eq = pair.indexOf('=');
        if (eq === -1) throw new Error(`malformed pair, expect string=string`);
        map[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
      }
      return map;
    }
    case 'configurationMap': {
      const map: Record<string, string> = { ...(current as Record<string, string>) };
      for (const item of value.split(',')) {
        if (item === '') continue;
        const eq = item.indexOf('=');
        if (eq === -1) map[item.trim()] = '';
        else map[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
      }
      return map;
    }
    case 'featureGates': {
      const gates: Record<string, boolean> = { ...(current as Record<string, boolean>) };
      for (const item of value.split(',')) {
        if (item === '') continue;
        const eq = item.indexOf('=');
        const key = (eq === -1 ? item : item.slice(0, eq)).trim();
        if (eq === -1) throw new Error(`missing bool value for ${key}`);
        const raw = item.slice(eq + 1).trim();
        try {
          gates[key] = parseGoBool(raw);
        } catch (err) {
          throw new Error(`invalid value of ${key}=${raw}, err: ${(err as Error).message}`);
        }
      }
      return gates;
    }
  }
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

/** The `--help` text: one line per flag with its type and non-empty default, pflag style. */
export function formatUsage(commandName = 'cluster-apiserver'): string {
  const defaults = defaultServerOptions() as unknown as Record<string, unknown>;
  const rows = FLAG_DEFINITIONS.map((def) => {
    const names = def.shorthand ? `-${def.shorthand}, --${def.name}` : `    --${def.name}`;
    const type = def.kind === 'bool' ? '' : ` ${def.typeName ?? typeWord(def)}`;
    const shown = showDefault(def, defaults[def.key]);
    return { left: `  ${names}${type}`, right: `${def.help}${shown === '' ? '' : ` (default ${shown})`}` };
  });
  const width = Math.max(...rows.map((r) => r.left.length)) + 3;
  return [`Usage:\n  ${commandName} [flags]\n\nFlags:`, ...rows.map((r) => r.left.padEnd(width) + r.right)].join('\n');
}

function typeWord(def: FlagDefinition): string {
  return def.kind === 'stringSlice' ? 'strings' : def.kind;
}

function showDefault(def: FlagDefinition, value: unknown): string {
  if (def.name === 'cert-dir') return '<data-dir>/certs';
  if (def.kind === 'duration') return formatGoDuration(value as number);
  if (Array.isArray(value)) return value.length === 0 ? '' : `[${value.join(',')}]`;
  if (typeof value === 'boolean') return value ? 'true' : '';
  if (typeof value === 'number') return value === 0 ? '' : String(value);
  if (typeof value === 'string') return value === '' ? '' : goQuote(value);
  return '';
}
