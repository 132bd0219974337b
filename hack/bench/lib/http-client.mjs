// The load generator's HTTPS client: HTTP/1.1 keep-alive over a fixed pool of TLS connections,
// bearer-token or client-certificate auth and the cluster CA, whole-body responses as Buffers.
//
// Written on raw TLS sockets rather than node:https on purpose. node:https spends some 120 µs of
// JavaScript per request here (request and response objects, header maps, stream events): at
// that cost a single-threaded load generator saturates its core near 8,000 requests/s, so the
// get-cached baseline (a bare HTTPS server) measured the generator and no server could be shown
// faster than it. This client builds each request as one write and reads the response with a
// small parser (status line, Content-Length or chunked body), a fraction of that cost, so the
// servers under test are what runs out of CPU.
import { connect } from 'node:tls';

/** Per-request timeout: a stuck request counts as an error instead of hanging a workload. */
const REQUEST_TIMEOUT_MS = 60_000;
const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
/** A response header block larger than this is a broken server, not a slow one. */
const MAX_HEADER_BYTES = 64 * 1024;

const EMPTY = Buffer.alloc(0);

/**
 * A response being read: headers first, then a body framed by length, by chunks, or by close.
 * Body bytes go straight into `chunks` as slices of what the socket delivered; only the header
 * block and chunk-size lines are ever joined, so a large body is copied once (at the end).
 */
class ResponseParser {
  constructor(method) {
    this.method = method;
    /** Unparsed header bytes, or an unfinished chunk-size line (or trailer section). */
    this.buf = EMPTY;
    this.status = 0;
    this.headersDone = false;
    /** 'length' | 'chunked' | 'close' */
    this.framing = 'length';
    /** Body bytes still due ('length'), or bytes of the current chunk's data ('chunked'). */
    this.remaining = 0;
    /** The CRLF after a chunk's data still to skip. */
    this.crlfLeft = 0;
    this.chunks = [];
    this.keepAlive = true;
    this.done = false;
  }

  /** Feeds bytes; returns true when the response is complete. Throws on a malformed response. */
  feed(data) {
    if (!this.headersDone) {
      this.buf = this.buf.length === 0 ? data : Buffer.concat([this.buf, data]);
      if (!this.parseHeaders()) return false;
      data = this.buf;
      this.buf = EMPTY;
    }
    if (this.framing === 'length') return this.readLength(data);
    if (this.framing === 'chunked') return this.readChunks(data);
    if (data.length > 0) this.chunks.push(data);
    return false;
  }

  /** The connection closed: completes a close-framed body, otherwise the response was cut. */
  closed() {
    if (this.headersDone && this.framing === 'close') {
      this.done = true;
      return true;
    }
    return false;
  }

  body() {
    return this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
  }

  parseHeaders() {
    const end = this.buf.indexOf(HEADER_END);
    if (end === -1) {
      if (this.buf.length > MAX_HEADER_BYTES) throw new Error('response headers too large');
      return false;
    }
    const lines = this.buf.toString('latin1', 0, end).split('\r\n');
    const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
    if (!statusLine) throw new Error(`malformed status line: ${lines[0].slice(0, 80)}`);
    this.status = Number(statusLine[1]);
    let length;
    let chunked = false;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = value.toLowerCase().includes('chunked');
      else if (name === 'connection') this.keepAlive = value.toLowerCase() !== 'close';
    }
    this.buf = this.buf.subarray(end + HEADER_END.length);
    this.headersDone = true;
    const noBody = this.method === 'HEAD' || this.status === 204 || this.status === 304 || (this.status >= 100 && this.status < 200);
    if (noBody) {
      this.framing = 'length';
      this.remaining = 0;
    } else if (chunked) {
      this.framing = 'chunked';
    } else if (length !== undefined && Number.isSafeInteger(length) && length >= 0) {
      this.framing = 'length';
      this.remaining = length;
    } else {
      this.framing = 'close';
      this.keepAlive = false;
    }
    return true;
  }

  readLength(data) {
    // Bytes past the body would be a pipelined answer, which this client never asks for.
    const take = Math.min(this.remaining, data.length);
    if (take > 0) this.chunks.push(data.subarray(0, take));
    this.remaining -= take;
    this.done = this.remaining === 0;
    return this.done;
  }

  readChunks(data) {
    let rest = data;
    for (;;) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, rest.length);
        if (take > 0) this.chunks.push(rest.subarray(0, take));
        rest = rest.subarray(take);
        this.remaining -= take;
        if (this.remaining > 0) return false;
        this.crlfLeft = 2;
      }
      if (this.crlfLeft > 0) {
        const take = Math.min(this.crlfLeft, rest.length);
        rest = rest.subarray(take);
        this.crlfLeft -= take;
        if (this.crlfLeft > 0) return false;
      }
      this.buf = this.buf.length === 0 ? rest : Buffer.concat([this.buf, rest]);
      const lineEnd = this.buf.indexOf(CRLF);
      if (lineEnd === -1) {
        if (this.buf.length > MAX_HEADER_BYTES) throw new Error('chunk-size line too long');
        return false;
      }
      const size = parseInt(this.buf.toString('latin1', 0, lineEnd).split(';')[0], 16);
      if (!Number.isSafeInteger(size) || size < 0) throw new Error('malformed chunk size');
      if (size === 0) {
        // The last chunk, then optional trailers and a blank line.
        const bare = this.buf.length >= lineEnd + 4 && this.buf[lineEnd + 2] === 13 && this.buf[lineEnd + 3] === 10;
        if (!bare && this.buf.indexOf(HEADER_END, lineEnd) === -1) return false;
        this.buf = EMPTY;
        this.done = true;
        return true;
      }
      rest = this.buf.subarray(lineEnd + 2);
      this.buf = EMPTY;
      this.remaining = size;
    }
  }
}

