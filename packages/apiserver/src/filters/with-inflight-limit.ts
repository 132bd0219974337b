import type { Middleware } from 'koa';
import type { Registry } from 'prom-client';
import { newTooManyRequests } from '@cluster/apimachinery';
import type { RequestState } from './state.js';
import { inflightWatermark, MUTATING_VERBS } from './inflight-watermark.js';

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
  const inflight = inflightWatermark(registry);
  return async (ctx, next) => {
    const info = ctx.state.requestInfo;
    if (info.verb === 'watch' || (!info.isResourceRequest && isHealthProbe(ctx.method, ctx.path))) return next();
    const isMutating = MUTATING_VERBS.has(info.verb);
    const limit = isMutating ? limits.mutating : limits.readOnly;
    if (limit > 0 && (isMutating ? inflight.mutating : inflight.readOnly) >= limit) {
      if (ctx.state.user?.groups.includes('system:masters')) return next();
      throw newTooManyRequests('Too many requests, please try again later.', 1);
    }
    const leave = inflight.enter(isMutating);
    try {
      await next();
    } finally {
      leave();
    }
  };
}
