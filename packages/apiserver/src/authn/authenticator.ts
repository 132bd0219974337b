import type { IncomingMessage } from 'node:http';
import { newUnauthorized } from '@cluster/apimachinery';
import type { UserInfo } from './user.js';

/**
 * One authentication method. Returns the user, or undefined when the request carries no
 * credential this method understands; throws a StatusError (401) for a credential it rejects.
 */
export interface Authenticator {
  authenticate(req: IncomingMessage): Promise<UserInfo | undefined> | UserInfo | undefined;
}

/** What a bearer-token method says of a token it accepts. */
export interface TokenAuthResult {
  user: UserInfo;
  /**
   * The requested audiences the token is valid for (SPEC 5.2 item 4); undefined when no
   * audiences were requested and the token is valid for this API server.
   */
  audiences?: string[];
}

/**
 * One bearer-token method (token file, bootstrap tokens, service-account JWTs, ...). Returns
 * undefined for a token it does not recognise, so that the next method may; returns the result
 * for a valid token; throws a StatusError (401) for a token it recognises and rejects (expired,
 * bad signature, deleted account). `audiences`: the audiences a TokenReview asks about; absent,
 * the token must be meant for this API server.
 */
export interface TokenAuthenticator {
  authenticateToken(token: string, audiences?: readonly string[]): Promise<TokenAuthResult | undefined> | TokenAuthResult | undefined;
}

/** What the token methods together say of one token, for TokenReview. */
export type TokenVerdict =
  | { accepted: TokenAuthResult }
  /** A method recognised the token and rejected it (expired, bad signature, revoked). */
  | { rejected: Error }
  /** No method recognised the token. */
  | { unknown: true };

/**
 * Runs token methods in order (DESIGN: token file, bootstrap, service account, OIDC, webhook);
 * the first that accepts wins. A token none accepts is 401. Used both for request headers and
 * for TokenReview.
 */
export class TokenAuthenticatorChain implements TokenAuthenticator {
  constructor(private readonly methods: readonly TokenAuthenticator[]) {}

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<TokenAuthResult> {
    const v = await this.judge(token, audiences);
    if ('accepted' in v) return v.accepted;
    if ('rejected' in v) throw v.rejected;
    throw newUnauthorized();
  }

  /** Like authenticateToken, but tells a rejected token from an unknown one instead of throwing 401. */
  async judge(token: string, audiences?: readonly string[]): Promise<TokenVerdict> {
    for (const m of this.methods) {
      let r;
      try {
        r = await m.authenticateToken(token, audiences);
      } catch (err) {
        return { rejected: err as Error };
      }
      if (r) return { accepted: r };
    }
    return { unknown: true };
  }
}

/** Authenticates `Authorization: Bearer` requests with a token method; no bearer header: no opinion. */
export class BearerTokenAuthenticator implements Authenticator {
  constructor(private readonly tokens: TokenAuthenticator) {}

  async authenticate(req: IncomingMessage): Promise<UserInfo | undefined> {
    const token = bearerToken(req);
    if (token === undefined) return undefined;
    const r = await this.tokens.authenticateToken(token);
    if (!r) throw newUnauthorized();
    return r.user;
  }
}

/** The bearer token of an `Authorization: Bearer <token>` header, if any. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1]!.trim() : undefined;
}

const withGroup = new WeakMap<UserInfo, UserInfo>();

/**
 * Adds system:authenticated once, as upstream does for every authenticated user. The result is
 * remembered per user object, so an authenticator that hands out the same object (x509, per
 * connection) gets the same answer object, which authorizers can cache on.
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes('system:authenticated')) return user;
  let out = withGroup.get(user);
  if (!out) {
    out = { ...user, groups: [...user.groups, 'system:authenticated'] };
    withGroup.set(user, out);
  }
  return out;
}
