import type { Middleware } from 'koa';
import { newRequestEntityTooLarge } from '@cluster/apimachinery';
import type { RequestState } from './state.js';

/** Upstream's request body limit: 3 MiB. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * Reads the request body (for methods that carry one) into ctx.state.body, refusing more than
 * maxBytes with 413 before buffering it all.
 */
export function withBody(maxBytes = MAX_BODY_BYTES): Middleware<RequestState> {
  return async (ctx, next) => {
    const m = ctx.method;
    if (m === 'POST' || m === 'PUT' || m === 'PATCH' || m === 'DELETE') {
      const declared = Number(ctx.get('Content-Length') || '0');
      if (declared > maxBytes) throw newRequestEntityTooLarge(`limit is ${maxBytes}`);
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of ctx.req) {
        const buf = chunk as Buffer;
        total += buf.length;
        if (total > maxBytes) {
          ctx.req.resume();
          throw newRequestEntityTooLarge(`limit is ${maxBytes}`);
        }
        chunks.push(buf);
      }
      ctx.state.body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    }
    await next();
  };
}
