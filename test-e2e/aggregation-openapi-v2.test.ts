import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';
import { hostAddress } from './support/host-address.js';

// Extensions' OpenAPI v2 documents merged into /openapi/v2 (issue 29), as upstream's aggregator
// does: fetched from each Available extension (ETag and If-None-Match), its own group version's
// paths and the definitions they reach added (renamed `_v2` on a conflict), a path served here
// kept; a failing extension (garbage, hanging, too deep) leaves the rest served. Two real HTTPS
// extensions in this process on a non-loopback address behind their Services and Endpoints.

/* eslint-disable @typescript-eslint/no-explicit-any */
const HOST = hostAddress();
const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const WARDLE = 'wardle.example.io';
const BROKEN = 'broken.example.io';

const dir = mkdtempSync(join(tmpdir(), 'aggregation-v2-e2e-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=v2-test-ca', '-days', '2');
for (const [i, name] of ['wardle', 'broken'].entries()) {
  ssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:api.${name}.svc`);
  ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', String(31 + i), '-out', `${name}.crt`, '-days', '1', '-copy_extensions', 'copy');
}
const caBundle = readFileSync(join(dir, 'ca.crt')).toString('base64');

let server: ServerProcess;
let admin: KubeconfigClient;
const extensions: Server[] = [];
/** Requests for /openapi/v2 each extension got: [If-None-Match sent, status answered]. */
const v2Fetches: Record<string, Array<[string | undefined, number]>> = { wardle: [], broken: [] };
/** What the wardle extension's document says of a flunder (changed by a test). */
let flunderDescription = 'A flunder, for testing.';
/** How the broken extension answers /openapi/v2. */
let brokenMode: 'garbage' | 'hang' | 'deep' | 'fine' = 'garbage';

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
function wardleDoc(): any {
  return {
    swagger: '2.0',
    info: { title: 'wardle', version: 'v0.1' },
    paths: {
      [`/apis/${WARDLE}/v1/namespaces/{namespace}/flunders/{name}`]: {
        get: {
          operationId: 'readWardleV1NamespacedFlunder',
          produces: ['application/json'],
          responses: { '200': { description: 'OK', schema: ref('io.example.wardle.v1.Flunder') } },
          'x-kubernetes-action': 'get',
          'x-kubernetes-group-version-kind': { group: WARDLE, version: 'v1', kind: 'Flunder' },
        },
        parameters: [{ $ref: '#/parameters/name-wardle' }],
      },
      // Paths that are not the extension's to add: one served here, one of another group.
      '/api/v1/namespaces': { get: { operationId: 'hijackNamespaces', responses: { '200': { description: 'mine', schema: ref('io.example.wardle.v1.Flunder') } } } },
      '/apis/apps/v1/deployments': { get: { operationId: 'hijackDeployments', responses: { '200': { description: 'mine' } } } },
    },
    definitions: {
      'io.example.wardle.v1.Flunder': {
        type: 'object',
        description: flunderDescription,
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'),
          spec: { type: 'object', description: 'What the flunder wants.', properties: { payload: { type: 'string', description: 'Opaque payload.' } } },
        },
        'x-kubernetes-group-version-kind': [{ group: WARDLE, version: 'v1', kind: 'Flunder' }],
      },
      // An ObjectMeta of another apimachinery than this server's: kept apart as ..._v2.
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object', description: "wardle's own ObjectMeta", properties: { name: { type: 'string' } } },
      'io.example.wardle.v1.Unused': { type: 'object' },
    },
    parameters: { 'name-wardle': { in: 'path', name: 'name', required: true, type: 'string', uniqueItems: true } },
  };
}

function startExtension(name: string, frontProxyCa: string, onV2: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const group = name === 'wardle' ? WARDLE : BROKEN;
  const ext = createServer({ key: readFileSync(join(dir, `${name}.key`)), cert: readFileSync(join(dir, `${name}.crt`)), ca: frontProxyCa, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const socket = req.socket as TLSSocket;
    const cn = socket.authorized ? (socket.getPeerCertificate().subject?.CN as string | undefined) : undefined;
    if (cn !== 'front-proxy-client' || !req.headers['x-remote-user']) return void res.writeHead(401).end();
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    if (path === `/apis/${group}/v1`) {
      const resource = name === 'wardle' ? { name: 'flunders', singularName: 'flunder', kind: 'Flunder' } : { name: 'things', singularName: 'thing', kind: 'Thing' };
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/v1`, resources: [{ ...resource, namespaced: true, verbs: ['get', 'list'] }] }));
    }
    if (path === '/openapi/v2') return onV2(req, res);
    res.writeHead(404).end();
  });
  extensions.push(ext);
  return new Promise((resolve) => ext.listen(0, HOST, () => resolve((ext.address() as AddressInfo).port)));
}

