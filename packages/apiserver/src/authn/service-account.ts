import type { KeyObject } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { newUnauthorized, type KubeObject } from '@cluster/apimachinery';
import type { TokenAuthenticator, TokenAuthResult } from './authenticator.js';
import { algorithmOf } from './service-account-keys.js';
import { privateClaimName, serviceAccountUsername, type PrivateClaims } from './service-account-token.js';

/** Reads one object; undefined when it does not exist. */
export type ObjectLookup = (namespace: string, name: string) => Promise<KubeObject | undefined>;

/** go-jose's default leeway for exp, nbf and iat, which upstream's validator uses. */
export const SERVICE_ACCOUNT_LEEWAY_SECONDS = 60;

export interface ServiceAccountAuthenticatorOptions {
  /** Verification keys (--service-account-key-file, or the TLS key). */
  keys: readonly KeyObject[];
  /** --service-account-issuer values; a JWT whose iss is none of them is not ours. */
  issuers: readonly string[];
  /** --api-audiences: the audiences a token must name when no audiences are requested. */
  apiAudiences: readonly string[];
  apiDomain: string;
  /**
   * Reads the objects a token is bound to: its account (and bound Secret or Pod) must still exist with
   * the token's uids. Always consulted, as upstream checks every bound token whatever
   * --service-account-lookup says (that flag governs only legacy Secret tokens, not issued here).
   */
  lookup: { serviceAccount: ObjectLookup; secret: ObjectLookup; pod?: ObjectLookup };
  /** Clock in ms; Date.now by default. */
  now?: () => number;
}

/**
 * Service-account JWTs (SPEC 5): a token that is not a JWT, or whose issuer is not ours, is left
 * to the next method (undefined); one of ours that fails signature, time, audience or lookup
 * checks is 401. The user is `system:serviceaccount:<ns>:<name>` with the account's uid.
 */
export class ServiceAccountAuthenticator implements TokenAuthenticator {
  private readonly keys: { key: KeyObject; alg: string }[];

  constructor(private readonly opts: ServiceAccountAuthenticatorOptions) {
    this.keys = opts.keys.map((key) => ({ key, alg: algorithmOf(key) }));
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<TokenAuthResult | undefined> {
    let unverified: JWTPayload;
    try {
      decodeProtectedHeader(token);
      unverified = decodeJwt(token);
    } catch {
      return undefined;
    }
    if (typeof unverified.iss !== 'string' || !this.opts.issuers.includes(unverified.iss)) return undefined;
    const payload = await this.verify(token);
    const requested = audiences && audiences.length > 0 ? audiences : this.opts.apiAudiences;
    const tokenAuds = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const valid = requested.filter((a) => tokenAuds.includes(a));
    if (valid.length === 0 && this.opts.apiAudiences.length > 0) throw newUnauthorized();
    const claims = payload[privateClaimName(this.opts.apiDomain)] as PrivateClaims | undefined;
    const ns = claims?.namespace;
    const sa = claims?.serviceaccount;
    if (!ns || !sa?.name || !sa.uid || payload.sub !== serviceAccountUsername(ns, sa.name)) throw newUnauthorized();
    await this.checkLive(ns, sa, claims, this.opts.lookup);
    const extra: Record<string, string[]> = {};
    // Upstream's pod-name / pod-uid extras, which the Node authorizer and audit read.
    if (claims.pod?.name && claims.pod.uid) {
      extra[`authentication.${this.opts.apiDomain}/pod-name`] = [claims.pod.name];
      extra[`authentication.${this.opts.apiDomain}/pod-uid`] = [claims.pod.uid];
    }
    if (typeof payload.jti === 'string') extra[`authentication.${this.opts.apiDomain}/credential-id`] = [`JTI=${payload.jti}`];
    return {
      user: {
        username: serviceAccountUsername(ns, sa.name),
        uid: sa.uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`],
        ...(Object.keys(extra).length > 0 ? { extra } : {}),
      },
      audiences: audiences && audiences.length > 0 ? valid : undefined,
    };
  }

  /** Signature by any configured key, then exp/nbf/iat with the leeway; throws 401 otherwise. */
  private async verify(token: string): Promise<JWTPayload> {
    const now = Math.floor((this.opts.now?.() ?? Date.now()) / 1000);
    for (const { key, alg } of this.keys) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [alg],
          clockTolerance: SERVICE_ACCOUNT_LEEWAY_SECONDS,
          currentDate: new Date(now * 1000),
        });
        return payload;
      } catch (e) {
        // A bad signature may verify under the next key; a time failure after a good signature is final.
        if ((e as { code?: string }).code !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' && (e as { code?: string }).code !== 'ERR_JOSE_ALG_NOT_ALLOWED') {
          throw newUnauthorized();
        }
      }
    }
    throw newUnauthorized();
  }

  /** The account, and a bound Secret or Pod, must exist with the uids of the claims and not be long deleted. */
  private async checkLive(
    ns: string,
    sa: { name: string; uid: string },
    claims: PrivateClaims,
    lookup: { serviceAccount: ObjectLookup; secret: ObjectLookup; pod?: ObjectLookup },
  ): Promise<void> {
    const now = this.opts.now?.() ?? Date.now();
    const live = (obj: KubeObject | undefined, uid: string) =>
      obj !== undefined &&
      obj.metadata.uid === uid &&
      // Upstream keeps a token valid for a short while after its object's deletion starts.
      !(obj.metadata.deletionTimestamp && Date.parse(obj.metadata.deletionTimestamp) < now - SERVICE_ACCOUNT_LEEWAY_SECONDS * 1000);
    if (!live(await lookup.serviceAccount(ns, sa.name), sa.uid)) throw newUnauthorized();
    const { secret, pod } = claims;
    if (secret !== undefined && (typeof secret?.name !== 'string' || !live(await lookup.secret(ns, secret.name), secret.uid))) throw newUnauthorized();
    if (pod !== undefined) {
      // A pod claim this server cannot check (no pods served) is refused, never ignored.
      if (typeof pod?.name !== 'string' || !lookup.pod || !live(await lookup.pod(ns, pod.name), pod.uid)) throw newUnauthorized();
    }
  }
}
