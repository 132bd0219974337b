import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { constants as h2, createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';
import { hostAddress } from './support/host-address.js';
import { upgradeCall } from './support/upgrade-call.js';

// The aggregator speaks HTTP/2 to an extension that offers it by ALPN (issue 29), HTTP/1.1 to one
// that does not, and exec-style upgrades HTTP/1.1 always. Two real extensions in this process,
// each on a non-loopback address behind its Service and Endpoints: "h2" (node:http2, h2 and
// http/1.1 offered) and "h1" (node:https, no ALPN). Each records how every request arrived.

/* eslint-disable @typescript-eslint/no-explicit-any */
const HOST = hostAddress();
const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

const dir = mkdtempSync(join(tmpdir(), 'aggregation-h2-e2e-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=h2-test-ca', '-days', '2');
for (const name of ['h2', 'h1']) {
  ssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:api.${name}.svc`);
  ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', name === 'h2' ? '21' : '22', '-out', `${name}.crt`, '-days', '1', '-copy_extensions', 'copy');
}
const caBundle = readFileSync(join(dir, 'ca.crt')).toString('base64');

interface Seen {
  ext: string;
  method: string;
  path: string;
  httpVersion: string;
  headers: IncomingHttpHeaders;
  clientCn?: string;
}
const seen: Seen[] = [];
/** Paths of requests whose stream or connection closed at the extension. */
const closed: string[] = [];
let h2Sessions = 0;
/** The h2 extension's sessions still open, and its port (kept across a restart). */
const openSessions: ServerHttp2Session[] = [];
let h2Port = 0;
let server: ServerProcess;
let admin: KubeconfigClient;
let frontProxyCa = '';
let h2ext: Http2SecureServer;
let h1ext: HttpsServer;

const group = (ext: string) => `${ext}.example.io`;
const gv = (ext: string) => `/apis/${group(ext)}/v1`;
const widget = (ext: string, name: string) => ({ apiVersion: `${group(ext)}/v1`, kind: 'Widget', metadata: { name, namespace: 'default' } });

/** What both extensions answer; `req` is HTTP/2 or HTTP/1.1. */
function handle(ext: string, req: IncomingMessage | Http2ServerRequest, res: Http2ServerResponse | import('node:http').ServerResponse): void {
  const socket = req.socket as TLSSocket;
  const cn = socket.authorized ? (socket.getPeerCertificate().subject?.CN as string | undefined) : undefined;
  const url = new URL(req.url ?? '/', 'https://x');
  seen.push({ ext, method: req.method ?? '', path: `${url.pathname}${url.search}`, httpVersion: req.httpVersion, headers: req.headers, clientCn: cn });
  req.on('close', () => closed.push(`${ext}:${url.pathname}`));
  const json = (code: number, body: unknown) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (cn !== 'front-proxy-client' || !req.headers['x-remote-user']) return json(401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 });
  const base = gv(ext);
  const p = url.pathname;
  if (p === base) {
    return json(200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group(ext)}/v1`, resources: [{ name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['create', 'get', 'list', 'watch'] }] });
  }
  if (p === `${base}/namespaces/default/widgets` && url.searchParams.get('watch')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`${JSON.stringify({ type: 'ADDED', object: widget(ext, `watched-over-${req.httpVersion}`) })}\n`);
    return; // held open until the client leaves
  }
  if (p === `${base}/namespaces/default/widgets` && req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      json(201, { ...body, metadata: { ...body.metadata, uid: `made-over-${req.httpVersion}` } });
    });
    return;
  }
  if (p === `${base}/namespaces/default/widgets/hang`) return; // never answers
  if (p === `${base}/namespaces/default/widgets/reset`) {
    // HTTP/2: this stream alone is reset (RST_STREAM); the session goes on. HTTP/1.1: the connection.
    const stream = (req as Http2ServerRequest).stream;
    if (stream) stream.close(h2.NGHTTP2_INTERNAL_ERROR);
    else socket.destroy();
    return;
  }
  if (p === `${base}/namespaces/default/widgets/cut`) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"kind":"Widget",');
    const stream = (req as Http2ServerRequest).stream;
    setTimeout(() => (stream ? stream.close(h2.NGHTTP2_CANCEL) : socket.destroy()), 100);
    return;
  }
  if (p.startsWith(`${base}/namespaces/default/widgets/`)) return json(200, widget(ext, p.split('/').pop()!));
  json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
}

/** exec-style protocol switches, on either server: after the 101, bytes come back upper-cased. */
function onUpgrade(ext: string) {
  return (req: IncomingMessage, socket: TLSSocket) => {
    const cn = socket.authorized ? (socket.getPeerCertificate().subject?.CN as string | undefined) : undefined;
    seen.push({ ext, method: req.method ?? '', path: req.url ?? '', httpVersion: req.httpVersion, headers: req.headers, clientCn: cn });
    if (cn !== 'front-proxy-client') return void socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: cluster-echo\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(d.toString('utf8').toUpperCase()));
    socket.on('error', () => socket.destroy());
  };
}

