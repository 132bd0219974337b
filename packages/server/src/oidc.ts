import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { httpsJsonGetter, OidcAuthenticator, OIDC_ALLOWED_SIGNING_ALGS } from '@cluster/apiserver';
import { defaultServerOptions, type ServerOptions } from './flag-definitions.js';

const OIDC_KEYS = [
  'oidcIssuerUrl',
  'oidcClientId',
  'oidcUsernameClaim',
  'oidcUsernamePrefix',
  'oidcGroupsClaim',
  'oidcGroupsPrefix',
  'oidcRequiredClaims',
  'oidcCaFile',
  'oidcSigningAlgs',
] as const satisfies readonly (keyof ServerOptions)[];

/** Whether any `--oidc-*` flag differs from its default. */
function anyOidcFlagSet(o: ServerOptions): boolean {
  const d = defaultServerOptions();
  return OIDC_KEYS.some((k) => JSON.stringify(o[k]) !== JSON.stringify(d[k]));
}

/**
 * Checks of the `--oidc-*` flags that need no files or network, in upstream's words (its flag
 * checks, then those of the JWT authenticator the flags become); one message per problem.
 */
export function validateOidcFlags(o: ServerOptions): string[] {
  if (!anyOidcFlagSet(o)) return [];
  if (o.oidcIssuerUrl === '' || o.oidcClientId === '') {
    return ['oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set'];
  }
  const errs: string[] = [];
  const field = 'jwt[0].issuer.url';
  const quoted = JSON.stringify(o.oidcIssuerUrl);
  let url: URL | undefined;
  try {
    url = new URL(o.oidcIssuerUrl);
  } catch {
    errs.push(`${field}: Invalid value: ${quoted}: URL scheme must be https`);
  }
  if (url) {
    if (url.protocol !== 'https:') errs.push(`${field}: Invalid value: ${quoted}: URL scheme must be https`);
    if (url.username !== '' || url.password !== '') errs.push(`${field}: Invalid value: ${quoted}: URL must not contain a username or password`);
    if (url.search !== '') errs.push(`${field}: Invalid value: ${quoted}: URL must not contain a query`);
    if (url.hash !== '') errs.push(`${field}: Invalid value: ${quoted}: URL must not contain a fragment`);
  }
  if (o.oidcUsernameClaim === '') errs.push('jwt[0].claimMappings.username: Required value: claim or expression is required');
  if (o.oidcSigningAlgs.length === 0) errs.push('oidc-signing-algs must not be empty');
  for (const alg of o.oidcSigningAlgs) {
    if (!OIDC_ALLOWED_SIGNING_ALGS.includes(alg)) errs.push(`oidc: unsupported signing alg: ${JSON.stringify(alg)}`);
  }
  Object.keys(o.oidcRequiredClaims).forEach((claim, i) => {
    if (claim === '') errs.push(`jwt[0].claimValidationRules[${i}]: Required value: claim or expression is required`);
  });
  return errs;
}

/**
 * The OIDC token method of `--oidc-*`, started (discovery retried in the background), or
 * undefined when no issuer is configured. Throws when `--oidc-ca-file` cannot be read or holds
 * no certificate.
 */
export async function startOidcAuthenticator(opts: ServerOptions, apiAudiences: readonly string[], logger: Logger): Promise<OidcAuthenticator | undefined> {
  if (opts.oidcIssuerUrl === '') return undefined;
  let ca: string | undefined;
  if (opts.oidcCaFile !== '') {
    try {
      ca = await readFile(opts.oidcCaFile, 'utf8');
    } catch (err) {
      throw new Error(`failed to read the OIDC CA file ${opts.oidcCaFile}: ${(err as Error).message}`);
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`--oidc-ca-file ${opts.oidcCaFile} holds no PEM certificate`);
  }
  const log = logger.child({ component: 'oidc' });
  const oidc = new OidcAuthenticator({
    issuerUrl: opts.oidcIssuerUrl,
    clientId: opts.oidcClientId,
    usernameClaim: opts.oidcUsernameClaim,
    usernamePrefix: opts.oidcUsernamePrefix,
    groupsClaim: opts.oidcGroupsClaim,
    groupsPrefix: opts.oidcGroupsPrefix,
    requiredClaims: opts.oidcRequiredClaims,
    signingAlgs: opts.oidcSigningAlgs,
    apiAudiences,
    getJson: httpsJsonGetter({ ca }),
    discoveryRetryMs: opts.oidcTiming?.discoveryRetryMs,
    keyRefreshIntervalMs: opts.oidcTiming?.keyRefreshIntervalMs,
    // Refused tokens are routine (expired sessions); discovery trouble is the operator's business.
    log: (message, err) => (message.includes('refused') ? log.debug({ err }, message) : log.warn({ err }, message)),
  });
  oidc.start();
  return oidc;
}
