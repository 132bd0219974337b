import type { IncomingMessage } from 'node:http';
import { newUnauthorized } from '@cluster/apimachinery';
import type { UserInfo } from '../handlers/scope.js';
import { bearerToken, type Authenticator } from './authenticator.js';

/**
 * Static token authentication (--token-auth-file). Tokens never expire. A bearer token that no
 * other method claims and that is not in the file is 401.
 */
export class TokenFileAuthenticator implements Authenticator {
  constructor(private readonly tokens: ReadonlyMap<string, UserInfo>) {}

  authenticate(req: IncomingMessage): UserInfo | undefined {
    const token = bearerToken(req);
    if (token === undefined) return undefined;
    const user = this.tokens.get(token);
    if (!user) throw newUnauthorized();
    return user;
  }
}
