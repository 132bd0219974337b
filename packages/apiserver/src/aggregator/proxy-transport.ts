import { Agent, request, type RequestOptions } from 'node:https';
import { constants as h2constants, type ClientHttp2Stream, type OutgoingHttpHeaders as Http2OutgoingHeaders } from 'node:http2';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';
import type { ResolvedService, ServiceResolver } from '../admission/webhook-dispatcher.js';
import type { ApiService } from '../resources/apiregistration/types.js';
import { DEFAULT_SERVICE_PORT } from '../resources/apiregistration/validation.js';
import { H2Sessions } from './h2-sessions.js';

/** The client certificate this server presents to extensions (--proxy-client-cert-file/--proxy-client-key-file). */
export interface ProxyClientCertificate {
  certPem: string;
  keyPem: string;
}

/** The connections of one APIService version: the HTTP/1.1 agent and the HTTP/2 sessions. */
interface Connections {
  version: string;
  agent: Agent;
  h2: H2Sessions;
}

/** Where a request for an APIService goes: the resolved endpoint and the TLS settings to reach it. */
export interface ProxyTarget {
  endpoint: ResolvedService;
  options: RequestOptions;
  connections: Connections;
}

/** A request on its way to an extension: its body is written (or piped) into it; destroy cancels it. */
export type ProxyRequest = Writable & { setTimeout(ms: number, callback: () => void): unknown };

/** An extension's answer, over HTTP/1.1 or HTTP/2 alike: status, headers (no pseudo-headers) and the body as a stream. */
export type ProxyResponse = Readable & { statusCode?: number; headers: IncomingHttpHeaders; httpVersion: string };

/** Options of {@link ProxyTransport.request}. */
export interface ProxyRequestOptions {
  /** Gives up connecting when aborted (the caller left, or its deadline passed). */
  signal?: AbortSignal;
}

/** Header names HTTP/2 forbids (connection-specific), and the Host header, which becomes :authority. */
const NOT_IN_HTTP2 = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'http2-settings']);

/**
 * Reaches extension API servers: resolves an APIService's Service through its Endpoints (no
 * service proxy exists here, as upstream's --enable-aggregator-routing) and holds, per APIService
 * version, one keep-alive HTTPS agent and the HTTP/2 sessions to its endpoints. Both verify the
 * extension against its caBundle (or the system roots when there is none) under the name
 * `<service>.<namespace>.svc` and present the proxy client certificate; requests go over HTTP/2
 * where the extension offers it by ALPN, else HTTP/1.1 (upgrades always HTTP/1.1). The caller's
 * own TLS identity never travels: every connection is this server's.
 */
export class ProxyTransport {
  private connections = new Map<string, Connections>();

  constructor(
    private readonly resolve: ServiceResolver,
    private readonly clientCert: ProxyClientCertificate | undefined,
  ) {}

  /** Resolves the endpoint of `svc`. @throws when the Service, its port or a ready endpoint is missing. */
  async target(svc: ApiService): Promise<ProxyTarget> {
    const ref = svc.spec?.service;
    if (!ref?.namespace || !ref.name) throw new Error(`APIService ${svc.metadata.name ?? ''} has no service`);
    const endpoint = await this.resolve(ref.namespace, ref.name, ref.port ?? DEFAULT_SERVICE_PORT);
    const connections = this.connectionsFor(svc);
    return { endpoint, connections, options: { host: endpoint.host, port: endpoint.port, servername: endpoint.serverName, agent: connections.agent } };
  }

