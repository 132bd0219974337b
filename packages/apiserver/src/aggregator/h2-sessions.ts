import { connect as h2Connect, type ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';

/** How long a TLS handshake with an extension may take (upstream's dialer waits 30 s). */
const HANDSHAKE_TIMEOUT_MS = 30_000;
/** An HTTP/2 session with no open stream is closed after this long (Go's idle connection timeout). */
const IDLE_TIMEOUT_MS = 90_000;

/** One endpoint's state: a live HTTP/2 session, or the knowledge that it speaks HTTP/1.1 only. */
interface EndpointState {
  session?: ClientHttp2Session;
  /** Open streams on `session`: it is closed when idle, never under a watch. */
  streams: number;
  http1?: boolean;
  /** A negotiation under way: the requests waiting for it, and its connection (given up when none waits any more). */
  pending?: { result: Promise<ClientHttp2Session | undefined>; waiters: number; socket?: TLSSocket };
}

/**
 * The HTTP/2 sessions to one APIService's endpoints (upstream's transport offers h2 by ALPN, and
 * speaks HTTP/1.1 to a server that does not take it). The first request to an endpoint opens a TLS
 * connection offering `h2` and `http/1.1`: when the extension picks h2 the connection becomes a
 * session every later request shares (one stream each); otherwise the endpoint is remembered as
 * HTTP/1.1 and requests go through the keep-alive agent. A session that closes, fails or is told
 * to go away is forgotten; the next request negotiates again.
 */
export class H2Sessions {
  private readonly endpoints = new Map<string, EndpointState>();
  private closed = false;

  /** `tls`: the APIService's TLS settings (CA, client certificate, verification), without host or ALPN. */
  constructor(private readonly tls: ConnectionOptions) {}

  /**
   * The HTTP/2 session to host:port (verified as `serverName`), or undefined when the extension
   * speaks HTTP/1.1 only. Opens one when there is none. @throws when the connection or the
   * handshake fails, takes too long, or `signal` aborts first.
   */
  async session(host: string, port: number, serverName: string, signal?: AbortSignal): Promise<ClientHttp2Session | undefined> {
    const key = `${host}:${port}`;
    let state = this.endpoints.get(key);
    if (!state) this.endpoints.set(key, (state = { streams: 0 }));
    if (state.http1) return undefined;
    if (state.session && !state.session.closed && !state.session.destroyed) return state.session;
    const current = state;
    if (!current.pending) {
      const pending: NonNullable<EndpointState['pending']> = { result: Promise.resolve(undefined), waiters: 0 };
      pending.result = this.negotiate(host, port, serverName, current, (socket) => (pending.socket = socket)).finally(() => {
        if (current.pending === pending) current.pending = undefined;
      });
      current.pending = pending;
    }
    const pending = current.pending;
    pending.waiters++;
    try {
      return await abortable(pending.result, signal);
    } finally {
      // The last request waiting left (its caller gone, its deadline passed): no connection is
      // left hanging on an extension that never completes a handshake.
      if (--pending.waiters === 0 && signal?.aborted) pending.socket?.destroy(new Error('no request waits for this connection any more'));
    }
  }

  /** Drops `session` (one a request could not use) so the next request negotiates anew. */
  forget(host: string, port: number, session: ClientHttp2Session): void {
    const state = this.endpoints.get(`${host}:${port}`);
    if (state?.session === session) state.session = undefined;
    session.destroy();
  }

  /** Counts a stream opened on `session` until it closes, so an idle session can be closed. */
  track(host: string, port: number, onClose: (listener: () => void) => void): void {
    const state = this.endpoints.get(`${host}:${port}`);
    if (!state) return;
    state.streams++;
    onClose(() => state.streams--);
  }

  /** Closes every session: at once (streams in flight end with an error), or (`graceful`) once their streams end. */
  close(graceful = false): void {
    this.closed = true;
    for (const state of this.endpoints.values()) {
      if (graceful) state.session?.close();
      else state.session?.destroy();
    }
    this.endpoints.clear();
  }

  private async negotiate(host: string, port: number, serverName: string, state: EndpointState, onSocket: (socket: TLSSocket) => void): Promise<ClientHttp2Session | undefined> {
    const socket = await handshake({ ...this.tls, host, port, servername: serverName, ALPNProtocols: ['h2', 'http/1.1'] }, onSocket);
    if (socket.alpnProtocol !== 'h2' || this.closed) {
      // The extension speaks HTTP/1.1 (or took no ALPN at all): the agent's connections serve it.
      socket.destroy();
      if (!this.closed) state.http1 = true;
      return undefined;
    }
    const session = h2Connect(`https://${serverName}:${port}`, { createConnection: () => socket });
    const forget = () => {
      if (state.session === session) state.session = undefined;
    };
    session.on('error', forget);
    session.on('close', forget);
    session.on('goaway', () => {
      forget();
      session.close();
    });
    session.setTimeout(IDLE_TIMEOUT_MS, () => {
      if (state.streams <= 0) {
        forget();
        session.close();
      }
    });
    state.session = session;
    return session;
  }
}

/** A TLS connection once its handshake verified. @throws on a failed or timed-out handshake. */
function handshake(options: ConnectionOptions, onSocket: (socket: TLSSocket) => void): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(options);
    onSocket(socket);
    const timer = setTimeout(() => socket.destroy(new Error(`TLS handshake with ${options.host ?? ''}:${options.port ?? ''} timed out`)), HANDSHAKE_TIMEOUT_MS);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.removeListener('error', onError);
      resolve(socket);
    });
    const onError = (err: Error) => {
      clearTimeout(timer);
      reject(err);
    };
    socket.once('error', onError);
  });
}

/** `promise`, or a rejection as soon as `signal` aborts (the work itself goes on for others). */
function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
