import type { Middleware } from 'koa';
import { newBadRequest, newTimeout, parseGoDuration } from '@cluster/apimachinery';
import type { RequestState } from './state.js';
import { requestQuery } from './request-query.js';
import { DeadlineTimers, type Deadline } from './deadline-timers.js';

/** Upstream's text for a `timeout` parameter that is not a Go duration. */
const INVALID_TIMEOUT = 'invalid timeout specified in the request URL';
/** Upstream's message (after "Timeout: ") when a request outlives its deadline. */
const DEADLINE_EXCEEDED = 'request did not complete within requested timeout - context deadline exceeded';

/**
 * How long a request may take, in ms (0: no limit), from its `timeout` query parameter and the
 * server's --request-timeout, as upstream decides it: a positive value shorter than the server's
 * limit wins; 0, a negative value or one beyond the limit leaves the server's limit. Throws 400
 * when the parameter is not a Go duration.
 */
export function requestDeadlineMs(timeoutParam: string | null, serverTimeoutMs: number): number {
  if (timeoutParam === null || timeoutParam === '') return serverTimeoutMs;
  let requested: number;
  try {
    requested = parseGoDuration(timeoutParam);
  } catch (e) {
    throw newBadRequest(`${INVALID_TIMEOUT} - ${(e as Error).message}`);
  }
  if (requested > 0 && (serverTimeoutMs <= 0 || requested < serverTimeoutMs)) return requested;
  return serverTimeoutMs;
}

/**
 * Upstream's request deadline for requests that are not long-running (everything but watches):
 * a bad `timeout` parameter is a 400 before anything else runs, and a request that has not
 * finished by its deadline is answered 504 Timeout. The handler is not interrupted (as upstream,
 * a write may still complete after the 504; the client learns its outcome by reading again).
 */
export function withRequestDeadline(serverTimeoutMs: number): Middleware<RequestState> {
  // The server's own length, which nearly every request has, shares one timer (DeadlineTimers).
  const shared = serverTimeoutMs > 0 ? new DeadlineTimers(serverTimeoutMs) : undefined;
  // One promise per request, settled by the rest of the chain or by the deadline, whichever comes
  // first (what a race of the two would give, without its extra promises and closures).
  return (ctx, next) => {
    if (ctx.state.requestInfo.verb === 'watch') return next();
    const timeoutMs = requestDeadlineMs(requestQuery(ctx).get('timeout'), serverTimeoutMs);
    if (timeoutMs <= 0) return next();
    return new Promise<void>((resolve, reject) => {
      const expire = (): void => reject(newTimeout(DEADLINE_EXCEEDED, 0));
      let deadline: Deadline;
      if (shared && timeoutMs === serverTimeoutMs) {
        deadline = shared.start(expire);
      } else {
        const timer = setTimeout(expire, timeoutMs);
        deadline = { stop: () => clearTimeout(timer) };
      }
      next().then(
        () => {
          deadline.stop();
          resolve();
        },
        (e: unknown) => {
          deadline.stop();
          reject(e);
        },
      );
    });
  };
}
