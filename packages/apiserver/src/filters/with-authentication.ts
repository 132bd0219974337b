import type { Middleware } from 'koa';
import { newUnauthorized } from '@cluster/apimachinery';
import type { Authenticator } from '../authn/authenticator.js';
import type { UserInfo } from '../authn/user.js';
import { withAuthenticatedGroup } from '../authn/authenticator.js';
import type { RequestState } from './state.js';

export const ANONYMOUS = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/**
 * Health endpoints answer credential-less probes even when anonymous requests are off: load
 * balancers in front of replicas probe /readyz without credentials. (Upstream reaches the same
 * through anonymous access plus the public-info-viewer role.)
 */
function isHealthProbe(path: string): boolean {
  return /^\/(healthz|livez|readyz)(\/|$)/.test(path);
}

/**
 * Runs authenticators in order; the first that returns a user wins (SPEC 5). No credential at all
 * is anonymous when --anonymous-auth is on (or for health probes), else 401; a rejected credential
 * is always 401.
 */
export function withAuthentication(authenticators: readonly Authenticator[], anonymous: boolean): Middleware<RequestState> {
  type Ctx = Parameters<Middleware<RequestState>>[0];
  const decide = (ctx: Ctx, next: () => Promise<unknown>, user: UserInfo | undefined, rejected: unknown): Promise<unknown> => {
    if (user) {
      ctx.state.user = withAuthenticatedGroup(user);
    } else if (rejected !== undefined && !isHealthProbe(ctx.path)) {
      throw rejected;
    } else if (anonymous || isHealthProbe(ctx.path)) {
      ctx.state.user = { ...ANONYMOUS, groups: [...ANONYMOUS.groups] };
    } else {
      throw newUnauthorized();
    }
    // Credentials are not passed further than needed.
    if (ctx.req.headers.authorization !== undefined) delete ctx.req.headers.authorization;
    return next();
  };
  // The methods from `from` on, once one answered with a promise.
  const rest = async (ctx: Ctx, next: () => Promise<unknown>, from: number, pending: Promise<UserInfo | undefined>, rejected: unknown): Promise<unknown> => {
    let user: UserInfo | undefined;
    for (let i = from; i < authenticators.length; i++) {
      try {
        // Certificate and proxy methods answer at once: only a pending answer is awaited (each
        // await is a microtask turn, on every request for every method).
        const answer = i === from ? pending : authenticators[i]!.authenticate(ctx.req);
        user = answer instanceof Promise ? await answer : answer;
      } catch (e) {
        rejected ??= e;
        continue;
      }
      if (user) break;
    }
    return decide(ctx, next, user, rejected);
  };
  // Not an async function: when every method answers at once (client certificates, tokens looked
  // up in memory) the request goes on without a microtask turn of its own.
  return (ctx, next) => {
    let user: UserInfo | undefined;
    // As upstream's union: a method that rejects its credential does not stop the others (a
    // proxy's certificate with a valid bearer token still authenticates); the first rejection is
    // the answer only when no method accepts.
    let rejected: unknown;
    for (let i = 0; i < authenticators.length; i++) {
      let answer;
      try {
        answer = authenticators[i]!.authenticate(ctx.req);
      } catch (e) {
        rejected ??= e;
        continue;
      }
      if (answer instanceof Promise) return rest(ctx, next, i, answer, rejected);
      user = answer;
      if (user) break;
    }
    return decide(ctx, next, user, rejected);
  };
}
