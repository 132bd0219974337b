import type { UserInfo } from './user.js';
import type { TokenAuthenticator, TokenAuthResult } from './authenticator.js';

/**
 * Static token authentication (--token-auth-file). Tokens never expire and are valid for this
 * API server only (a TokenReview naming other audiences does not accept them, as upstream).
 */
export class TokenFileAuthenticator implements TokenAuthenticator {
  constructor(private readonly tokens: ReadonlyMap<string, UserInfo>) {}

  authenticateToken(token: string, audiences?: readonly string[]): TokenAuthResult | undefined {
    if (audiences && audiences.length > 0) return undefined;
    const user = this.tokens.get(token);
    return user ? { user } : undefined;
  }
}
