import type { Middleware } from 'koa';
import { newTooManyRequests } from '@cluster/apimachinery';
import type { RequestState } from './state.js';

const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * Caps concurrent requests as upstream's --max-requests-inflight and
 * --max-mutating-requests-inflight do: over the cap, 429 with Retry-After. Watches are long-running
 * and not counted. A limit of 0 disables that class.
 */
export function withInflightLimit(limits: { readOnly: number; mutating: number }): Middleware<RequestState> {
  let readOnly = 0;
  let mutating = 0;
  return async (ctx, next) => {
    const info = ctx.state.requestInfo;
    if (info.verb === 'watch') return next();
    const isMutating = MUTATING.has(info.verb);
    const limit = isMutating ? limits.mutating : limits.readOnly;
    if (limit > 0 && (isMutating ? mutating : readOnly) >= limit) {
      throw newTooManyRequests('Too many requests, please try again later.', 1);
    }
    if (isMutating) mutating++;
    else readOnly++;
    try {
      await next();
    } finally {
      if (isMutating) mutating--;
      else readOnly--;
    }
  };
}
