import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyOptions, type KeyObject, type CryptoKey } from 'jose';
import { newUnauthorized } from '@cluster/apimachinery';
import type { TokenAuthenticator, TokenAuthResult } from './authenticator.js';
import { agnosticAudiences } from './audiences.js';
import { userFromClaims, type OidcClaimRules } from './oidc-claims.js';
import type { JsonGetter } from './oidc-fetch.js';
import { OidcKeySource } from './oidc-keys.js';

/** go-oidc's leeway for `nbf` (issuer clocks ahead of ours); `exp` gets none. */
export const OIDC_NBF_LEEWAY_SECONDS = 300;
/** Upstream polls discovery every 10 s until it succeeds. */
export const DEFAULT_DISCOVERY_RETRY_MS = 10_000;
/** What `--oidc-signing-algs` may name (upstream's list: asymmetric JOSE algorithms only). */
export const OIDC_ALLOWED_SIGNING_ALGS: readonly string[] = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

export interface OidcAuthenticatorOptions extends Omit<OidcClaimRules, 'issuerUrl'> {
  /** `--oidc-issuer-url`: the `iss` of every token this method handles. */
  issuerUrl: string;
  /** `--oidc-client-id`: every token's `aud` must name it. */
  clientId: string;
  /** `--oidc-signing-algs`: the only `alg` values accepted. */
  signingAlgs: readonly string[];
  /** `--api-audiences`: a TokenReview naming other audiences is not for this method. */
  apiAudiences: readonly string[];
  /** Fetches discovery and the key set (HTTPS, trusting `--oidc-ca-file` or the host roots). */
  getJson: JsonGetter;
  /** Time between discovery attempts while the issuer is unreachable; default 10 s. */
  discoveryRetryMs?: number;
  /** Least time between two key-set fetches caused by unknown keys; default 10 s. */
  keyRefreshIntervalMs?: number;
  /** Why a token was refused, or why discovery failed; silent by default. */
  log?: (message: string, err?: unknown) => void;
  /** Clock in ms; Date.now by default. */
  now?: () => number;
}

/**
 * OpenID Connect ID tokens (SPEC 5, 5.1), verified offline against the issuer's published keys.
 * A token that is not a JWT or whose `iss` is not this issuer is left to the next method
 * (undefined). One of ours is 401 unless its signature verifies with an allowed algorithm under
 * a key of the issuer's set (an unknown `kid` refetches the set, rate-limited), `aud` names the
 * client id, `exp` is in the future, `nbf` is not (with leeway), and the claims make a user
 * ({@link userFromClaims}). Until discovery succeeds every token of ours is 401; {@link start}
 * retries discovery in the background, so the server starts while the issuer is down.
 */
export class OidcAuthenticator implements TokenAuthenticator {
  readonly keys: OidcKeySource;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly opts: OidcAuthenticatorOptions) {
    this.keys = new OidcKeySource({
      issuerUrl: opts.issuerUrl,
      getJson: opts.getJson,
      refreshIntervalMs: opts.keyRefreshIntervalMs,
      now: opts.now,
    });
  }

  /**
   * Starts discovery: tries now, then every retry interval until it succeeds or {@link stop};
   * after discovery fetches the key set once (a failure there is retried by the first token).
   * Never throws; failures are logged.
   */
  start(): void {
    const attempt = async () => {
      this.timer = undefined;
      if (this.stopped) return;
      try {
        await this.keys.discover();
      } catch (err) {
        this.opts.log?.('oidc authenticator: initializing plugin', err);
        // Unref'd: a retry never keeps the process alive (a failed start-up must be able to exit).
        if (!this.stopped) this.timer = setTimeout(() => void attempt(), this.opts.discoveryRetryMs ?? DEFAULT_DISCOVERY_RETRY_MS).unref();
        return;
      }
      await this.keys.refresh(true).catch((err: unknown) => this.opts.log?.('oidc authenticator: fetching keys', err));
    };
    void attempt();
  }

  /** Stops the discovery retries; tokens keep being verified with what was fetched. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<TokenAuthResult | undefined> {
    let iss: unknown;
    try {
      decodeProtectedHeader(token);
      iss = decodeJwt(token).iss;
    } catch {
      return undefined;
    }
    if (iss !== this.opts.issuerUrl) return undefined;
    const auds = agnosticAudiences(this.opts.apiAudiences, audiences);
    if (!auds) return undefined;
    try {
      const payload = await this.verify(token);
      return { user: userFromClaims(payload, { ...this.opts }), ...auds };
    } catch (err) {
      this.opts.log?.('oidc: token refused', err);
      throw newUnauthorized();
    }
  }

  /** Signature and registered claims; throws (any error) when the token is not valid now. */
  private async verify(token: string): Promise<JWTPayload> {
    const nowMs = (this.opts.now ?? Date.now)();
    const options: JWTVerifyOptions = {
      issuer: this.opts.issuerUrl,
      audience: this.opts.clientId,
      algorithms: [...this.opts.signingAlgs],
      requiredClaims: ['exp'],
      clockTolerance: OIDC_NBF_LEEWAY_SECONDS,
      currentDate: new Date(nowMs),
    };
    let payload: JWTPayload;
    try {
      payload = await verifyWithSet(token, await this.keys.current(), options);
    } catch (err) {
      if (codeOf(err) !== 'ERR_JWKS_NO_MATCHING_KEY') throw err;
      // A key we do not know: the issuer may have rotated. Look again (rate-limited).
      if (!(await this.keys.refresh())) throw err;
      payload = await verifyWithSet(token, await this.keys.current(), options);
    }
    // jose applies the tolerance to exp too; the issuer's exp is final.
    if (typeof payload.exp !== 'number' || payload.exp * 1000 <= nowMs) throw new Error('oidc: token is expired');
    return payload;
  }
}

type GetKey = Awaited<Parameters<typeof jwtVerify>[1]>;

/**
 * jwtVerify with a key set; a token without `kid` that several keys could match is tried
 * against each (as go-oidc does), the first valid signature winning.
 */
async function verifyWithSet(token: string, keys: GetKey, options: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, keys, options)).payload;
  } catch (err) {
    if (codeOf(err) !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw err;
    let last: unknown = err;
    for await (const key of err as AsyncIterable<KeyObject | CryptoKey>) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (e) {
        if (codeOf(e) !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') throw e;
        last = e;
      }
    }
    throw last;
  }
}

function codeOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}
