import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes, randomUUID, type X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import {
  BearerTokenAuthenticator,
  BootstrapTokenAuthenticator,
  RequestHeaderAuthenticator,
  ServiceAccountAuthenticator,
  ServiceAccountTokenIssuer,
  TokenAuthenticatorChain,
  TokenFileAuthenticator,
  WebhookTokenAuthenticator,
  X509Authenticator,
  certificatesOf,
  parseWebhookConfig,
  registryLookup,
  type Authenticator,
  type RegistrySet,
  type TokenAuthenticator,
  type UserInfo,
} from '@cluster/apiserver';
import type { ServerOptions } from './flags.js';
import { ensureAdminToken, parseTokenFile } from './admin-credentials.js';
import { loadServiceAccountConfig, type ServiceAccountConfig } from './service-accounts.js';
import { startOidcAuthenticator } from './oidc.js';

/** The authentication stage of a replica: every configured method, and what other stages need of it. */
export interface Authentication {
  /** In the order they are tried (DESIGN): the authenticating proxy, x509, then bearer tokens. */
  authenticators: Authenticator[];
  /** The bearer-token methods alone, for TokenReview. */
  tokenAuthenticator: TokenAuthenticatorChain;
  tokenIssuer: ServiceAccountTokenIssuer;
  serviceAccounts: ServiceAccountConfig;
  /** Secrets read through the registries (bootstrap tokens, bound service-account tokens). */
  secretLookup: ReturnType<typeof registryLookup>;
  podLookup: ReturnType<typeof registryLookup>;
  /** The admin's generated token (the data dir's token file). */
  adminToken: string;
  /** The controllers' loopback identity: privileged, known only to this replica. */
  loopbackToken: string;
  requestHeaderCaPem?: string;
  /** The lookups read through the registries, which exist only once the API server does. */
  bindRegistries(registries: RegistrySet): void;
  /** x509 users come only from leaves of these (the --client-ca-file, or the data dir's CA). */
  trustClientCas(cas: X509Certificate[]): void;
  stop(): void;
}

/**
 * Builds the authenticators of --token-auth-file, --requestheader-*, the client CA,
 * --enable-bootstrap-token-auth, service-account keys, --oidc-* and the token webhook. Reads the
 * files they name; throws on one that does not parse.
 */
export async function buildAuthentication(opts: ServerOptions, logger: Logger, dataDir: string, sharedLoopbackToken?: string): Promise<Authentication> {
  const admin = await ensureAdminToken(dataDir);
  const tokens = new Map<string, UserInfo>();
  for (const file of [admin.tokenFile, opts.tokenAuthFile].filter(Boolean)) {
    for (const [token, user] of await parseTokenFile(file, { warn: (m) => logger.warn(m) })) tokens.set(token, user);
  }
  const loopbackToken = sharedLoopbackToken ?? randomBytes(32).toString('base64url');
  tokens.set(loopbackToken, { username: 'system:apiserver', uid: randomUUID(), groups: ['system:masters'] });
  const authenticators: Authenticator[] = [];
  // The authenticating proxy first (SPEC 5.3): it strips its headers from every request.
  const requestHeaderCaPem = opts.requestheaderClientCaFile ? await readFile(opts.requestheaderClientCaFile, 'utf8') : undefined;
  if (requestHeaderCaPem) authenticators.push(requestHeaderAuthenticator(opts, requestHeaderCaPem));
  // Without a client CA the TLS layer asks for no certificate, so x509 then never answers. The
  // listener also trusts the proxy's CA; x509 accepts only leaves of the client CA.
  let clientCas: X509Certificate[] = [];
  authenticators.push(new X509Authenticator(() => clientCas));
  // Token methods in DESIGN's order: token file, bootstrap tokens, service-account JWTs.
  const sa = await loadServiceAccountConfig(opts, opts.certDir || join(dataDir, 'certs'));
  let registries: RegistrySet | undefined;
  const secretLookup = registryLookup(() => registries, '', 'secrets');
  const podLookup = registryLookup(() => registries, '', 'pods');
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
      lookup: { serviceAccount: registryLookup(() => registries, '', 'serviceaccounts'), secret: secretLookup, pod: podLookup },
    }),
  );
  // OIDC after service accounts, as upstream: both read JWTs, and an OIDC miss may refetch keys.
  const oidc = await startOidcAuthenticator(opts, sa.apiAudiences, logger);
  if (oidc) tokenMethods.push(oidc);
  if (opts.authenticationTokenWebhookConfigFile) tokenMethods.push(await webhookAuthenticator(opts, sa.apiAudiences, logger));
  const tokenAuthenticator = new TokenAuthenticatorChain(tokenMethods);
  authenticators.push(new BearerTokenAuthenticator(tokenAuthenticator));
  return {
    authenticators,
    tokenAuthenticator,
    tokenIssuer: new ServiceAccountTokenIssuer(sa.signingKey, sa.issuers[0]!, opts.apiDomain),
    serviceAccounts: sa,
    secretLookup,
    podLookup,
    adminToken: admin.token,
    loopbackToken,
    requestHeaderCaPem,
    bindRegistries: (r) => (registries = r),
    trustClientCas: (cas) => (clientCas = cas),
    stop: () => oidc?.stop(),
  };
}

function requestHeaderAuthenticator(opts: ServerOptions, caPem: string): RequestHeaderAuthenticator {
  const cas = certificatesOf(caPem);
  if (cas.length === 0) throw new Error(`--requestheader-client-ca-file ${opts.requestheaderClientCaFile}: no certificate found`);
  return new RequestHeaderAuthenticator({
    cas,
    allowedNames: opts.requestheaderAllowedNames,
    usernameHeaders: opts.requestheaderUsernameHeaders,
    uidHeaders: opts.requestheaderUidHeaders,
    groupHeaders: opts.requestheaderGroupHeaders,
    extraHeaderPrefixes: opts.requestheaderExtraHeadersPrefix,
  });
}

async function webhookAuthenticator(opts: ServerOptions, apiAudiences: string[], logger: Logger): Promise<WebhookTokenAuthenticator> {
  const file = opts.authenticationTokenWebhookConfigFile;
  const config = parseWebhookConfig(await readFile(file, 'utf8'), file, (p) => readFileSync(p, 'utf8'));
  return new WebhookTokenAuthenticator({
    config,
    version: opts.authenticationTokenWebhookVersion as 'v1' | 'v1beta1',
    apiDomain: opts.apiDomain,
    apiAudiences,
    cacheTtlMs: opts.authenticationTokenWebhookCacheTtl,
    timeoutMs: opts.webhookTimeoutMs,
    onError: (err) => logger.warn({ err: err.message }, 'token webhook failed'),
  });
}
