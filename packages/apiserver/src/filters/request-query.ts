import type { ParameterizedContext } from 'koa';
import type { RequestState } from './state.js';

/**
 * The request's query parameters: the ones the request-info step parsed once for every later
 * step (Koa's `ctx.URL` builds a WHATWG URL per request, which every step reading a parameter
 * paid for), or, before that step or without it (unit tests), the URL's own.
 */
export function requestQuery(ctx: ParameterizedContext<RequestState>): URLSearchParams {
  return ctx.state.query ?? ctx.URL.searchParams;
}