  /**
   * Starts a request to `target`, over HTTP/2 when the extension offers it, else HTTP/1.1;
   * `onResponse` gets its answer. The caller writes the body and handles errors on the request.
   * @throws when no connection could be made (refused, TLS failure, `signal` aborted).
   */
  async request(target: ProxyTarget, method: string, path: string, headers: OutgoingHttpHeaders, onResponse: (res: ProxyResponse) => void, opts: ProxyRequestOptions = {}): Promise<ProxyRequest> {
    const { host, port, serverName } = target.endpoint;
    let session = await target.connections.h2.session(host, port, serverName, opts.signal);
    if (!session) return this.http1Request(target, method, path, headers, onResponse);
    const h2Headers: Http2OutgoingHeaders = { ':method': method, ':path': path, ':scheme': 'https', ':authority': String(headers['host'] ?? `${serverName}:${port}`) };
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (value !== undefined && !NOT_IN_HTTP2.has(lower)) h2Headers[lower] = value;
    }
    let stream: ClientHttp2Stream;
    try {
      stream = session.request(h2Headers);
    } catch {
      // The session went away between the look-up and the request (GOAWAY, closed): once more on a new one.
      target.connections.h2.forget(host, port, session);
      session = await target.connections.h2.session(host, port, serverName, opts.signal);
      if (!session) return this.http1Request(target, method, path, headers, onResponse);
      stream = session.request(h2Headers);
    }
    target.connections.h2.track(host, port, (listener) => stream.once('close', listener));
    stream.once('response', (raw) => {
      const resHeaders: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(raw)) {
        if (!name.startsWith(':') && value !== undefined) resHeaders[name] = typeof value === 'number' ? String(value) : value;
      }
      onResponse(Object.assign(responseBody(stream), { statusCode: Number(raw[':status']), headers: resHeaders, httpVersion: '2.0' }));
    });
    return stream;
  }

  /** Starts an HTTP/1.1 request (upgrades, exec-style, are always HTTP/1.1); the caller writes the body. */
  http1Request(target: ProxyTarget, method: string, path: string, headers: OutgoingHttpHeaders, onResponse: (res: IncomingMessage) => void): ClientRequest {
    return request({ ...target.options, method, path, headers }, onResponse);
  }

  /** Drops the connections of APIServices no longer present (their idle connections close). */
  retain(names: ReadonlySet<string>): void {
    for (const [name, entry] of this.connections) {
      if (!names.has(name)) {
        closeConnections(entry);
        this.connections.delete(name);
      }
    }
  }

  close(): void {
    for (const entry of this.connections.values()) closeConnections(entry);
    this.connections.clear();
  }

  private connectionsFor(svc: ApiService): Connections {
    const name = svc.metadata.name ?? '';
    // What the connections depend on: the TLS settings and the Service (a status write changes none).
    const ref = svc.spec?.service;
    const version = JSON.stringify([svc.spec?.caBundle, svc.spec?.insecureSkipTLSVerify === true, ref?.namespace, ref?.name, ref?.port ?? DEFAULT_SERVICE_PORT]);
    const cached = this.connections.get(name);
    if (cached?.version === version) return cached;
    // Requests in flight (watches) finish on the old connections; new ones take the new settings.
    if (cached) closeConnections(cached, true);
    const caBundle = svc.spec?.caBundle ? Buffer.from(svc.spec.caBundle, 'base64').toString('utf8') : undefined;
    const tls: ConnectionOptions = {
      ca: caBundle,
      rejectUnauthorized: svc.spec?.insecureSkipTLSVerify !== true,
      cert: this.clientCert?.certPem,
      key: this.clientCert?.keyPem,
    };
    // No cap on connections per extension (Go's transport has none either): requests hanging on
    // an extension must never queue the others behind them. Idle ones kept: a few.
    const entry: Connections = { version, agent: new Agent({ keepAlive: true, maxFreeSockets: 16, ...tls }), h2: new H2Sessions(tls) };
    this.connections.set(name, entry);
    return entry;
  }
}

/**
 * The body of an HTTP/2 answer as a stream of its own, so that an answer the extension cut short
 * (RST_STREAM, even with CANCEL, which Node ends the stream on like a finished one) is an error
 * rather than a complete answer; destroying it cancels the extension's stream.
 */
function responseBody(stream: ClientHttp2Stream): PassThrough {
  const body = new PassThrough();
  stream.pipe(body, { end: false });
  stream.once('end', () => {
    const code = stream.rstCode;
    if (code !== undefined && code !== h2constants.NGHTTP2_NO_ERROR) body.destroy(new Error(`the extension reset the stream (HTTP/2 error code ${code})`));
    else body.end();
  });
  stream.once('error', (err) => body.destroy(err));
  body.once('close', () => {
    if (!stream.closed) stream.close(h2constants.NGHTTP2_CANCEL);
  });
  return body;
}

/** Closes an APIService's connections: at once, or (`graceful`) once their requests in flight end. */
function closeConnections(entry: Connections, graceful = false): void {
  if (!graceful) entry.agent.destroy();
  else {
    // Idle sockets close now; each one in use closes when its answer has ended.
    entry.agent.keepSocketAlive = () => false;
    for (const sockets of Object.values(entry.agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }
  entry.h2.close(graceful);
}