function call(method: string, path: string, opts: { body?: unknown; accept?: string; contentType?: string } = {}): Promise<{ status: number; json: any; raw: Buffer; headers: Record<string, string | string[] | undefined>; ms: number }> {
  const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  const headers: Record<string, string> = { Authorization: `Bearer ${admin.token}`, Accept: opts.accept ?? 'application/json' };
  if (payload) {
    headers['Content-Type'] = opts.contentType ?? 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { method, headers, ca: admin.ca, agent: false, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json, raw, headers: res.headers, ms: Date.now() - t0 });
      });
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

/** Changes the APIService's labels: a new resourceVersion, which makes every process fetch its documents again. */
const touch = (name: string, n: number) => call('PATCH', `${APISERVICES}/${name}`, { body: { metadata: { labels: { touched: String(n) } } }, contentType: 'application/merge-patch+json' });

beforeAll(async () => {
  server = await startServerProcess(['--apiservice-availability-check-period=1s']);
  admin = new KubeconfigClient(server.kubeconfig);
  const cm = await call('GET', '/api/v1/namespaces/cluster-system/configmaps/extension-apiserver-authentication');
  const frontProxyCa = cm.json.data['requestheader-client-ca-file'];
  const wardlePort = await startExtension('wardle', frontProxyCa, (req, res) => {
    const body = JSON.stringify(wardleDoc());
    const etag = `"${Buffer.from(body).toString('base64').length}-${flunderDescription.length}"`;
    const inm = req.headers['if-none-match'];
    const status = inm === etag ? 304 : 200;
    v2Fetches['wardle']!.push([inm, status]);
    if (status === 304) return void res.writeHead(304, { etag }).end();
    res.writeHead(200, { 'content-type': 'application/json', etag });
    res.end(body);
  });
  const brokenPort = await startExtension('broken', frontProxyCa, (_req, res) => {
    v2Fetches['broken']!.push([undefined, 0]);
    if (brokenMode === 'hang') return; // never answers
    res.writeHead(200, { 'content-type': 'application/json' });
    if (brokenMode === 'garbage') return void res.end('{"swagger": "2.0", "paths": {');
    if (brokenMode === 'deep') return void res.end(`{"swagger":"2.0","paths":{"/apis/${BROKEN}/v1/x":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}}`);
    res.end(JSON.stringify({ swagger: '2.0', paths: { [`/apis/${BROKEN}/v1/things`]: { get: { operationId: 'listThings', responses: { '200': { description: 'OK', schema: ref('io.example.broken.Thing') } } } } }, definitions: { 'io.example.broken.Thing': { type: 'object', description: 'A thing, at last.' } } }));
  });
  for (const [name, group, port] of [['wardle', WARDLE, wardlePort], ['broken', BROKEN, brokenPort]] as const) {
    for (const [path, body] of [
      ['/api/v1/namespaces', { metadata: { name } }],
      [`/api/v1/namespaces/${name}/services`, { metadata: { name: 'api' }, spec: { ports: [{ name: 'https', port: 443 }] } }],
      [`/api/v1/namespaces/${name}/endpoints`, { metadata: { name: 'api' }, subsets: [{ addresses: [{ ip: HOST }], ports: [{ name: 'https', port }] }] }],
      [APISERVICES, { metadata: { name: `v1.${group}` }, spec: { group, version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: name, name: 'api' }, caBundle } }],
    ] as const) {
      const r = await call('POST', path, { body });
      if (r.status !== 201) throw new Error(`set-up ${path}: ${JSON.stringify(r.json)}`);
    }
  }
}, 120_000);

