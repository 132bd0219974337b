import type { Middleware } from 'koa';
import { parseRequestInfo } from '../request/request-info.js';
import type { RequestState } from './state.js';

/**
 * Records what the request means (verb, group, resource, namespace, name) on ctx.state, and its
 * query parameters, parsed once for every later step (`requestQuery`). Not an async function:
 * it does nothing after the rest of the chain, so it hands on the chain's own promise.
 */
export function withRequestInfo(): Middleware<RequestState> {
  return (ctx, next) => {
    const query = new URLSearchParams(ctx.querystring);
    ctx.state.query = query;
    ctx.state.requestInfo = parseRequestInfo(ctx.method, ctx.path, query);
    ctx.state.warnings = [];
    return next();
  };
}
