import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../handlers/scope.js';

/**
 * One authentication method. Returns the user, or undefined when the request carries no
 * credential this method understands; throws a StatusError (401) for a credential it rejects.
 */
export interface Authenticator {
  authenticate(req: IncomingMessage): Promise<UserInfo | undefined> | UserInfo | undefined;
}

/** The bearer token of an `Authorization: Bearer <token>` header, if any. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1]!.trim() : undefined;
}

/** Adds system:authenticated once, as upstream does for every authenticated user. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes('system:authenticated')) return user;
  return { ...user, groups: [...user.groups, 'system:authenticated'] };
}
