import type { Middleware } from 'koa';
import { Gauge, type Registry } from 'prom-client';
import { newTooManyRequests } from '@cluster/apimachinery';
import type { RequestState } from './state.js';

const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * The health endpoints: upstream's default flow control puts probes of /healthz, /livez and
 * /readyz (the `probes` FlowSchema) at the exempt priority level, so a load balancer's check is
 * answered however busy the replica is. Only GETs: anything else there is an ordinary request.
 */
const isHealthProbe = (method: string, path: string): boolean => method === 'GET' && /^\/(healthz|livez|readyz)(\/|$)/.test(path);

/**
 * Caps concurrent requests as upstream's --max-requests-inflight and
 * --max-mutating-requests-inflight do: over the cap, 429 with Retry-After. It runs after
 * authentication, as upstream's, so only authenticated requests (and anonymous ones, when allowed)
 * take a slot; a `system:masters` member is served even over the cap (upstream: "a super-admin
 * should always get an answer"). Watches are long-running and not counted, nor are health probes.
 * A limit of 0 disables that class. With a registry, publishes upstream's
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
    if (info.verb === 'watch' || (!info.isResourceRequest && isHealthProbe(ctx.method, ctx.path))) return next();
    const isMutating = MUTATING.has(info.verb);
    const limit = isMutating ? limits.mutating : limits.readOnly;
    if (limit > 0 && (isMutating ? mutating : readOnly) >= limit) {
      if (ctx.state.user?.groups.includes('system:masters')) return next();
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
