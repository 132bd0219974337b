import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Middleware } from 'koa';
import { newServiceUnavailable, newTimeout } from '@cluster/apimachinery';
import type { RequestState } from '../filters/state.js';
import { requestDeadlineMs } from '../filters/with-request-deadline.js';
import { requestQuery } from '../filters/request-query.js';
import { isAvailable, type ApiService } from '../resources/apiregistration/types.js';
import type { ApiServiceIndex } from './apiservice-index.js';
import { proxyRequestHeaders, proxyResponseHeaders } from './proxy-headers.js';
import type { ProxyRequest, ProxyResponse, ProxyTarget, ProxyTransport } from './proxy-transport.js';

/** Upstream's message (after "Timeout: ") when a request outlives its deadline. */
const DEADLINE_EXCEEDED = 'request did not complete within requested timeout - context deadline exceeded';

/** Methods a request may be sent again with when its kept-alive connection was found closed. */
const REPLAYABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the caller sent a body (a length above 0 or a chunked one). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Whether `req` went out on an HTTP/1.1 connection kept alive from an earlier request. */
function onReusedConnection(req: ProxyRequest | undefined): boolean {
  return (req as { reusedSocket?: boolean } | undefined)?.reusedSocket === true;
}

/** `/apis/<group>/<version>` and anything under it. */
const GROUP_VERSION_PATH = /^\/apis\/([^/]+)\/([^/]+)(?:\/|$)/;

export interface ProxyHandlerOptions {
  index: ApiServiceIndex;
  transport: ProxyTransport;
  /** --request-timeout in ms (0: none): how long a request other than a watch may wait for the extension. */
  requestTimeoutMs: number;
  /** This server's --requestheader-* names: dropped from forwarded requests like X-Remote-*. */
  stripHeaders?: { names: readonly string[]; prefixes: readonly string[] };
  log?: (msg: string, err?: unknown) => void;
}

/**
 * The aggregator's proxy (upstream's proxyHandler), right after authorization: a request under
 * `/apis/<group>/<version>` of an APIService with a service is sent to the extension as this
 * server (the proxy client certificate) on behalf of the authenticated caller (X-Remote-*
 * headers), its body streamed through and the answer streamed back, watches included. An
 * APIService that is not Available, a Service without endpoints or an extension that cannot be
 * reached is a 503 Status; an extension that does not answer in time a 504; nothing an extension
 * sends can make this server answer otherwise or hold other requests. A GET, HEAD or OPTIONS
 * without a body whose kept-alive HTTP/1.1 connection turns out closed before any answer is sent
 * once more on a new connection (as Go's transport does for upstream's). Other paths go on.
 */