/** One keep-alive TLS connection serving one request at a time. */
class Connection {
  constructor(client) {
    this.client = client;
    this.current = undefined;
    this.closed = false;
    this.socket = connect({
      host: client.host,
      port: client.port,
      servername: client.servername,
      ALPNProtocols: ['http/1.1'],
      ...client.tls,
    });
    this.socket.setNoDelay(true);
    this.socket.on('data', (data) => this.onData(data));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => {
      if (this.current?.parser.closed()) this.complete();
      this.fail(new Error('connection closed by the server'));
    });
  }

  send(method, bytes, resolve, reject) {
    const timer = setTimeout(() => this.fail(new Error(`${method}: timeout`)), REQUEST_TIMEOUT_MS);
    this.current = { parser: new ResponseParser(method), resolve, reject, timer };
    this.socket.write(bytes);
  }

  onData(data) {
    const current = this.current;
    if (!current) return;
    let complete;
    try {
      complete = current.parser.feed(data);
    } catch (e) {
      this.fail(e);
      return;
    }
    if (complete) this.complete();
  }

  complete() {
    const { parser, resolve, timer } = this.current;
    clearTimeout(timer);
    this.current = undefined;
    if (!parser.keepAlive) this.close();
    resolve({ status: parser.status, body: parser.body() });
    this.client.release(this);
  }

  fail(err) {
    const current = this.current;
    this.current = undefined;
    if (current) {
      clearTimeout(current.timer);
      current.reject(err);
    }
    this.close();
    this.client.release(this);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
  }
}

export class HttpClient {
  /**
   * @param {{host: string, port: number, ca?: string, token?: string, clientCert?: {cert: string, key: string}, maxSockets?: number, insecure?: boolean}} opts
   * `insecure` skips server certificate checks (a kubeconfig's insecure-skip-tls-verify).
   */
  constructor({ host, port, ca, token, clientCert, maxSockets = 64, insecure = false }) {
    this.host = host;
    this.port = port;
    // SNI carries host names only; an IP address is checked against the certificate's IP SANs.
    this.servername = /^[\d.]+$|:/.test(host) ? undefined : host;
    this.tls = { ca, ...clientCert, ...(insecure ? { rejectUnauthorized: false } : {}) };
    this.maxSockets = maxSockets;
    /** Every open connection, and the ones waiting for a request. */
    this.connections = new Set();
    this.idle = [];
    /** Requests waiting for a connection: [method, bytes, resolve, reject]. */
    this.queue = [];
    this.destroyed = false;
    const hostHeader = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    this.headerTail = `Host: ${hostHeader}\r\nAccept: application/json\r\n${token ? `Authorization: Bearer ${token}\r\n` : ''}`;
  }

