import { Stream } from 'node:stream';
import type { Context, Middleware, Next } from 'koa';
import type { Registry } from 'prom-client';
import { newTooManyRequests } from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';
import { RejectedRequest, type Classification, type FlowControl, type Ticket } from '../flowcontrol/flow-control.js';
import { estimateSeats } from '../flowcontrol/width.js';
import { sliceScheduler, type SliceOwner, type SliceScheduler } from '../flowcontrol/slice-scheduler.js';
import type { RequestInfo } from '../request/request-info.js';
import type { RequestState } from './state.js';
import { requestQuery } from './request-query.js';
import { inflightWatermark, MUTATING_VERBS } from './inflight-watermark.js';

/** What the filter needs: the replica's flow control and, for list seats, stored object counts. */
export interface PriorityAndFairnessDeps {
  control: FlowControl;
  /** Objects stored of a group ('' core) and resource, when cheaply known (watch cache sizes). */
  objectCount?: (group: string, resource: string) => number | undefined;
  /** Where apiserver_current_inflight_requests goes (as the in-flight limit publishes it). */
  metrics?: Registry;
  /** Told of every request in flight, by flow (default: the process's). */
  slices?: Pick<SliceScheduler, 'enter'>;
}

const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/** GETs of the health endpoints never wait, whatever the configuration (a load balancer's checks). */
const isHealthProbe = (method: string, path: string): boolean => method === 'GET' && /^\/(healthz|livez|readyz)(\/|$)/.test(path);

/**
 * API priority and fairness (upstream's WithPriorityAndFairness), in place of the max-in-flight
 * limit: after authentication and impersonation, each request is classified by the flow schemas
 * into a priority level and a flow, and answered with the X-Kubernetes-PF-FlowSchema-UID and
 * X-Kubernetes-PF-PriorityLevel-UID headers. Exempt levels (system:masters, the probes) and health
 * probes run at once; other requests take seats of their level (lists by the objects they read),
 * waiting fairly in its queues when it is full. A full queue, a level without queues at its limit,
 * or a wait past the limit is 429 with Retry-After. A watch waits for its turn like any request
 * and holds its seat while its initial events are written (the start state, or a replay of
 * history), then gives it back, as upstream does: it is long-running and otherwise streams changes
 * from the watch cache. The request's level and flow are left in the request state, so that the
 * slices of a large response take that flow's turns (SliceScheduler).
 */
export function withPriorityAndFairness(deps: PriorityAndFairnessDeps): Middleware<RequestState> {
  const { control } = deps;
  const inflight = inflightWatermark(deps.metrics);
  const slices = deps.slices ?? sliceScheduler;
  type Ctx = Parameters<Middleware<RequestState>>[0];
  // A flow's owner (level, flow and share; the slice scheduler's key) is the same object for every
  // request of the flow, made once per schema entry (replaced with the configuration) and flow.
  const owners = new WeakMap<object, Map<string, SliceOwner>>();
  const ownerOf = (c: Classification): SliceOwner => {
    let byFlow = owners.get(c.entry);
    if (!byFlow) owners.set(c.entry, (byFlow = new Map()));
    let owner = byFlow.get(c.distinguisher);
    if (!owner) {
      if (byFlow.size >= OWNER_CACHE_LIMIT) byFlow.clear();
      const flow = `${c.flowSchema}\n${c.distinguisher}`;
      owner = Object.freeze({ level: c.level.name, flow, share: c.level.share, key: `${c.level.name}\n${flow}` });
      byFlow.set(c.distinguisher, owner);
    }
    return owner;
  };
  const admitted = (ctx: Ctx, next: Next, info: RequestInfo, flow: SliceOwner, ticket: Ticket): Promise<void> => {
    if (info.verb === 'watch') {
      // The watch handler calls this once the initial events are written; a watch that fails
      // before (or ends before) gives the seat back when it ends.
      let held = true;
      const release = () => {
        if (!held) return;
        held = false;
        ticket.done();
      };
      ctx.state.watchInitialized = release;
      return next().finally(release);
    }
    const leave = inflight.enter(MUTATING_VERBS.has(info.verb));
    const running = slices.enter(flow);
    return untilResponded(ctx, next, () => {
      running();
      leave();
      ticket.done();
    });
  };
  // Not an async function: a request admitted at once (the common case) goes on without a promise
  // and microtask turns of its own; a throw here is a rejection to the chain, as an async one's.
  return (ctx, next) => {
    const info = ctx.state.requestInfo;
    const c = control.classify(ctx.state.user ?? ANONYMOUS, info);
    if (!c) return next();
    ctx.set('X-Kubernetes-PF-FlowSchema-UID', c.flowSchemaUid);
    ctx.set('X-Kubernetes-PF-PriorityLevel-UID', c.level.uid);
    const flow = ownerOf(c);
    ctx.state.flow = flow;
    if (c.level.exempt || !c.level.queueSet || (!info.isResourceRequest && isHealthProbe(ctx.method, ctx.path))) {
      if (info.verb === 'watch') return next();
      const done = control.runExempt(c);
      const leave = inflight.enter(MUTATING_VERBS.has(info.verb));
      const running = slices.enter(flow);
      return untilResponded(ctx, next, () => {
        running();
        leave();
        done();
      });
    }
    const count = info.verb === 'list' && deps.objectCount ? deps.objectCount(info.apiGroup, info.resource) : undefined;
    const seats = estimateSeats(info, count === undefined ? undefined : requestQuery(ctx), count);
    let ticket: Ticket | Promise<Ticket>;
    try {
      // A response that closes while the request still waits (the client went away, or the
      // request deadline answered 504) takes the request out of its queue.
      ticket = control.admit(c, seats, (cancel) => {
        ctx.res.once('close', cancel);
        return () => ctx.res.off('close', cancel);
      });
    } catch (e) {
      throw rejection(e);
    }
    if (ticket instanceof Promise) {
      return ticket.then(
        (t) => admitted(ctx, next, info, flow, t),
        (e: unknown) => {
          throw rejection(e);
        },
      );
    }
    return admitted(ctx, next, info, flow, ticket);
  };
}

/** A request flow control turned away is 429; anything else is passed on as it is. */
function rejection(e: unknown): unknown {
  return e instanceof RejectedRequest ? newTooManyRequests('Too many requests, please try again later.', 1) : e;
}

/** Flows kept per schema entry before the cache starts again (ByUser schemas: one per user). */
const OWNER_CACHE_LIMIT = 4096;

/**
 * Runs the rest of the chain and then `release`: when the handler answered with a stream (a large
 * list, written in slices after the handler returned), only once the response is over, so the
 * request's seats are held while its body is made and written, as upstream's handlers write it.
 */
async function untilResponded(ctx: Context, next: Next, release: () => void): Promise<void> {
  try {
    await next();
  } catch (e) {
    release();
    throw e;
  }
  const res = ctx.res;
  if (ctx.body instanceof Stream && !res.writableFinished && !res.destroyed) {
    res.once('close', release);
  } else {
    release();
  }
}
