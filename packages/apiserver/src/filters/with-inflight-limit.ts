import type { Middleware } from 'koa';
import { Gauge, type Registry } from 'prom-client';
import { newTooManyRequests } from '@cluster/apimachinery';
import type { RequestState } from './state.js';

const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * Caps concurrent requests as upstream's --max-requests-inflight and
 * --max-mutating-requests-inflight do: over the cap, 429 with Retry-After. Watches are long-running
 * and not counted. A limit of 0 disables that class. With a registry, publishes upstream's
 * `apiserver_current_inflight_requests{request_kind}`: the most requests of each kind in flight at
 * once since the previous scrape (upstream: in the last second), at least those in flight now.
 */
export function withInflightLimit(limits: { readOnly: number; mutating: number }, registry?: Registry): Middleware<RequestState> {
  let readOnly = 0;
  let mutating = 0;
  let peakReadOnly = 0;
  let peakMutating = 0;
  if (registry) {
    new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers: [registry],
      collect() {
        this.set({ request_kind: 'readOnly' }, Math.max(peakReadOnly, readOnly));
        this.set({ request_kind: 'mutating' }, Math.max(peakMutating, mutating));
        peakReadOnly = readOnly;
        peakMutating = mutating;
      },
    });
  }
  return async (ctx, next) => {
    const info = ctx.state.requestInfo;
    if (info.verb === 'watch') return next();
    const isMutating = MUTATING.has(info.verb);
    const limit = isMutating ? limits.mutating : limits.readOnly;
    if (limit > 0 && (isMutating ? mutating : readOnly) >= limit) {
      throw newTooManyRequests('Too many requests, please try again later.', 1);
    }
    if (isMutating) peakMutating = Math.max(peakMutating, ++mutating);
    else peakReadOnly = Math.max(peakReadOnly, ++readOnly);
    try {
      await next();
    } finally {
      if (isMutating) mutating--;
      else readOnly--;
    }
  };
}