  /**
   * Sends one request and resolves with the status and the whole body; rejects on network errors
   * and timeouts (never on HTTP error statuses).
   * @param {string} method
   * @param {string} path
   * @param {Buffer | string | undefined} body JSON request body
   * @returns {Promise<{status: number, body: Buffer}>}
   */
  request(method, path, body) {
    if (this.destroyed) return Promise.reject(new Error('client closed'));
    const head =
      body === undefined
        ? `${method} ${path} HTTP/1.1\r\n${this.headerTail}\r\n`
        : `${method} ${path} HTTP/1.1\r\n${this.headerTail}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const bytes = body === undefined ? head : Buffer.concat([Buffer.from(head, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
    return new Promise((resolve, reject) => {
      const conn = this.take();
      if (conn) conn.send(method, bytes, resolve, reject);
      else this.queue.push([method, bytes, resolve, reject]);
    });
  }

  /** An idle connection, a new one while under the pool size, or none (the request queues). */
  take() {
    while (this.idle.length > 0) {
      const conn = this.idle.pop();
      if (!conn.closed) return conn;
    }
    if (this.connections.size < this.maxSockets) {
      const conn = new Connection(this);
      this.connections.add(conn);
      return conn;
    }
    return undefined;
  }

  /** A connection finished its request (or died): it serves the next queued one or waits. */
  release(conn) {
    if (conn.closed) this.connections.delete(conn);
    if (this.destroyed) return;
    const next = this.queue.shift();
    if (next) {
      const target = conn.closed ? this.take() : conn;
      if (target) target.send(...next);
      else this.queue.unshift(next);
      return;
    }
    if (!conn.closed) this.idle.push(conn);
  }

  /** Like {@link request} but parses a JSON body and throws on a non-2xx status. */
  async json(method, path, body) {
    const res = await this.request(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (res.status < 200 || res.status > 299) {
      throw new Error(`${method} ${path}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
    }
    return JSON.parse(res.body.toString('utf8'));
  }

  close() {
    this.destroyed = true;
    for (const conn of this.connections) conn.close();
    this.connections.clear();
    this.idle = [];
    for (const [, , , reject] of this.queue.splice(0)) reject(new Error('client closed'));
  }
}
/** Creates a namespace through the API; an existing one is fine. */
export async function ensureNamespace(client, name) {
  const res = await client.request(
    'POST',
    '/api/v1/namespaces',
    JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
  );
  if (res.status !== 201 && res.status !== 409) {
    throw new Error(`create namespace ${name}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  }
}

/** The ClusterRole the workload user gets in each bench namespace through a RoleBinding. */
export const WORKLOAD_ROLE = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'bench-workload' },
  rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] }],
};

/**
 * As the admin: creates the namespace and binds the workload ClusterRole to `user` in it, then
 * waits (bounded) until the grant is in effect for `asUser`, since RBAC follows a watch.
 */
export async function prepareNamespace(admin, asUser, name, user) {
  await ensureNamespace(admin, name);
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'bench-workload', namespace: name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: WORKLOAD_ROLE.metadata.name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  };
  const res = await admin.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${name}/rolebindings`, JSON.stringify(binding));
  if (res.status !== 201 && res.status !== 409) {
    throw new Error(`create rolebinding in ${name}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  }
  for (let i = 0; i < 100; i++) {
    const probe = await asUser.request('GET', `/api/v1/namespaces/${name}/configmaps?limit=1`);
    if (probe.status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the workload user was not granted configmaps in ${name} within 5 s`);
}

/**
 * The two clients of a bench against a started replica (processes.mjs `startReplica`): the
 * admin's (bearer token, for setup) and the workload user's (client certificate, every measured
 * request, so that authentication and RBAC are measured), with the workload ClusterRole created.
 */
export async function replicaClients(replica, maxSockets) {
  const admin = new HttpClient({ host: replica.host, port: replica.port, ca: replica.ca, token: replica.token, maxSockets: 4 });
  await admin.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', WORKLOAD_ROLE);
  const api = new HttpClient({ host: replica.host, port: replica.port, ca: replica.ca, clientCert: replica.clientCert, maxSockets });
  return { admin, api };
}

/**
 * The context a workload module (workloads/*.mjs) runs with: the workload user's client (`api`),
 * the admin's (setup beyond namespaces: service accounts, tokens), etcd's own endpoint (its
 * /metrics counts the ranges a workload costs) and `prepareNamespace`, which creates a bench
 * namespace as the admin and grants the workload user its ConfigMaps. `capMs` keeps what the
 * workload asks; run.mjs adds its deadline, the raw etcd client and the CPU probe.
 */
export function workloadContext({ scale, concurrency, admin, api, replica, etcdEndpoint, tmpDir, log }) {
  return {
    scale,
    concurrency,
    api,
    admin,
    etcdEndpoint,
    prepareNamespace: (ns) => prepareNamespace(admin, api, ns, replica.workloadUser),
    replica,
    tmpDir,
    state: {},
    log,
    count: (n) => Math.max(1, Math.round(n * scale)),
    capMs: (ms) => ms,
  };
}
