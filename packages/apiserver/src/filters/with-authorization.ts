import type { Middleware } from 'koa';
import type { Authorizer } from '../authz/authorizer.js';
import type { RequestState } from './state.js';
import { forbidden } from '../authz/forbidden.js';

/**
 * Asks the authorizer (the --authorization-mode chain as one); anything but allow is 403
 * with upstream's message (`User "x" cannot list resource "configmaps" in API group "" ...`).
 */
export function withAuthorization(authorizer: Authorizer): Middleware<RequestState> {
  return async (ctx, next) => {
    const user = ctx.state.user!;
    const info = ctx.state.requestInfo;
    const d = await authorizer.authorize({ user, info });
    if (d.decision === 'allow') return next();
    throw forbidden(user.username, info, d.reason);
  };
}

