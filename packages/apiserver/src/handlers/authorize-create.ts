import { authorizeOrForbid } from '../authz/forbidden.js';
import type { RequestScope } from './scope.js';

/**
 * The check a PUT or a server-side apply runs when it turns out to create the object: the
 * requester needs `create` on the resource too, not only update or patch (SPEC 4.8 rule 7, 5.7),
 * as upstream's update and patch handlers check. No authorizer (internal use): no check.
 */
export function authorizeCreateFor(scope: RequestScope): (() => Promise<void>) | undefined {
  const authorizer = scope.authorizer;
  if (!authorizer) return undefined;
  return () => authorizeOrForbid(authorizer, { user: scope.user, info: { ...scope.info, verb: 'create' } });
}
