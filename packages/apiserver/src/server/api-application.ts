import Koa from 'koa';
import type { Context } from 'koa';
import { Readable, Stream, pipeline } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** Status codes whose answers carry no body (Koa's `statuses.empty`). */
const EMPTY_BODY_CODES = new Set([204, 205, 304]);

/** Koa's stream test: a Node stream, or an object with a stream's members. */
function isStream(body: unknown): body is Readable {
  if (body instanceof Stream) return true;
  if (body === null || typeof body !== 'object') return false;
  const s = body as Record<string, unknown>;
  return (
    !!s['readable'] &&
    typeof s['pipe'] === 'function' &&
    typeof s['read'] === 'function' &&
    typeof s['readable'] === 'boolean' &&
    typeof s['readableObjectMode'] === 'boolean' &&
    typeof s['destroy'] === 'function' &&
    typeof s['destroyed'] === 'boolean'
  );
}

/**
 * Writes the context's answer once the middleware chain has finished: what Koa's own response step
 * writes for every body (nothing after `ctx.respond = false`, no body for 204/205/304 and HEAD,
 * the status text for no body, bytes and strings as they are, streams piped, anything else as
 * JSON), kept here because Koa does not export it.
 */
export function respond(ctx: Context): void {
  if (ctx.respond === false) return;
  const res = ctx.res;
  if (!ctx.writable) {
    res.end();
    return;
  }
  let body: unknown = ctx.body;
  const code = ctx.status;
  if (EMPTY_BODY_CODES.has(code)) {
    ctx.body = null;
    res.end();
    return;
  }
  if (ctx.method === 'HEAD') {
    if (!res.headersSent && !(ctx.response as unknown as { has(field: string): boolean }).has('Content-Length')) {
      const { length } = ctx.response;
      if (Number.isInteger(length)) ctx.length = length;
    }
    res.end();
    return;
  }
  if (body === null || body === undefined) {
    if ((ctx.response as { _explicitNullBody?: boolean })._explicitNullBody) {
      ctx.response.remove('Content-Type');
      ctx.response.remove('Transfer-Encoding');
      ctx.length = 0;
      res.end();
      return;
    }
    const text = ctx.req.httpVersionMajor >= 2 ? String(code) : ctx.message || String(code);
    if (!res.headersSent) {
      ctx.type = 'text';
      ctx.length = Buffer.byteLength(text);
    }
    res.end(text);
    return;
  }
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    res.end(body);
    return;
  }
  let stream: Readable | undefined;
  if (body instanceof Blob) stream = Readable.from(body.stream() as unknown as AsyncIterable<unknown>);
  else if (body instanceof ReadableStream) stream = Readable.from(body as unknown as WebReadableStream);
  else if (body instanceof Response) stream = Readable.from((body.body ?? '') as unknown as AsyncIterable<unknown>);
  else if (isStream(body)) stream = body;
  if (stream) {
    pipeline(stream, res, (err) => {
      if (err && ctx.app.listenerCount('error')) ctx.onerror(err);
    });
    return;
  }
  body = JSON.stringify(body);
  if (!res.headersSent) ctx.length = Buffer.byteLength(body as string);
  res.end(body as string);
}

/**
 * The Koa application of the API server. It differs from Koa's in one step: Koa also attaches
 * `on-finished` to every response (an AsyncResource, listeners on the response and its socket
 * through `ee-first`, removed again at the end) only to hand a failing socket's error to
 * `ctx.onerror`, which for an answer that can no longer be written does nothing but emit the
 * application's 'error' event. This server is silent and listens to no such event, so that
 * bookkeeping (several % of a cached GET's CPU) is left out; a failure of the chain still goes
 * to `ctx.onerror` as in Koa, and the answer is written by `respond` above, as Koa writes it.
 */
export class ApiApplication<StateT> extends Koa<StateT> {
  // Koa's own (untyped) per-request step; `callback()` calls it with the composed middleware.
  handleRequest(ctx: Context, fnMiddleware: (ctx: Context) => Promise<void>): Promise<void> {
    ctx.res.statusCode = 404;
    // One promise for both outcomes; a failure of `respond` itself also goes to `ctx.onerror`, as in Koa.
    return fnMiddleware(ctx).then(
      () => {
        try {
          respond(ctx);
        } catch (err) {
          ctx.onerror(err as Error);
        }
      },
      (err: unknown) => ctx.onerror(err as Error),
    );
  }
}
