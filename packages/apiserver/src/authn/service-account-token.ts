import { randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { algorithmOf, keyIdOf } from './service-account-keys.js';

/** `system:serviceaccount:<namespace>:<name>`, the user name of a service account. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * The private claim of a service-account token. Upstream's key is literally `kubernetes.io`;
 * here the product domain is the `--api-domain` (as for annotations and Secret types), so it is
 * `k8s.io` by default. Tokens are read only by this server, so the choice is self-consistent.
 */
export function privateClaimName(apiDomain: string): string {
  return apiDomain;
}

/** The private claim's content (upstream's `kubernetes` claims in serviceaccount/claims.go). */
export interface PrivateClaims {
  namespace: string;
  serviceaccount: { name: string; uid: string };
  secret?: { name: string; uid: string };
  /** The pod a token is bound to (a node agent's projected token): valid only while it exists. */
  pod?: { name: string; uid: string };
}

/** What a TokenRequest asks for, once defaulted and checked. */
export interface TokenSpec {
  namespace: string;
  serviceAccount: { name: string; uid: string };
  secret?: { name: string; uid: string };
  pod?: { name: string; uid: string };
  audiences: readonly string[];
  expirationSeconds: number;
  /** Issue time in ms since the epoch; `exp` is this plus expirationSeconds. */
  now: number;
}

/**
 * Signs service-account JWTs with the --service-account-signing-key-file key, for the first
 * --service-account-issuer. Stateless apart from its key.
 */
export class ServiceAccountTokenIssuer {
  private readonly alg: string;
  private readonly kid: string;

  constructor(
    private readonly key: KeyObject,
    readonly issuer: string,
    private readonly apiDomain: string,
  ) {
    this.alg = algorithmOf(key, 'service account signing key');
    this.kid = keyIdOf(key);
  }

  /** Returns the compact JWT and its expiry (ms). Claims: iss, sub, aud, exp, iat, nbf, jti and the private claim. */
  async issue(spec: TokenSpec): Promise<{ token: string; expiresAt: number; jti: string }> {
    const iat = Math.floor(spec.now / 1000);
    const exp = iat + spec.expirationSeconds;
    const jti = randomUUID();
    const priv: PrivateClaims = { namespace: spec.namespace, serviceaccount: { ...spec.serviceAccount } };
    if (spec.secret) priv.secret = { ...spec.secret };
    if (spec.pod) priv.pod = { ...spec.pod };
    const token = await new SignJWT({ [privateClaimName(this.apiDomain)]: priv })
      .setProtectedHeader({ alg: this.alg, kid: this.kid })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(spec.namespace, spec.serviceAccount.name))
      .setAudience([...spec.audiences])
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .setJti(jti)
      .sign(this.key);
    return { token, expiresAt: exp * 1000, jti };
  }
}
