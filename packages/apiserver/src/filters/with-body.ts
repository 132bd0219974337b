import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { newBadRequest, newRequestEntityTooLarge } from '@cluster/apimachinery';
import { firstInvalidUtf8 } from '../request/utf8.js';
import type { RequestState } from './state.js';

/** Upstream's request body limit: 3 MiB. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * Reads the request body (for methods that carry one) into ctx.state.body, refusing more than
 * maxBytes with 413 before buffering it all, and a text body that is not UTF-8 with 400. It runs
 * after authorization: nothing before it reads a body.
 */
export function withBody(maxBytes = MAX_BODY_BYTES): Middleware<RequestState> {
  // Not an async function: a request without a body (reads) goes on at once, on the chain's own promise.
  return (ctx, next) => {
    const m = ctx.method;
    return m === 'POST' || m === 'PUT' || m === 'PATCH' || m === 'DELETE' ? withRequestBody(ctx, next) : next();
  };

  async function withRequestBody(ctx: Parameters<Middleware<RequestState>>[0], next: () => Promise<unknown>): Promise<unknown> {
    {
      const declared = Number(ctx.get('Content-Length') || '0');
      if (declared > maxBytes) tooLarge(ctx, maxBytes);
      // A client that waits for `100 Continue` before sending its body gets it now that the
      // request is authorized (the listener leaves it to this step, as Go's server does).
      if (/^100-continue$/i.test(ctx.get('Expect')) && !ctx.res.headersSent) ctx.res.writeContinue();
      const body = await readBody(ctx.req, maxBytes);
      if (body === undefined) tooLarge(ctx, maxBytes);
      // Every text body (JSON, YAML, patches) is UTF-8; decoding would turn a bad byte into
      // U+FFFD and store text the client never sent. Protobuf bodies are binary.
      if (body.length > 0 && !ctx.get('Content-Type').includes('protobuf') && !isUtf8(body)) {
        throw newBadRequest(`the request body is not valid UTF-8: invalid byte at offset ${firstInvalidUtf8(body)}`);
      }
      ctx.state.body = body;
    }
    return next();
  }
}

/**
 * Answers 413 so that the client reads it instead of a broken pipe: the rest of the body is read
 * and discarded (closing the connection while the client still writes would reset it under the
 * client's feet, before it reads the answer). How long that may go on is the listener's business,
 * as for every request answered before its body was read.
 */
function tooLarge(ctx: Parameters<Middleware<RequestState>>[0], maxBytes: number): never {
  const req = ctx.req;
  // A client that gives up while its body is discarded is no error of the server's.
  req.on('error', () => undefined);
  req.resume();
  throw newRequestEntityTooLarge(`limit is ${maxBytes}`);
}

/**
 * The whole body, or undefined as soon as it passes maxBytes (the rest is left unread). Rejects
 * when the request goes away first: the client left, or the listener stopped a body that did not
 * arrive before the request's deadline was answered, so the request's in-flight slot is given back.
 */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > maxBytes) {
        cleanup();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(e);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error('the request was closed before its body was read'));
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}
