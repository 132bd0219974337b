import { createServer as createHttpServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createServer as createHttpsServer } from 'node:https';
import { serveUpgrade } from './upgrade-requests.js';
import { constants as h2constants, createSecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { EventEmitter } from 'node:events';
import { closeSync } from 'node:fs';
import { balanceConnections, type ConnectionShare } from './connection-balance.js';

/** What serves the API: Koa's callback takes either protocol's request and response. */
export type RequestListener = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

function statusBody(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

/**
 * A complete HTTP/1.1 answer with a Status body, written straight to a socket that Node's parser
 * gave up on (or that asked for CONNECT), then closed: the client reads an answer, never silence.
 */
function rawStatusAnswer(code: number, reason: string, message: string): string {
  const body = statusBody(code, reason, message);
  return (
    `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? 'Error'}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** A parser error as Node reports it: the chunk it was parsing and where in it the error is. */
type ParserError = Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number };

/**
 * The line of the request the parser stopped in, line ending included (as far as it arrived).
 */
function errorLine(err: ParserError): string {
  const raw = err.rawPacket;
  if (!raw) return '';
  // llhttp counts the byte it failed on as parsed when that byte is a line's LF.
  const at = Math.min(err.bytesParsed ?? 0, raw.length);
  const start = at >= 2 ? raw.lastIndexOf(0x0a, at - 2) + 1 : 0;
  const nl = raw.indexOf(0x0a, start);
  return raw.subarray(start, nl < 0 ? raw.length : nl + 1).toString('latin1');
}

/**
 * llhttp's HPE_INVALID_VERSION as Go's server tells the cases apart: a well-formed
 * `HTTP/<digit>.<digit>` it does not serve is 505, anything else in the version's place (a
 * garbage version, or a request line ended by a bare LF, which llhttp refuses) is 400.
 */
function invalidVersionAnswer(err: ParserError): string {
  const line = errorLine(err);
  if (line.endsWith('\n') && !line.endsWith('\r\n')) return rawStatusAnswer(400, 'BadRequest', 'malformed HTTP request: a line ends in a bare LF');
  const version = /^\S+ \S+ ([^\r\n]*)/.exec(line)?.[1] ?? '';
  if (/^HTTP\/[0-9]\.[0-9]$/.test(version)) return rawStatusAnswer(505, '', 'unsupported protocol version');
  return rawStatusAnswer(400, 'BadRequest', `malformed HTTP version ${JSON.stringify(version)}`);
}

/** What Node's HTTP/1 parser errors mean to the client (llhttp error codes). */
function parserErrorAnswer(err: ParserError): string {
  switch (err.code) {
    case 'HPE_INVALID_METHOD':
      return rawStatusAnswer(405, 'MethodNotAllowed', 'the request method is not one this server allows');
    case 'HPE_INVALID_VERSION':
      return invalidVersionAnswer(err);
    case 'HPE_HEADER_OVERFLOW':
      return rawStatusAnswer(431, 'BadRequest', 'request header fields too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawStatusAnswer(408, 'Timeout', 'the request was not received in time');
    default:
      return rawStatusAnswer(400, 'BadRequest', `malformed HTTP request${err.code ? ` (${err.code})` : ''}`);
  }
}

function isHttp2(socket: Socket): boolean {
  return (socket as Socket & { alpnProtocol?: string | false }).alpnProtocol === 'h2';
}

/** What the batcher needs of a response: its `end` method, which it replaces until the flush. */
export interface EndableResponse {
  end: (...args: never[]) => unknown;
}

/**
 * Holds back the `end()` of HTTP/1.1 responses finished during one turn of the event loop and
 * ends them together when the turn's I/O callbacks are done (setImmediate).
 *
 * A turn often parses requests from many connections. Answered one by one, each response's
 * socket write lands between the next requests' processing, and a client that went idle after
 * its previous answer is woken once per response. On a virtual machine that wake-up (an
 * inter-processor interrupt and a VM exit) is paid inside the writing syscall: on the 2-core bench
 * machine a cached GET's TLS write took ~54 µs on average when each answer left at once, against
 * ~12 µs for answers that left in bursts, and the replica's CPU per cached GET fell by a third
 * with this batching. A response waits at most for the rest of its turn's processing.
 *
 * Only `end` is deferred, in call order; writes before it (streamed lists, watch chunks) go out as
 * Node writes them. A response that is still running at the flush keeps the wrapper, so its end
 * joins the turn it comes in.
 */
export class ResponseEndBatcher {
  private held: HeldResponse[] = [];
  private readonly flush = (): void => {
    const held = this.held;
    this.held = [];
    for (const res of held) {
      const end = res[ORIGINAL_END]!;
      const calls = res[HELD_CALLS]!;
      res.end = end;
      res[HELD_CALLS] = undefined;
      for (const a of calls) (end as (...a: unknown[]) => unknown).apply(res, a);
    }
  };
  /** The `end` every held response has until its flush: one function for all, not closures per response. */
  private readonly heldEnd: (this: HeldResponse, ...args: unknown[]) => unknown;

  constructor(private readonly defer: (run: () => void) => void = (run) => void setImmediate(run)) {
    const batcher = this;
    this.heldEnd = function (this: HeldResponse, ...args: unknown[]): unknown {
      const calls = this[HELD_CALLS];
      if (calls) {
        calls.push(args);
        return this;
      }
      this[HELD_CALLS] = [args];
      batcher.held.push(this);
      if (batcher.held.length === 1) batcher.defer(batcher.flush);
      return this;
    };
  }

  /** Wraps `res.end` so that its calls take effect at the end of the turn they are made in. */
  hold(res: EndableResponse): void {
    const r = res as HeldResponse;
    // Held already: its end is deferred once, not twice.
    if (r[ORIGINAL_END] !== undefined) return;
    r[ORIGINAL_END] = res.end;
    res.end = this.heldEnd as EndableResponse['end'];
  }
}

const ORIGINAL_END = Symbol('originalEnd');
const HELD_CALLS = Symbol('heldEndCalls');
/** A response whose `end` is held: its own `end` and the calls made to it this turn. */
type HeldResponse = EndableResponse & { [ORIGINAL_END]?: EndableResponse['end']; [HELD_CALLS]?: unknown[][] };

/** Go's ReadHeaderTimeout as upstream sets it: an HTTP/1.1 request's headers must arrive within 32 s. */
export const READ_HEADER_TIMEOUT_MS = 32_000;
/** How often Node checks HTTP/1.1 connections against the headers timeout. */
const HEADERS_CHECK_MS = 2_000;
/** Upstream's HTTP/2 IdleTimeout: a connection with no open stream is closed (GOAWAY) after 90 s. */
export const HTTP2_IDLE_TIMEOUT_MS = 90_000;
/** How long the body of an HTTP/1.1 request answered before its body was read may still arrive. */
export const UNREAD_BODY_MS = 5_000;
/** After our side of a connection is closed, how long the client's last bytes are still read (Go waits 500 ms). */
const LINGER_MS = 1_000;

/**
 * A request answered before its body was read or had arrived (401, 403, 413, 429, a deadline's
 * 504): the body is not wanted, and the client must read the answer rather than a reset.
 *
 * HTTP/2: the stream is closed with RST_STREAM NO_ERROR right after the answer, as Go's server
 * does; the client keeps the answer, stops sending and gets its stream slot back at once.
 * HTTP/1.1: the rest is read and discarded, so the connection stays usable when it arrives; a
 * body that has not arrived within `unreadBodyMs` gets the connection closed: our side first,
 * then, a second later, the socket (closing it at once would reset a client that is still writing
 * before it read the answer).
 */
function stopUnreadBody(req: IncomingMessage | Http2ServerRequest, unreadBodyMs: number): void {
  // A client that gives up while its body is discarded is no error of the server's.
  req.on('error', () => undefined);
  if ('stream' in req) {
    const stream = req.stream;
    setImmediate(() => {
      if (!stream.closed && !stream.destroyed) stream.close(h2constants.NGHTTP2_NO_ERROR);
    });
    return;
  }
  req.resume();
  const socket = req.socket;
  if (socket.destroyed) return;
  const cut = setTimeout(() => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }, unreadBodyMs);
  cut.unref();
  const clear = (): void => clearTimeout(cut);
  req.once('end', clear);
  socket.once('close', clear);
}

/** Whether an HTTP/2 request's body (if any) has been received in full and read. */
function bodyDone(req: Http2ServerRequest): boolean {
  const stream = req.stream;
  return stream.endAfterHeaders || stream.readableEnded || stream.closed || stream.destroyed;
}

/**
 * Closes an HTTP/2 connection that has had no open stream for `idleMs`, as Go's IdleTimeout:
 * a quiet watch keeps its connection, a connection left open with nothing on it does not.
 */
function closeWhenIdle(session: ServerHttp2Session, idleMs: number): void {
  let open = 0;
  let idle: NodeJS.Timeout | undefined;
  const arm = (): void => {
    idle = setTimeout(() => session.close(), idleMs);
    idle.unref();
  };
  arm();
  session.on('stream', (stream) => {
    open++;
    clearTimeout(idle);
    stream.once('close', () => {
      if (--open === 0 && !session.closed && !session.destroyed) arm();
    });
  });
  session.once('close', () => clearTimeout(idle));
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
  /** Idle time (no open stream) after which an HTTP/2 connection is closed; default 90 s. */
  http2IdleTimeoutMs?: number;
  /** Time an HTTP/1.1 request's headers may take to arrive; default 32 s. */
  headersTimeoutMs?: number;
  /** Time the unwanted body of an answered HTTP/1.1 request may take; default 5 s. */
  unreadBodyMs?: number;
  /** A worker thread's part in spreading connections over the replica's threads (connection-balance.ts). */
  balance?: ConnectionShare;
}

/** A listening server, whatever the protocol. */
export interface Listener {
  /** Binds `host:port`, or serves on `fd`, a listening socket another thread bound (see replica-threads.ts). */
  listen(port: number, host: string, fd?: number): Promise<AddressInfo>;
  /** Counts requests of both protocols (the memory reclaimer's idea of "busy"). */
  onRequest(fn: () => void): void;
  /** With `balance`: from now on connections are spread (this thread can adopt handed ones). */
  takeConnections(): void;
  /** Serves a connection another thread accepted (descriptor `fd`, closed here when not balancing). */
  adopt(fd: number): void;
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
    // Go bounds the TLS handshake by the server's shortest timeout, ReadHeaderTimeout in
    // upstream's (Node's default is 120 s).
    handshakeTimeout: opts.headersTimeoutMs ?? READ_HEADER_TIMEOUT_MS,
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
  // Node checks the headers timeout every `connectionsCheckingInterval` (30 s by default, which
  // would let a 32 s timeout run to a minute); set before listening, when the check starts.
  const headersTimeout = opts.headersTimeoutMs ?? READ_HEADER_TIMEOUT_MS;
  Object.assign(server, {
    keepAliveTimeout: opts.keepAliveTimeoutMs,
    headersTimeout,
    connectionsCheckingInterval: Math.min(HEADERS_CHECK_MS, Math.max(100, headersTimeout / 4)),
  });
  server.on(opts.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // HTTP/1.x requests Node's parser refuses (unknown methods, bad versions, control characters in
  // headers) and CONNECT requests never reach the handler: without these, Node would answer some
  // with an empty 400 and drop the others without a word.
  server.on('clientError', (err: ParserError, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    socket.end(parserErrorAnswer(err));
  });
  // `Expect: 100-continue`: Node would answer 100 at once, before anything checked the request,
  // and the client would send its body even when the answer is a 401. As Go's server, the 100
  // goes out when the body is read (the body step, after authorization).
  server.on('checkContinue', (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    server.emit('request', req, res);
  });
  // The HTTP/2 server emits its CONNECT streams here too, as a request and a response.
  server.on('connect', (req: IncomingMessage | Http2ServerRequest, socketOrRes: Duplex | Http2ServerResponse) => {
    const message = 'CONNECT is not supported by this server';
    if ('stream' in req) {
      const res = socketOrRes as Http2ServerResponse;
      const body = statusBody(405, 'MethodNotAllowed', message);
      res.writeHead(405, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    (socketOrRes as Duplex).end(rawStatusAnswer(405, 'MethodNotAllowed', message));
  });
  // Protocol switches (HTTP/1.1 only) go through the handler too: see upgrade-requests.ts.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => serveUpgrade(req, socket, head, handler as (req: IncomingMessage, res: ServerResponse) => void));
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    closeWhenIdle(session, opts.http2IdleTimeoutMs ?? HTTP2_IDLE_TIMEOUT_MS);
    session.once('close', () => sessions.delete(session));
  });
  // HTTP/1.1 connections with a request in flight; the others are idle and close at once on stop.
  const busy = new Map<Socket, number>();
  let closing = false;
  // HTTP/2 sessions already gather their streams' frames into one socket write.
  const batcher = new ResponseEndBatcher();
  const unreadBodyMs = opts.unreadBodyMs ?? UNREAD_BODY_MS;
  server.prependListener('request', (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    if (req.httpVersionMajor === 1) return void batcher.hold(res as ServerResponse);
    // An HTTP/2 response emits 'finish' only once its stream is closed: the stream's own
    // 'finish' is the answer's end. (HTTP/1.1: below, when the response closes.)
    if ('stream' in req) {
      req.stream.once('finish', () => {
        if (!bodyDone(req)) stopUnreadBody(req, unreadBodyMs);
      });
    }
  });
  server.on('request', (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    if (req.httpVersionMajor !== 1) return;
    const socket = req.socket as Socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      if (!req.complete) stopUnreadBody(req, unreadBodyMs);
      const left = (busy.get(socket) ?? 1) - 1;
      if (left > 0) return void busy.set(socket, left);
      busy.delete(socket);
      if (closing) socket.destroySoon();
    });
  });

  // Last: it takes over the 'connection' listeners added above and by Node's servers.
  const balanced = opts.balance ? balanceConnections(server, opts.balance) : undefined;
  if (balanced) server.on('stream', (stream: EventEmitter) => balanced.streamOpened(stream));

  return {
    listen(port, host, fd) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(fd === undefined ? { port, host } : { fd }, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    onRequest(fn) {
      server.on('request', fn);
    },
    takeConnections() {
      balanced?.open();
    },
    adopt(fd) {
      if (balanced) balanced.adopt(fd);
      else closeSync(fd);
    },
    close(graceMs) {
      balanced?.close();
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
