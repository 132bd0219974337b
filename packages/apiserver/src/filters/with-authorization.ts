import type { Middleware } from 'koa';
import type { Authorizer } from '../authz/authorizer.js';
import type { RequestState } from './state.js';
import { forbidden } from '../authz/forbidden.js';

/**
 * Asks the authorizer (the --authorization-mode chain as one); anything but allow is 403
 * with upstream's message (`User "x" cannot list resource "configmaps" in API group "" ...`).
 */
export function withAuthorization(authorizer: Authorizer, apiDomain: string): Middleware<RequestState> {
  const decisionKey = `authorization.${apiDomain}/decision`;
  const reasonKey = `authorization.${apiDomain}/reason`;
  return async (ctx, next) => {
    const user = ctx.state.user!;
    const info = ctx.state.requestInfo;
    const d = await authorizer.authorize({ user, info });
    const audit = ctx.state.audit;
    if (audit) {
      // Upstream's audit annotations of the authorization decision.
      audit.annotations[decisionKey] = d.decision === 'allow' ? 'allow' : 'forbid';
      if (d.reason) audit.annotations[reasonKey] = d.reason;
    }
    if (d.decision === 'allow') return next();
    throw forbidden(user.username, info, d.reason);
  };
}

