import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiService } from '../resources/apiregistration/types.js';
import { ProxyTransport, type ProxyResponse } from './proxy-transport.js';

// The aggregator's connections to an extension against an HTTPS server in this process: a write
// to the APIService that leaves its TLS settings alone (its status, written by the availability
// controller of whichever replica leads, or a label) neither cuts the requests in flight (watches)
// nor drops the pooled connections; a new caBundle is trusted from the next request on, while a
// request in flight on the old connections runs to its end.
const dir = mkdtempSync(join(tmpdir(), 'proxy-transport-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const file = (name: string) => readFileSync(join(dir, name));
let server: Server;
let port = 0;
let connections = 0;
const held: ServerResponse[] = [];

beforeAll(async () => {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=ca', '-days', '1');
  ssl('req', '-new', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=api', '-addext', 'subjectAltName=DNS:api.wardle.svc');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '1', '-out', 'server.crt', '-days', '1', '-copy_extensions', 'copy');
  ssl('req', '-x509', ...ec, '-keyout', 'other.key', '-out', 'other.crt', '-subj', '/CN=other', '-days', '1');
  server = createServer({ key: file('server.key'), cert: file('server.crt') }, (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/watch') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"type":"ADDED"}\n');
      held.push(res);
      return;
    }
    res.end('ok');
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const apiService = (resourceVersion: string, caFile = 'ca.crt', labels: Record<string, string> = {}): ApiService => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1.wardle.example.io', resourceVersion, labels },
  spec: { group: 'wardle.example.io', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'wardle', name: 'api', port: 443 }, caBundle: file(caFile).toString('base64') },
});

const transport = () => new ProxyTransport(async () => ({ host: '127.0.0.1', port, serverName: 'api.wardle.svc' }), undefined);

/** GET `path` through `t` for `svc`; resolves with the response (its body not read). */
async function get(t: ProxyTransport, svc: ApiService, path: string): Promise<ProxyResponse> {
  const target = await t.target(svc);
  return new Promise((resolve, reject) => {
    t.request(target, 'GET', path, { host: 'api.wardle.svc' }, resolve).then((req) => {
      req.on('error', reject);
      req.end();
    }, reject);
  });
}

const body = (res: ProxyResponse) =>
  new Promise<string>((resolve, reject) => {
    let text = '';
    res.on('data', (c: Buffer) => (text += c.toString('utf8')));
    res.on('end', () => resolve(text));
    res.on('error', reject);
  });

test('a status or label write to the APIService leaves a watch in flight open and reuses the pooled connection', async () => {
  const t = transport();
  const watch = await get(t, apiService('10'), '/watch');
  let cut = false;
  watch.on('aborted', () => (cut = true));
  watch.on('error', () => (cut = true));
  watch.on('close', () => (cut = true));
  const chunks: string[] = [];
  watch.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  expect(await body(await get(t, apiService('10'), '/'))).toBe('ok');
  const before = connections;
  // The availability controller wrote the status (a new resourceVersion), then someone a label.
  expect(await body(await get(t, apiService('11'), '/'))).toBe('ok');
  expect(await body(await get(t, apiService('12', 'ca.crt', { team: 'a' }), '/'))).toBe('ok');
  await new Promise((r) => setTimeout(r, 100));
  held[0]!.write('{"type":"MODIFIED"}\n');
  await new Promise((r) => setTimeout(r, 200));
  expect(cut).toBe(false);
  expect(chunks.join('')).toBe('{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
  expect(connections).toBe(before);
  held[0]!.end();
  t.close();
});

test('a new caBundle is what the next request is verified with; a watch opened before runs to its end', async () => {
  const t = transport();
  const watch = await get(t, apiService('20'), '/watch');
  const text = body(watch);
  expect(await body(await get(t, apiService('20'), '/'))).toBe('ok');
  await expect(get(t, apiService('21', 'other.crt'), '/')).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
  held.at(-1)!.end('{"type":"MODIFIED"}\n');
  expect(await text).toBe('{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
  expect(await body(await get(t, apiService('22'), '/'))).toBe('ok');
  t.close();
});