function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; ms: number }> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { Authorization: `Bearer ${admin.token}`, Accept: 'application/json' };
  if (payload) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { method, headers, ca: admin.ca, agent: false, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = text;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, json, ms: Date.now() - t0 });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

async function eventually(check: () => Promise<void>, tries = 100): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await check();
    } catch (e) {
      if (i >= tries) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

const listen = (s: Http2SecureServer | HttpsServer) => new Promise<number>((resolve) => s.listen(0, HOST, () => resolve((s.address() as AddressInfo).port)));

beforeAll(async () => {
  // One process: every proxied request goes through one transport, so sessions can be counted.
  server = await startServerProcess(['--workers=1', '--apiservice-availability-check-period=1s', '--request-timeout=30s']);
  admin = new KubeconfigClient(server.kubeconfig);
  const cm = await call('GET', '/api/v1/namespaces/cluster-system/configmaps/extension-apiserver-authentication');
  frontProxyCa = cm.json.data['requestheader-client-ca-file'];
  const tls = (name: string) => ({ key: readFileSync(join(dir, `${name}.key`)), cert: readFileSync(join(dir, `${name}.crt`)), ca: frontProxyCa, requestCert: true, rejectUnauthorized: false });
  h2ext = createSecureServer({ ...tls('h2'), allowHTTP1: true }, (req, res) => handle('h2', req, res));
  h2ext.on('session', (session) => {
    h2Sessions++;
    openSessions.push(session);
    session.on('close', () => openSessions.splice(openSessions.indexOf(session), 1));
  });
  h2ext.on('upgrade', onUpgrade('h2'));
  h1ext = createHttpsServer(tls('h1'), (req, res) => handle('h1', req, res));
  h1ext.on('upgrade', onUpgrade('h1'));
  const ports = { h2: await listen(h2ext), h1: await listen(h1ext) };
  h2Port = ports.h2;
  for (const ext of ['h2', 'h1'] as const) {
    for (const [path, body] of [
      ['/api/v1/namespaces', { metadata: { name: ext } }],
      [`/api/v1/namespaces/${ext}/services`, { metadata: { name: 'api' }, spec: { ports: [{ name: 'https', port: 443 }] } }],
      [`/api/v1/namespaces/${ext}/endpoints`, { metadata: { name: 'api' }, subsets: [{ addresses: [{ ip: HOST }], ports: [{ name: 'https', port: ports[ext] }] }] }],
      [APISERVICES, { metadata: { name: `v1.${group(ext)}` }, spec: { group: group(ext), version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: ext, name: 'api' }, caBundle } }],
    ] as const) {
      const r = await call('POST', path, body);
      if (r.status !== 201) throw new Error(`set-up ${path}: ${JSON.stringify(r.json)}`);
    }
  }
  for (const ext of ['h2', 'h1']) {
    await eventually(async () => expect((await call('GET', `${gv(ext)}/namespaces/default/widgets/ready`)).status).toBe(200));
  }
}, 120_000);

