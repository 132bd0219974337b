import { request as httpsRequest } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseFlags, type ServerOptions } from '../../src/flags.js';
import { startServer, type RunningServer } from '../../src/start.js';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  // Test replies are arbitrary JSON; assertions narrow them.
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RequestOptions {
  body?: unknown;
  /** An array value is sent as one header line per element (Impersonate-Group, ...). */
  headers?: Record<string, string | string[]>;
  /** Bearer token; defaults to the admin token, null sends none. */
  token?: string | null;
  /** A client certificate to present (PEM); set `token: null` to authenticate by it alone. */
  clientCert?: { certPem: string; keyPem: string };
}

/** A replica on loopback with its own embedded etcd in a temporary data dir. */
export interface TestServer {
  server: RunningServer;
  dataDir: string;
  request(method: string, path: string, opts?: RequestOptions): Promise<Reply>;
  stop(): Promise<void>;
}

/** Starts a replica (HTTPS, generated CA, admin token) for a test file; call stop() in afterAll. */
export async function startTestServer(extraFlags: string[] = [], overrides: Partial<ServerOptions> = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'apiserver-test-'));
  const opts = { ...parseFlags(['--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1', ...extraFlags]), ...overrides };
  const server = await startServer(opts, pino({ level: 'silent' }));
  const request = (method: string, path: string, ro: RequestOptions = {}) =>
    send(server, method, path, ro);
  return {
    server,
    dataDir,
    request,
    async stop() {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function send(server: RunningServer, method: string, path: string, ro: RequestOptions): Promise<Reply> {
  const url = new URL(path, server.url);
  const headers: Record<string, string | string[]> = { ...ro.headers };
  const token = ro.token === undefined ? server.adminToken : ro.token;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  let payload: Buffer | undefined;
  if (ro.body !== undefined) {
    payload = Buffer.isBuffer(ro.body) ? ro.body : Buffer.from(typeof ro.body === 'string' ? ro.body : JSON.stringify(ro.body));
    headers['Content-Type'] ??= 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const tlsClient = ro.clientCert ? { cert: ro.clientCert.certPem, key: ro.clientCert.keyPem } : {};
    const req = httpsRequest(url, { method, headers, ca: server.caPem, timeout: 20_000, ...tlsClient }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`request ${method} ${path} timed out`)));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/**
 * Starts a replica for the enclosing test file before its tests and stops it after them; call at
 * the top level of the file and use the returned getter in tests.
 */
export function useTestServer(extraFlags: string[] = [], overrides: Partial<ServerOptions> = {}): () => TestServer {
  let ts: TestServer | undefined;
  beforeAll(async () => {
    ts = await startTestServer(extraFlags, overrides);
  }, 60_000);
  afterAll(async () => {
    await ts?.stop();
  });
  return () => {
    if (!ts) throw new Error('the test server did not start');
    return ts;
  };
}
