import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';

/** What serves the API: Koa's callback takes either protocol's request and response. */
export type RequestListener = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

function isHttp2(socket: Socket): boolean {
  return (socket as Socket & { alpnProtocol?: string | false }).alpnProtocol === 'h2';
}

/** How the replica listens. */
export interface ListenerOptions {
  /** Certificate and key; none means plain HTTP (development only). */
  tls?: { cert: string; key: string; clientCa?: string };
  /** Offer HTTP/2 by ALPN next to HTTP/1.1 (upstream serves both; client-go prefers h2). */
  http2: boolean;
  /** SETTINGS_MAX_CONCURRENT_STREAMS given to HTTP/2 clients. */
  http2MaxStreams: number;
  /** Idle time after which an HTTP/1.1 keep-alive connection is closed. */
  keepAliveTimeoutMs: number;
}

/** A listening server, whatever the protocol. */
export interface Listener {
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Counts requests of both protocols (the memory reclaimer's idea of "busy"). */
  onRequest(fn: () => void): void;
  /**
   * Stops accepting, lets requests in flight finish (HTTP/2 clients get GOAWAY, idle HTTP/1.1
   * connections close) and ends what is still open after `graceMs` (watches run until then).
   */
  close(graceMs: number): Promise<void>;
}

/**
 * HTTP/2 with HTTP/1.1 fallback over TLS, as upstream serves it (`--disable-http2-serving` turns
 * h2 off). With h2, a client multiplexes its requests and watches over one connection, so a
 * server with many watchers writes one socket per client instead of one per watch.
 */
export function createListener(opts: ListenerOptions, handler: RequestListener): Listener {
  const sockets = new Set<Socket>();
  const sessions = new Set<ServerHttp2Session>();
  const tlsOptions = opts.tls && {
    cert: opts.tls.cert,
    key: opts.tls.key,
    ca: opts.tls.clientCa,
    requestCert: !!opts.tls.clientCa,
    rejectUnauthorized: false,
  };
  const server = !tlsOptions
    ? createHttpServer(handler)
    : opts.http2
      ? // noDelay as Node's HTTP servers default to (the HTTP/2 server does not): with Nagle on, the
        // tail of a response written in several pieces waits for the client's delayed ACK.
        createSecureServer({ ...tlsOptions, noDelay: true, allowHTTP1: true, settings: { maxConcurrentStreams: opts.http2MaxStreams } }, handler)
      : createHttpsServer(tlsOptions, handler);
  // HTTP/1.1 connections of the HTTP/2 server are served by Node's HTTP/1 code, which reads
  // these settings from the server object too.
  Object.assign(server, { keepAliveTimeout: opts.keepAliveTimeoutMs });
  server.on(opts.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // HTTP/1.1 connections with a request in flight; the others are idle and close at once on stop.
  const busy = new Map<Socket, number>();
  let closing = false;
  server.on('request', (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    if (req.httpVersionMajor !== 1) return;
    const socket = req.socket as Socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      if (left > 0) return void busy.set(socket, left);
      busy.delete(socket);
      if (closing) socket.destroySoon();
    });
  });

  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    onRequest(fn) {
      server.on('request', fn);
    },
    close(graceMs) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          for (const session of sessions) session.destroy();
          for (const socket of sockets) socket.destroy();
        }, graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        closing = true;
        for (const session of sessions) session.close();
        for (const socket of sockets) if (!busy.has(socket) && !isHttp2(socket)) socket.destroySoon();
      });
    },
  };
}