afterAll(async () => {
  admin?.close();
  await server?.stop();
  for (const s of [h2ext, h1ext]) {
    if (!s) continue;
    (s as HttpsServer).closeAllConnections?.();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

const lastSeen = (ext: string, suffix: string) => seen.filter((s) => s.ext === ext && s.path.endsWith(suffix)).pop();

test('requests reach an extension offering h2 over HTTP/2, one that does not over HTTP/1.1; identity as X-Remote-*', async () => {
  for (const [ext, version] of [['h2', '2.0'], ['h1', '1.1']] as const) {
    const r = await call('GET', `${gv(ext)}/namespaces/default/widgets/probe`);
    expect([ext, r.status, r.json.metadata?.name]).toEqual([ext, 200, 'probe']);
    const got = lastSeen(ext, '/widgets/probe')!;
    expect([ext, got.httpVersion]).toEqual([ext, version]);
    expect(got.clientCn).toBe('front-proxy-client');
    expect(got.headers['x-remote-user']).toBe('admin');
    expect(got.headers['x-remote-group']).toContain('system:masters');
    expect(got.headers['authorization']).toBeUndefined();
  }
  // The h2 request named the extension as :authority, the Service's DNS name.
  expect(lastSeen('h2', '/widgets/probe')!.headers[':authority']).toMatch(/^api\.h2\.svc:\d+$/);
}, 60_000);

test('concurrent requests share one HTTP/2 session; a create streams its body over it', async () => {
  const before = h2Sessions;
  const all = await Promise.all(Array.from({ length: 40 }, (_, i) => call('GET', `${gv('h2')}/namespaces/default/widgets/many-${i}`)));
  expect(all.map((r) => r.status)).toEqual(all.map(() => 200));
  expect(h2Sessions - before).toBe(0);
  expect(h2Sessions).toBe(1);
  const big = 'x'.repeat(256 * 1024);
  const created = await call('POST', `${gv('h2')}/namespaces/default/widgets`, { ...widget('h2', 'made'), spec: { payload: big } });
  expect([created.status, created.json.metadata.uid, created.json.spec.payload.length]).toEqual([201, 'made-over-2.0', big.length]);
}, 60_000);

test('a watch streams over HTTP/2, and the caller leaving ends the stream at the extension', async () => {
  const events: any[] = [];
  const w = admin.watch(`${gv('h2')}/namespaces/default/widgets?watch=1`, (e) => events.push(e));
  await eventually(async () => expect(events.map((e) => e.object.metadata.name)).toEqual(['watched-over-2.0']), 50);
  const closedBefore = closed.filter((c) => c === 'h2:/apis/h2.example.io/v1/namespaces/default/widgets').length;
  w.stop();
  await w.ended;
  await eventually(async () => expect(closed.filter((c) => c === 'h2:/apis/h2.example.io/v1/namespaces/default/widgets').length).toBe(closedBefore + 1), 50);
}, 60_000);

/** An exec-style upgrade through the front door as the admin. */
const upgrade = (path: string, send: string) => upgradeCall(new URL(path, server.url), admin.ca, admin.token, send);

test('an upgrade (exec-style) to the h2 extension goes over HTTP/1.1 and is joined', async () => {
  expect(await upgrade(`${gv('h2')}/namespaces/default/widgets/x/exec`, 'over one point one')).toEqual({ status: 101, echo: 'OVER ONE POINT ONE' });
  const up = lastSeen('h2', '/widgets/x/exec')!;
  expect([up.httpVersion, up.clientCn, up.headers['x-remote-user'], up.headers['upgrade'], up.headers['authorization']]).toEqual(['1.1', 'front-proxy-client', 'admin', 'cluster-echo', undefined]);
}, 60_000);

test('over HTTP/2, a reset stream is a 503, a hung one a 504, a cut answer is cut; the session serves the rest meanwhile', async () => {
  const sessionsBefore = h2Sessions;
  const hung = Array.from({ length: 10 }, () => call('GET', `${gv('h2')}/namespaces/default/widgets/hang?timeout=2s`));
  // The same session answers others while ten streams hang on it.
  const t0 = Date.now();
  const during = await Promise.all(Array.from({ length: 10 }, (_, i) => call('GET', `${gv('h2')}/namespaces/default/widgets/during-${i}`)));
  expect(during.map((r) => r.status)).toEqual(during.map(() => 200));
  expect(Date.now() - t0).toBeLessThan(1500);
  for (const r of await Promise.all(hung)) expect([r.status, r.json.kind, r.json.reason]).toEqual([504, 'Status', 'Timeout']);
  const reset = await call('GET', `${gv('h2')}/namespaces/default/widgets/reset`);
  expect([reset.status, reset.json.kind, reset.json.reason]).toEqual([503, 'Status', 'ServiceUnavailable']);
  // An answer the extension cancels mid-body: the caller's stream is cut, never completed.
  const cut = await new Promise<string>((resolve) => {
    const req = request(new URL(`${gv('h2')}/namespaces/default/widgets/cut`, server.url), { ca: admin.ca, agent: false, headers: { Authorization: `Bearer ${admin.token}` } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve('ended'));
      res.on('error', () => resolve('cut'));
      res.on('close', () => resolve('cut'));
    });
    req.on('error', () => resolve('cut'));
    req.end();
  });
  expect(cut).toBe('cut');
  // Streams failed, not the session: still the same one.
  expect((await call('GET', `${gv('h2')}/namespaces/default/widgets/after`)).status).toBe(200);
  expect(h2Sessions).toBe(sessionsBefore);
}, 60_000);

test('the extension dropping its HTTP/2 session: the next request negotiates a new one', async () => {
  const before = h2Sessions;
  // Every session the extension holds is closed under the server (a restart would do the same).
  await new Promise<void>((resolve) => {
    h2ext.close(() => resolve());
    for (const session of [...openSessions]) session.destroy();
  });
  await new Promise<void>((resolve) => h2ext.listen(h2Port, HOST, () => resolve()));
  await eventually(async () => expect((await call('GET', `${gv('h2')}/namespaces/default/widgets/again`)).status).toBe(200), 50);
  expect(lastSeen('h2', '/widgets/again')!.httpVersion).toBe('2.0');
  expect(h2Sessions).toBeGreaterThan(before);
}, 60_000);
