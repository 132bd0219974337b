import { defaultServerOptions, type ServerOptions } from './flag-definitions.js';

/**
 * Upstream flags this server parses but does not implement yet. Setting one is refused at
 * start-up rather than silently ignored, so an operator never believes a feature is on.
 */
const NOT_YET: readonly (readonly [keyof ServerOptions, string])[] = [
  ['etcdPrefix', 'etcd-prefix'],
];

/** Names of flags set to something this server cannot honour yet (empty when all is well). */
export function unsupportedFlags(opts: ServerOptions): string[] {
  const defaults = defaultServerOptions();
  return NOT_YET.filter(([key]) => JSON.stringify(opts[key]) !== JSON.stringify(defaults[key])).map(([, flag]) => `--${flag}`);
}
