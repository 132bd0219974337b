import type { Middleware } from 'koa';
import { parseRequestInfo } from '../request/request-info.js';
import type { RequestState } from './state.js';

/** Records what the request means (verb, group, resource, namespace, name) on ctx.state. */
export function withRequestInfo(): Middleware<RequestState> {
  return async (ctx, next) => {
    ctx.state.requestInfo = parseRequestInfo(ctx.method, ctx.path, new URLSearchParams(ctx.querystring));
    ctx.state.warnings = [];
    await next();
  };
}
