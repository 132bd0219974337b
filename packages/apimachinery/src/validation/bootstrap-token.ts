import { invalid, key, required, type FieldErrorList } from './field-error.js';

/** Bootstrap token Secrets (SPEC 2.9): names, data keys, user and group names. */
export const BOOTSTRAP_TOKEN = {
  secretPrefix: 'bootstrap-token-',
  idKey: 'token-id',
  secretKey: 'token-secret',
  descriptionKey: 'description',
  expirationKey: 'expiration',
  usageAuthenticationKey: 'usage-bootstrap-authentication',
  usageSigningKey: 'usage-bootstrap-signing',
  extraGroupsKey: 'auth-extra-groups',
  userPrefix: 'system:bootstrap:',
  defaultGroup: 'system:bootstrappers',
} as const;

const ID_RE = /^[a-z0-9]{6}$/;
const SECRET_RE = /^[a-z0-9]{16}$/;
const TOKEN_RE = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const GROUP_RE = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
// Go's time.RFC3339 layout as time.Parse accepts it (fractional seconds allowed).
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Splits a bearer token of the bootstrap form `<id>.<secret>`; undefined for any other token. */
export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN_RE.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

/** Milliseconds since the epoch of an RFC 3339 time, or undefined when it is not one. */
export function parseRFC3339(value: string): number | undefined {
  if (!RFC3339_RE.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** True when the token's `expiration` is past `now`, or unreadable (which upstream treats as expired). */
export function bootstrapTokenExpired(data: Readonly<Record<string, string>>, now: number): boolean {
  const exp = data[BOOTSTRAP_TOKEN.expirationKey];
  if (exp === undefined) return false;
  const ms = parseRFC3339(exp);
  return ms === undefined || ms <= now;
}

/**
 * The groups of a token: `system:bootstrappers` plus each `auth-extra-groups` entry (comma
 * separated, trimmed, deduplicated); undefined when an entry is not a bootstrapper group.
 */
export function bootstrapTokenGroups(data: Readonly<Record<string, string>>): string[] | undefined {
  const groups: string[] = [BOOTSTRAP_TOKEN.defaultGroup];
  const extra = data[BOOTSTRAP_TOKEN.extraGroupsKey];
  if (!extra) return groups;
  for (const g of extra.split(',').map((s) => s.trim())) {
    if (!GROUP_RE.test(g)) return undefined;
    if (!groups.includes(g)) groups.push(g);
  }
  return groups;
}

/**
 * Rules of a `bootstrap.<apiDomain>/token` Secret (SPEC 2.9); `data` holds decoded values.
 * Errors name the data key (`data[token-id]`), as upstream's Secret validation does for typed
 * Secrets. Pure.
 */
export function validateBootstrapTokenSecret(name: string, data: Readonly<Record<string, string>>): FieldErrorList {
  const errs: FieldErrorList = [];
  const T = BOOTSTRAP_TOKEN;
  const id = data[T.idKey];
  if (id === undefined) {
    errs.push(required(key('data', T.idKey), ''));
  } else if (!ID_RE.test(id)) {
    errs.push(invalid(key('data', T.idKey), id, 'must be 6 characters of [a-z0-9]'));
  } else if (name !== `${T.secretPrefix}${id}`) {
    errs.push(invalid('metadata.name', name, `must be ${T.secretPrefix}${id} (the token id)`));
  }
  const secret = data[T.secretKey];
  if (secret === undefined) errs.push(required(key('data', T.secretKey), ''));
  else if (!SECRET_RE.test(secret)) errs.push(invalid(key('data', T.secretKey), '<secret contents redacted>', 'must be 16 characters of [a-z0-9]'));
  const exp = data[T.expirationKey];
  if (exp !== undefined && parseRFC3339(exp) === undefined) {
    errs.push(invalid(key('data', T.expirationKey), exp, 'must be an absolute UTC time in RFC 3339 format, e.g. 2006-01-02T15:04:05Z'));
  }
  for (const [k, v] of Object.entries(data)) {
    if (k.startsWith('usage-bootstrap-') && v !== 'true') errs.push(invalid(key('data', k), v, 'must be "true" or absent'));
  }
  const extra = data[T.extraGroupsKey];
  if (extra !== undefined) {
    for (const g of extra.split(',').map((s) => s.trim())) {
      if (!GROUP_RE.test(g)) {
        errs.push(invalid(key('data', T.extraGroupsKey), g, `each group must start with "${T.defaultGroup}:" and match ${GROUP_RE.source}`));
      }
    }
  }
  return errs;
}