afterAll(async () => {
  admin?.close();
  await server?.stop();
  for (const ext of extensions) {
    ext.closeAllConnections();
    await new Promise<void>((resolve) => ext.close(() => resolve()));
  }
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

const FLUNDER_PATH = `/apis/${WARDLE}/v1/namespaces/{namespace}/flunders/{name}`;

test("/openapi/v2 has the extension's paths and the definitions they reach; a path served here stays this server's", async () => {
  let doc: any;
  // Every process of the replica fetches on its own: ask until the ones answering have it.
  await eventually(async () => {
    for (let i = 0; i < 4; i++) {
      doc = (await call('GET', '/openapi/v2')).json;
      expect(doc.paths[FLUNDER_PATH]?.get?.operationId).toBe('readWardleV1NamespacedFlunder');
    }
  });
  expect(doc.paths[FLUNDER_PATH].parameters).toEqual([{ $ref: '#/parameters/name-wardle' }]);
  expect(doc.parameters['name-wardle']).toEqual({ in: 'path', name: 'name', required: true, type: 'string', uniqueItems: true });
  expect(doc.definitions['io.example.wardle.v1.Flunder'].description).toBe('A flunder, for testing.');
  // This server's ObjectMeta stays; the extension's differing one is renamed, its refs follow.
  expect(doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].description).not.toBe("wardle's own ObjectMeta");
  expect(doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2'].description).toBe("wardle's own ObjectMeta");
  expect(doc.definitions['io.example.wardle.v1.Flunder'].properties.metadata).toEqual(ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2'));
  expect(doc.definitions['io.example.wardle.v1.Unused']).toBeUndefined();
  expect(doc.paths['/api/v1/namespaces'].get.operationId).toBe('listCoreV1Namespace');
  expect(doc.paths['/apis/apps/v1/deployments'].get.operationId).not.toBe('hijackDeployments');
  // The broken extension's garbage added nothing and broke nothing.
  expect(Object.keys(doc.paths).some((p) => p.startsWith(`/apis/${BROKEN}/`))).toBe(false);
  expect(doc.paths['/api/v1/namespaces/{namespace}/configmaps']).toBeDefined();
}, 60_000);

test('the Protobuf form carries the extension too; kubectl explain reads it from OpenAPI v2', async () => {
  const pb = await call('GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
  expect(pb.status).toBe(200);
  expect(pb.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  expect(pb.raw.includes(Buffer.from('readWardleV1NamespacedFlunder'))).toBe(true);
  expect(pb.raw.includes(Buffer.from('io.example.wardle.v1.Flunder'))).toBe(true);
  await eventually(async () => {
    const explain = await kubectl(server, ['explain', 'flunders.spec', '--output=plaintext-openapiv2']);
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toContain('What the flunder wants.');
    expect(explain.stdout).toContain('Opaque payload.');
  }, 20);
}, 60_000);

test('a changed APIService is fetched again with If-None-Match (304 keeps the document); a new document replaces it', async () => {
  const before = v2Fetches['wardle']!.length;
  expect((await touch(`v1.${WARDLE}`, 1)).status).toBe(200);
  await eventually(async () => expect(v2Fetches['wardle']!.slice(before).some(([inm, status]) => inm !== undefined && status === 304)).toBe(true));
  expect((await call('GET', '/openapi/v2')).json.definitions['io.example.wardle.v1.Flunder'].description).toBe('A flunder, for testing.');
  flunderDescription = 'A flunder, revised.';
  expect((await touch(`v1.${WARDLE}`, 2)).status).toBe(200);
  await eventually(async () => {
    for (let i = 0; i < 4; i++) expect((await call('GET', '/openapi/v2')).json.definitions['io.example.wardle.v1.Flunder'].description).toBe('A flunder, revised.');
  });
}, 60_000);

test('an extension whose document hangs, is garbage or nests too deep leaves /openapi/v2 served at once; a good one is merged', async () => {
  for (const [i, mode] of (['hang', 'deep', 'garbage'] as const).entries()) {
    brokenMode = mode;
    const before = v2Fetches['broken']!.length;
    expect((await touch(`v1.${BROKEN}`, 10 + i)).status).toBe(200);
    await eventually(async () => expect(v2Fetches['broken']!.length).toBeGreaterThan(before));
    // While the fetch hangs (up to its 5 s bound) or after it failed, the document is served at once, whole.
    for (let j = 0; j < 3; j++) {
      const r = await call('GET', '/openapi/v2');
      expect([mode, r.status, r.ms < 2000]).toEqual([mode, 200, true]);
      expect(r.json.paths[FLUNDER_PATH]).toBeDefined();
      expect(Object.keys(r.json.paths).some((p) => p.startsWith(`/apis/${BROKEN}/`))).toBe(false);
    }
    expect((await call('GET', '/api/v1/namespaces/default')).status).toBe(200);
  }
  brokenMode = 'fine';
  expect((await touch(`v1.${BROKEN}`, 20)).status).toBe(200);
  await eventually(async () => {
    for (let i = 0; i < 4; i++) expect((await call('GET', '/openapi/v2')).json.definitions['io.example.broken.Thing']?.description).toBe('A thing, at last.');
  });
}, 90_000);

test("deleting the APIService takes its paths out of /openapi/v2", async () => {
  expect((await call('DELETE', `${APISERVICES}/v1.${WARDLE}`)).status).toBe(200);
  await eventually(async () => {
    for (let i = 0; i < 4; i++) {
      const doc = (await call('GET', '/openapi/v2')).json;
      expect(doc.paths[FLUNDER_PATH]).toBeUndefined();
      expect(doc.definitions['io.example.wardle.v1.Flunder']).toBeUndefined();
    }
  });
}, 60_000);
