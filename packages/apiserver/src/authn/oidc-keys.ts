import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { JsonGetter } from './oidc-fetch.js';

/** How often a token may make the key set be fetched again (an unknown `kid`); go-oidc has none, jose 30 s. */
export const DEFAULT_KEY_REFRESH_INTERVAL_MS = 10_000;

export interface OidcKeySourceOptions {
  /** `--oidc-issuer-url`; discovery is `<issuer without trailing />/.well-known/openid-configuration`. */
  issuerUrl: string;
  getJson: JsonGetter;
  /** Least time between two key-set fetches after the first; default {@link DEFAULT_KEY_REFRESH_INTERVAL_MS}. */
  refreshIntervalMs?: number;
  /** Clock in ms; Date.now by default. */
  now?: () => number;
}

/** The issuer has not been discovered yet (it was down at start-up, or answers wrongly). */
export class OidcNotReadyError extends Error {
  override readonly name = 'OidcNotReadyError';
}

/**
 * The issuer's published verification keys: discovery once (its `issuer` must equal the flag,
 * its `jwks_uri` must be https), then the key set, fetched on first use and again when a token
 * names a key the cached set lacks, at most once per refresh interval. Concurrent callers share
 * one fetch. Keeps the last good set when a fetch fails.
 */
export class OidcKeySource {
  private jwksUri: string | undefined;
  private keys: JWTVerifyGetKey | undefined;
  private lastFetch = -Infinity;
  private inflight: Promise<boolean> | undefined;
  /** Key-set fetches made so far (for tests and logs). */
  fetches = 0;

  constructor(private readonly opts: OidcKeySourceOptions) {}

  /** Whether discovery has succeeded. */
  get discovered(): boolean {
    return this.jwksUri !== undefined;
  }

  /**
   * Fetches the discovery document and records `jwks_uri`. Throws (leaving the source
   * undiscovered) when the issuer cannot be reached or the document is wrong.
   */
  async discover(): Promise<void> {
    const url = `${this.opts.issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const doc = await this.opts.getJson(url);
    if (typeof doc !== 'object' || doc === null) throw new Error(`${url}: not a JSON object`);
    const { issuer, jwks_uri: jwksUri } = doc as { issuer?: unknown; jwks_uri?: unknown };
    if (issuer !== this.opts.issuerUrl) {
      throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.opts.issuerUrl)} got ${JSON.stringify(issuer)}`);
    }
    if (typeof jwksUri !== 'string' || !jwksUri.startsWith('https://')) {
      throw new Error(`${url}: jwks_uri must be an https URL, got ${JSON.stringify(jwksUri)}`);
    }
    this.jwksUri = jwksUri;
  }

  /**
   * The cached key set, fetching it first if there is none yet (rate-limited like any refetch, so
   * a failing key endpoint is not asked once per token). Throws {@link OidcNotReadyError} before
   * discovery, or the fetch error when no set was ever fetched.
   */
  async current(): Promise<JWTVerifyGetKey> {
    if (!this.jwksUri) throw new OidcNotReadyError('oidc: authenticator not initialized');
    if (!this.keys) await this.refresh();
    if (!this.keys) throw new Error('oidc: no key set fetched yet');
    return this.keys;
  }

  /**
   * Fetches the key set again unless the last fetch was within the refresh interval (then
   * returns false at once). `force` skips that interval (the first fetch). Returns whether a new
   * set is in place; throws the fetch error when the caller must not proceed with old keys.
   */
  async refresh(force = false): Promise<boolean> {
    if (!this.jwksUri) return false;
    if (this.inflight) return this.inflight;
    const now = (this.opts.now ?? Date.now)();
    const interval = this.opts.refreshIntervalMs ?? DEFAULT_KEY_REFRESH_INTERVAL_MS;
    if (!force && now - this.lastFetch < interval) return false;
    this.lastFetch = now;
    const uri = this.jwksUri;
    this.inflight = (async () => {
      try {
        this.fetches++;
        const body = await this.opts.getJson(uri);
        // createLocalJWKSet checks the shape: an object with a `keys` array of JWKs.
        this.keys = createLocalJWKSet(body as JSONWebKeySet);
        return true;
      } finally {
        this.inflight = undefined;
      }
    })();
    return this.inflight;
  }
}
