import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, request, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { StatusError } from '@cluster/apimachinery';
import type { RequestState } from '../filters/state.js';
import type { ApiService } from '../resources/apiregistration/types.js';
import type { ApiServiceIndex } from './apiservice-index.js';
import { withAggregatorProxy } from './proxy-handler.js';
import { ProxyTransport } from './proxy-transport.js';

// The aggregator's proxy in a Koa app, against an HTTPS extension in this process that closes a
// kept-alive connection just as the next request arrives on it (as any server closing idle
// connections may): a GET, HEAD or OPTIONS sent on a reused connection that fails before any
// answer is sent again on a new one (as Go's transport does for upstream's aggregator), so the
// caller gets the extension's answer rather than a 503; a request with a body is never sent twice.
const dir = mkdtempSync(join(tmpdir(), 'proxy-handler-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const file = (name: string) => readFileSync(join(dir, name));
ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-subj', '/CN=api', '-addext', 'subjectAltName=DNS:api.wardle.svc', '-days', '1');
let extension: Server;
let front: HttpServer;
let extPort = 0;
let frontPort = 0;
/** Requests the extension answered, and connections it closed instead of answering. */
const answered: string[] = [];
let dropped = 0;
let transport: ProxyTransport;

const svc: ApiService = {
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1.wardle.example.io', resourceVersion: '5' },
  spec: { group: 'wardle.example.io', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'wardle', name: 'api', port: 443 }, caBundle: file('c.pem').toString('base64') },
  status: { conditions: [{ type: 'Available', status: 'True', reason: 'Passed' }] },
};

beforeAll(async () => {
  // Every second request on a connection finds it closed.
  const served = new WeakMap<Socket, number>();
  extension = createServer({ key: file('k.pem'), cert: file('c.pem') }, (req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (n === 2) {
      dropped++;
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => {
      answered.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"kind":"Flunder"}');
    });
  });
  await new Promise<void>((resolve) => extension.listen(0, '127.0.0.1', () => resolve()));
  extPort = (extension.address() as AddressInfo).port;
  transport = new ProxyTransport(async () => ({ host: '127.0.0.1', port: extPort, serverName: 'api.wardle.svc' }), undefined);
  const app = new Koa<RequestState>();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      ctx.status = e.status.code ?? 500;
      ctx.body = e.status;
    }
  });
  app.use(async (ctx, next) => {
    ctx.state.requestInfo = { verb: ctx.method === 'POST' ? 'create' : 'get' } as RequestState['requestInfo'];
    ctx.state.user = { username: 'alice', groups: ['system:authenticated'] };
    await next();
  });
  app.use(withAggregatorProxy({ index: { lookup: () => svc } as unknown as ApiServiceIndex, transport, requestTimeoutMs: 10_000 }));
  front = createHttpServer(app.callback());
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', () => resolve()));
  frontPort = (front.address() as AddressInfo).port;
});

afterAll(async () => {
  transport.close();
  for (const s of [extension, front]) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  rmSync(dir, { recursive: true, force: true });
});

function call(method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: frontPort, method, path, agent: false, headers: body ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {} }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test.each(['GET', 'HEAD', 'OPTIONS'])('a %s that finds its kept-alive connection closed is sent again on a new one', async (method) => {
  const path = `/apis/wardle.example.io/v1/namespaces/default/flunders/${method.toLowerCase()}`;
  const droppedBefore = dropped;
  // The first opens a connection (or takes a fresh one); the second reuses it and finds it closed.
  expect((await call(method, `${path}-1`)).status).toBe(200);
  const second = await call(method, `${path}-2`);
  expect(dropped).toBeGreaterThan(droppedBefore);
  expect(second.status).toBe(200);
  expect(answered.filter((a) => a === `${method} ${path}-2`)).toHaveLength(1);
});

test('a POST that finds its connection closed is not sent again: a 503', async () => {
  const path = '/apis/wardle.example.io/v1/namespaces/default/flunders';
  expect((await call('GET', `${path}/warm`)).status).toBe(200);
  const droppedBefore = dropped;
  const posted = await call('POST', path, '{"kind":"Flunder"}');
  expect(dropped).toBe(droppedBefore + 1);
  expect(posted.status).toBe(503);
  expect(JSON.parse(posted.body)).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
  expect(answered.filter((a) => a === `POST ${path}`)).toHaveLength(0);
});
