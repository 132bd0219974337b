import type { Middleware } from 'koa';
import type { Authorizer, Verdict } from '../authz/authorizer.js';
import type { RequestState } from './state.js';
import { forbidden } from '../authz/forbidden.js';

/**
 * Asks the authorizer (the --authorization-mode chain as one); anything but allow is 403
 * with upstream's message (`User "x" cannot list resource "configmaps" in API group "" ...`).
 */
export function withAuthorization(authorizer: Authorizer, apiDomain: string): Middleware<RequestState> {
  const decisionKey = `authorization.${apiDomain}/decision`;
  const reasonKey = `authorization.${apiDomain}/reason`;
  type Ctx = Parameters<Middleware<RequestState>>[0];
  const decided = (ctx: Ctx, next: () => Promise<unknown>, d: Verdict): Promise<unknown> => {
    const user = ctx.state.user!;
    const info = ctx.state.requestInfo;
    const audit = ctx.state.audit;
    if (audit) {
      // Upstream's audit annotations of the authorization decision.
      audit.annotations[decisionKey] = d.decision === 'allow' ? 'allow' : 'forbid';
      if (d.reason) audit.annotations[reasonKey] = d.reason;
    }
    if (d.decision === 'allow') return next();
    throw forbidden(user.username, info, d.reason);
  };
  // Not an async function: an authorizer that can decide at once (RBAC, Node and the fixed modes
  // once their indexes are listed) lets the request on without a promise or a microtask turn.
  return (ctx, next) => {
    const attrs = { user: ctx.state.user!, info: ctx.state.requestInfo };
    const now = authorizer.authorizeNow?.(attrs);
    if (now !== undefined) return decided(ctx, next, now);
    return authorizer.authorize(attrs).then((d) => decided(ctx, next, d));
  };
}

