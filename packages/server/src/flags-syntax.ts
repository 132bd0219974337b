// The command line's syntax: pflag's reading of the flags into ServerOptions, and `--help`. Kept
// apart from the checks of their combination (flags.ts), which need the API's and the controllers'
// names and so the whole server: the primary of a multi-process replica loads only this.
import { isIP } from 'node:net';
import { join } from 'node:path';
import { FLAG_DEFINITIONS, defaultServerOptions, type FlagDefinition, type ServerOptions } from './flag-definitions.js';
import { formatGoDuration, goQuote, parseCsvList, parseGoBool, parseGoDuration, parseGoInt } from './flag-values.js';

/** A bad command line; `message` is one line in upstream's wording. Main prints it and exits 2. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}

/**
 * Reads the server's arguments (without `node` and the script) with pflag's rules: `--flag=value`
 * and `--flag value`, booleans as `--flag` or `--flag=false`, `_` read as `-` in names, `--` ends
 * the flags, `-v3`/`-h` shorthands, and fills in the defaults that depend on other flags. Throws
 * {@link FlagError} on an unknown flag, a malformed value or a positional argument. It does not
 * check the combination (flags.ts's parseFlags does, with the API's and controllers' names), so
 * it needs none of the server's packages: a replica's primary decides with it what it is.
 */
export function parseFlagSyntax(argv: readonly string[], commandName = 'cluster-apiserver'): ServerOptions {
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
