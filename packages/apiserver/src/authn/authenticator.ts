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
    // A header this method cannot read is still a credential the client meant to use: a 401
    // (unless another method accepts the request), never an anonymous request.
    if (token === MALFORMED) throw newUnauthorized();
    const r = await this.tokens.authenticateToken(token);
    if (!r) throw newUnauthorized();
    return r.user;
  }
}

/** An Authorization header that holds no bearer token upstream would read. */
export const MALFORMED: unique symbol = Symbol('malformed authorization');

/**
 * The bearer token of an Authorization header, read exactly as upstream's bearer authenticator
 * reads it: the trimmed header split on single spaces into at most three parts, the scheme
 * compared case-insensitively, the second part the token (so `Bearer  t`, with two spaces, has an
 * empty token, and `Bearer\tt` no scheme). Undefined when there is no header; {@link MALFORMED}
 * when there is one that yields no token (another scheme, no token, extra spaces).
 */
export function bearerToken(req: IncomingMessage): string | typeof MALFORMED | undefined {
  const h = req.headers.authorization;
  if (h === undefined) return undefined;
  return tokenOfAuthorization(h);
}

/** The pure part of {@link bearerToken}. */
export function tokenOfAuthorization(header: string): string | typeof MALFORMED | undefined {
  const auth = header.trim();
  if (auth === '') return undefined;
  const first = auth.indexOf(' ');
  if (first < 0 || auth.slice(0, first).toLowerCase() !== 'bearer') return MALFORMED;
  const second = auth.indexOf(' ', first + 1);
  const token = second < 0 ? auth.slice(first + 1) : auth.slice(first + 1, second);
  return token === '' ? MALFORMED : token;
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