export function withAggregatorProxy(opts: ProxyHandlerOptions): Middleware<RequestState> {
  const log = opts.log ?? (() => {});
  // Not an async function: a request for no extension's group version (nearly all) goes on at once.
  return (ctx, next) => {
    // The path as the request-info step read it (Koa's getter parses the URL's cache again).
    const path = ctx.state.requestInfo?.path ?? ctx.path;
    if (!path.startsWith('/apis/')) return next();
    const m = GROUP_VERSION_PATH.exec(path);
    const svc = m ? opts.index.lookup(m[1]!, m[2]!) : undefined;
    return svc ? proxy(ctx, svc) : next();
  };

  async function proxy(ctx: Parameters<Middleware<RequestState>>[0], svc: ApiService): Promise<void> {
    if (!isAvailable(svc)) throw unavailable();
    let target: ProxyTarget;
    try {
      target = await opts.transport.target(svc);
    } catch (err) {
      log(`APIService ${svc.metadata.name ?? ''}: no endpoint`, err);
      throw unavailable();
    }
    const watch = ctx.state.requestInfo.verb === 'watch';
    const timeoutMs = watch ? 0 : requestDeadlineMs(requestQuery(ctx).get('timeout'), opts.requestTimeoutMs);
    const headers = proxyRequestHeaders(ctx.req.headers, {
      user: ctx.state.user!,
      host: `${target.endpoint.serverName}:${target.options.port}`,
      stripNames: opts.stripHeaders?.names,
      stripPrefixes: opts.stripHeaders?.prefixes,
    });
    // A protocol switch (exec-style) the listener handed over with its connection: asked of the
    // extension too (over HTTP/1.1), and the two connections joined once it agrees.
    const upgrade = (ctx.req as { upgrade?: boolean }).upgrade === true && typeof ctx.req.headers.upgrade === 'string';
    if (upgrade) {
      headers['connection'] = 'Upgrade';
      headers['upgrade'] = ctx.req.headers.upgrade;
    }
    const deadlineAt = timeoutMs > 0 ? Date.now() + timeoutMs : Infinity;
    // Safe to send twice: a method without side effects and no body (upstream's isReplayable).
    const replayable = !upgrade && REPLAYABLE_METHODS.has(ctx.method) && !hasBody(ctx.req);
    const gone = new AbortController();
    await new Promise<void>((resolve, reject) => {
      let answered = false;
      let timer: NodeJS.Timeout | undefined;
      let upstream: ProxyRequest | undefined;
      const finish = (err?: Error) => {
        clearTimeout(timer);
        if (answered) return;
        answered = true;
        if (err) reject(err);
        else resolve();
      };
      const onResponse = (res: ProxyResponse) => {
        // Too late (the deadline filter may be answering 504 now), or answered already.
        if (answered || ctx.res.headersSent || Date.now() >= deadlineAt) {
          res.destroy();
          finish(newTimeout(DEADLINE_EXCEEDED, 0));
          return;
        }
        // From here the answer is the extension's: Koa must not write one.
        ctx.respond = false;
        answered = true;
        resolve();
        const out = ctx.res;
        out.writeHead(res.statusCode ?? 502, proxyResponseHeaders(res.headers));
        if (typeof (out as { flushHeaders?: () => void }).flushHeaders === 'function') out.flushHeaders();
        res.on('data', (chunk: Buffer) => {
          if (!out.write(chunk)) {
            res.pause();
            out.once('drain', () => res.resume());
          }
        });
        res.on('end', () => {
          clearTimeout(timer);
          out.end();
        });
        // The extension reset or broke off mid-answer: the client sees its stream cut, as upstream's.
        res.on('error', () => out.destroy());
        res.on('aborted', () => out.destroy());
      };
      let retried = false;
      const onError = (err: unknown, req?: ProxyRequest) => {
        // A kept-alive connection the extension closed as this request arrived, nothing answered:
        // sent once more on a new connection; anything else is the extension's failure.
        if (!answered && !gone.signal.aborted && replayable && !retried && onReusedConnection(req)) {
          retried = true;
          log(`APIService ${svc.metadata.name ?? ''}: kept-alive connection closed; sending again`, err);
          start();
          return;
        }
        if (!answered) log(`APIService ${svc.metadata.name ?? ''}: proxy error`, err);
        finish(unavailable(svc));
        if (ctx.respond === false && !ctx.res.writableEnded) ctx.res.destroy();
      };
      if (timeoutMs > 0) {
        // The deadline bounds the whole answer: before the extension's headers it is a 504;
        // an answer still streaming then is cut (upstream's timeout filter does the same).
        timer = setTimeout(() => {
          if (ctx.respond === false && !ctx.res.writableEnded) ctx.res.destroy();
          finish(newTimeout(DEADLINE_EXCEEDED, 0));
          gone.abort();
          upstream?.destroy();
        }, timeoutMs);
      }
      // The caller leaving ends the extension's request (a watch, a slow list), or its connecting;
      // so does an answer this server wrote instead (the deadline filter's 504): only the
      // extension's own answer, streamed to its end, leaves nothing to end.
      ctx.res.once('close', () => {
        clearTimeout(timer);
        if (ctx.respond === false && ctx.res.writableFinished) return;
        gone.abort();
        upstream?.destroy();
        finish(unavailable(svc));
      });
      const send = (req: ProxyRequest) => {
        if (answered) {
          req.destroy();
          return;
        }
        upstream = req;
        req.on('error', (err) => onError(err, req));
        ctx.req.on('error', () => {
          gone.abort();
          req.destroy();
        });
        // Without a body there is nothing to stream (and a second attempt has nothing left to pipe).
        if (upgrade || replayable) req.end();
        else ctx.req.pipe(req);
      };
      const start = () => {
        opts.transport.request(target, ctx.method, ctx.req.url ?? ctx.url, headers, onResponse, { signal: gone.signal }).then(send, (err) => onError(err));
      };
      if (upgrade) {
        // A protocol switch (exec-style) is HTTP/1.1 whatever the extension offers.
        const req = opts.transport.http1Request(target, ctx.method, ctx.req.url ?? ctx.url, headers, onResponse);
        req.on('upgrade', (res: IncomingMessage, upSocket: Duplex, upHead: Buffer) => {
          clearTimeout(timer);
          const client = ctx.req.socket as Duplex;
          if (answered || ctx.res.headersSent) {
            upSocket.destroy();
            return;
          }
          ctx.respond = false;
          answered = true;
          resolve();
          (ctx.res as ServerResponse).detachSocket(client as Socket);
          joinUpgraded(client, upSocket, res, upHead);
        });
        send(req);
      } else {
        start();
      }
    });
  }
}

/**
 * Joins a client connection and an extension's after the extension answered 101: the client gets
 * the extension's status line and headers as sent, then bytes flow both ways until either side
 * closes; an error on one side closes both.
 */
function joinUpgraded(client: Duplex, upstream: Duplex, res: IncomingMessage, head: Buffer): void {
  const lines = [`HTTP/1.1 ${res.statusCode ?? 101} ${res.statusMessage ?? 'Switching Protocols'}`];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
  client.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (head.length > 0) client.write(head);
  const closeBoth = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', closeBoth);
  upstream.on('error', closeBoth);
  client.on('close', closeBoth);
  upstream.on('close', closeBoth);
  client.pipe(upstream);
  upstream.pipe(client);
}

/** Upstream's answer for an APIService it cannot reach: 503 "service unavailable". */
function unavailable(_svc?: ApiService) {
  return newServiceUnavailable('service unavailable');
}
