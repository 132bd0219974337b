import type { UserInfo } from './user.js';
import type { TokenAuthenticator, TokenAuthResult } from './authenticator.js';
import { agnosticAudiences } from './audiences.js';

/**
 * Static token authentication (--token-auth-file). Tokens never expire and are valid for this
 * API server only: a TokenReview naming audiences accepts them only for those that are also the
 * server's --api-audiences, as upstream's audience-agnostic wrapper does.
 */
export class TokenFileAuthenticator implements TokenAuthenticator {
  constructor(
    private readonly tokens: ReadonlyMap<string, UserInfo>,
    private readonly apiAudiences: readonly string[] = [],
  ) {}

  authenticateToken(token: string, audiences?: readonly string[]): TokenAuthResult | undefined {
    const auds = agnosticAudiences(this.apiAudiences, audiences);
    if (!auds) return undefined;
    const user = this.tokens.get(token);
    return user ? { user, ...auds } : undefined;
  }
}
