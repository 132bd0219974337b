import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { kubectl, startServerProcess, tokenKubeconfig, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';
import { hostAddress } from './support/host-address.js';
import { upgradeCall } from './support/upgrade-call.js';

// The aggregation layer end to end (issue 29): a real HTTPS extension API server in this process
// (its own CA, made here by openssl), behind a Service and Endpoints, registered by an APIService.
// It trusts only client certificates of the front-proxy CA the server publishes in
// cluster-system/extension-apiserver-authentication, and records every request it gets. It
// listens only on a non-loopback address of this host, as an extension in a cluster would: its
// Endpoints could not name loopback (refused as upstream), and this server must reach it there.

/* eslint-disable @typescript-eslint/no-explicit-any */
const GROUP = 'wardle.example.io';
const GV = `/apis/${GROUP}/v1`;
const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

const HOST = hostAddress();
const dir = mkdtempSync(join(tmpdir(), 'aggregation-e2e-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=wardle-test-ca', '-days', '2');
ssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'api.key', '-out', 'api.csr', '-subj', '/CN=api', '-addext', 'subjectAltName=DNS:api.wardle.svc');
ssl('x509', '-req', '-in', 'api.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '9', '-out', 'api.crt', '-days', '1', '-copy_extensions', 'copy');
const caBundle = readFileSync(join(dir, 'ca.crt')).toString('base64');
writeFileSync(join(dir, 'tokens.csv'), 'bob-token,bob,bob-uid,"dev"\n');

/** What the extension saw of one request. */
interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The verified client certificate's CN, or undefined when none verified against the front-proxy CA. */
  clientCn?: string;
  serverName: string | false;
}

const seen: Seen[] = [];
let extension: Server | undefined;
let extensionPort = 0;
let server: ServerProcess;
let admin: KubeconfigClient;
let frontProxyCa = '';
let allowedNames: string[] = [];

const flunder = (name: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'Flunder', metadata: { name, namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: {} });

function startExtension(port = 0): Promise<void> {
  const ext = createServer({ key: readFileSync(join(dir, 'api.key')), cert: readFileSync(join(dir, 'api.crt')), ca: frontProxyCa, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const socket = req.socket as TLSSocket;
    const cn = socket.authorized ? (socket.getPeerCertificate().subject?.CN as string | undefined) : undefined;
    const url = new URL(req.url ?? '/', 'https://x');
    seen.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, headers: req.headers, clientCn: cn, serverName: socket.servername });
    // As an extension built on upstream's library: only the front proxy's certificate, with an allowed name, may speak for a user.
    if (!cn || !allowedNames.includes(cn) || !req.headers['x-remote-user']) {
      res.writeHead(401, { 'Content-Type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 }));
      return;
    }
    const json = (code: number, body: unknown) => res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    const p = url.pathname;
    if (p === GV) {
      return json(200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `${GROUP}/v1`,
        resources: [
          { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['create', 'get', 'list', 'watch'], shortNames: ['fl'] },
          { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get'] },
        ],
      });
    }
    if (p === `/openapi/v3/apis/${GROUP}/v1`) {
      return json(200, {
        openapi: '3.0.0',
        info: { title: 'wardle', version: 'v1' },
        // kubectl explain finds a kind through the GET operation of its resource's path.
        paths: {
          [`${GV}/namespaces/{namespace}/flunders/{name}`]: {
            get: {
              operationId: 'readFlunder',
              'x-kubernetes-action': 'get',
              'x-kubernetes-group-version-kind': { group: GROUP, version: 'v1', kind: 'Flunder' },
              responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/io.example.wardle.v1.Flunder' } } } } },
            },
          },
        },
        components: {
          schemas: {
            'io.example.wardle.v1.Flunder': {
              type: 'object',
              description: 'A flunder, for testing.',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: { type: 'object', description: 'What the flunder wants.', properties: { payload: { type: 'string', description: 'Opaque payload.' } } },
              },
              'x-kubernetes-group-version-kind': [{ group: GROUP, version: 'v1', kind: 'Flunder' }],
            },
          },
        },
      });
    }
    if (p === `${GV}/namespaces/default/flunders` && url.searchParams.get('watch')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: flunder('watched') })}\n`);
      return; // held open until the client leaves
    }
    if (p === `${GV}/namespaces/default/flunders` && req.method === 'POST') {
      // Echoes what it was sent, as a server that stores it would.
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        json(201, { ...body, metadata: { ...body.metadata, namespace: 'default', uid: 'made-by-extension', creationTimestamp: '2026-01-01T00:00:00Z' } });
      });
      return;
    }
    if (p === `${GV}/namespaces/default/flunders`) return json(200, { kind: 'FlunderList', apiVersion: `${GROUP}/v1`, metadata: { resourceVersion: '1' }, items: [flunder('first'), flunder('second')] });
    if (p === `${GV}/namespaces/default/flunders/hang`) return; // never answers
    if (p === `${GV}/namespaces/default/flunders/trickle`) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"kind":'); // and never finishes
      return;
    }
    if (p === `${GV}/namespaces/default/flunders/reset`) return socket.destroy();
    if (p === `${GV}/namespaces/default/flunders/garbage`) {
      socket.write('this is not HTTP\r\n\r\n');
      return socket.destroy();
    }
    if (p.startsWith(`${GV}/namespaces/default/flunders/`)) return json(200, flunder(p.split('/').pop()!));
    json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
  });
  // exec-style protocol switches: after the 101, bytes come back upper-cased.
  ext.on('upgrade', (req: IncomingMessage, socket: TLSSocket) => {
    const cn = socket.authorized ? (socket.getPeerCertificate().subject?.CN as string | undefined) : undefined;
    seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, clientCn: cn, serverName: socket.servername });
    if (!cn || !allowedNames.includes(cn) || !req.url?.endsWith('/exec')) return void socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: cluster-echo\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(d.toString('utf8').toUpperCase()));
    socket.on('error', () => socket.destroy());
  });
  extension = ext;
  return new Promise((resolve) => ext.listen(port, HOST, () => resolve()));
}

async function stopExtension(): Promise<void> {
  const ext = extension;
  extension = undefined;
  if (!ext) return;
  ext.closeAllConnections();
  await new Promise<void>((resolve) => ext.close(() => resolve()));
}

/** One request as `token` (admin's when absent), with extra headers; the body is parsed when JSON. */
function call(method: string, path: string, opts: { token?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<{ status: number; json: any }> {
  const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  const headers: Record<string, string> = { Authorization: `Bearer ${opts.token ?? admin.token}`, Accept: 'application/json', ...opts.headers };
  if (payload) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
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
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Retries `check` every 200 ms, at most `tries` times. */
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

const available = async (name: string) => (await call('GET', `${APISERVICES}/${name}`)).json?.status?.conditions?.find((c: any) => c.type === 'Available');
const apiService = (name: string, group: string, service: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name },
  spec: { group, version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service, caBundle, ...extra },
});

beforeAll(async () => {
  server = await startServerProcess(['--authorization-mode=RBAC', `--token-auth-file=${join(dir, 'tokens.csv')}`, '--apiservice-availability-check-period=1s', '--request-timeout=30s', '--runtime-config=apiregistration.k8s.io/v1beta1=true']);
  admin = new KubeconfigClient(server.kubeconfig);
  // What an extension reads to trust this server's forwarded identities.
  const cm = await call('GET', '/api/v1/namespaces/cluster-system/configmaps/extension-apiserver-authentication');
  expect(cm.status).toBe(200);
  frontProxyCa = cm.json.data['requestheader-client-ca-file'];
  allowedNames = JSON.parse(cm.json.data['requestheader-allowed-names']);
  expect(JSON.parse(cm.json.data['requestheader-username-headers'])).toEqual(['X-Remote-User']);
  expect(JSON.parse(cm.json.data['requestheader-group-headers'])).toEqual(['X-Remote-Group']);
  expect(JSON.parse(cm.json.data['requestheader-extra-headers-prefix'])).toEqual(['X-Remote-Extra-']);
  await startExtension();
  extensionPort = (extension!.address() as AddressInfo).port;
  for (const [path, body] of [
    ['/api/v1/namespaces', { metadata: { name: 'wardle' } }],
    ['/api/v1/namespaces/wardle/services', { metadata: { name: 'api' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } }],
    ['/api/v1/namespaces/wardle/endpoints', { metadata: { name: 'api' }, subsets: [{ addresses: [{ ip: HOST }], ports: [{ name: 'https', port: extensionPort }] }] }],
    [APISERVICES, apiService(`v1.${GROUP}`, GROUP, { namespace: 'wardle', name: 'api' })],
  ] as const) {
    const r = await call('POST', path, { body });
    if (r.status !== 201) throw new Error(`set-up ${path}: ${JSON.stringify(r.json)}`);
  }
  await eventually(async () => expect(await available(`v1.${GROUP}`)).toMatchObject({ status: 'True', reason: 'Passed' }));
}, 120_000);

afterAll(async () => {
  admin?.close();
  await server?.stop();
  await stopExtension();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

test('every served group version has a Local APIService, and the server keeps them', async () => {
  const list = await call('GET', APISERVICES);
  const byName = new Map<string, any>(list.json.items.map((s: any) => [s.metadata.name, s]));
  for (const name of ['v1.', 'v1.apps', 'v1.rbac.authorization.k8s.io', 'v1.apiregistration.k8s.io']) {
    expect(byName.get(name)?.status?.conditions).toEqual([expect.objectContaining({ type: 'Available', status: 'True', reason: 'Local' })]);
    expect(byName.get(name)?.spec?.service).toBeUndefined();
  }
  expect(byName.get('v1.')?.spec).toMatchObject({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
  const k = await kubectl(server, ['get', 'apiservices']);
  expect(k.stdout).toMatch(/NAME\s+SERVICE\s+AVAILABLE\s+AGE/);
  expect(k.stdout).toMatch(new RegExp(`v1\\.${GROUP.replace(/\./g, '\\.')}\\s+wardle/api\\s+True\\s`));
  expect(k.stdout).toMatch(/v1\.apps\s+Local\s+True\s/);
}, 60_000);

test('extension API servers can be granted what they need: reading the ConfigMap, delegating reviews', async () => {
  const reader = await call('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/cluster-system/roles/extension-apiserver-authentication-reader');
  expect(reader.json.rules).toEqual([{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['extension-apiserver-authentication'] }]);
  const delegator = await call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:auth-delegator');
  expect(delegator.json.rules).toEqual([
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'] },
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'] },
  ]);
}, 60_000);

test('a CRD group version gets a Local APIService that goes with it', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gizmos.toys.example.io' },
    spec: {
      group: 'toys.example.io',
      scope: 'Namespaced',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
  await eventually(async () => {
    const s = await call('GET', `${APISERVICES}/v1.toys.example.io`);
    expect(s.json.spec).toMatchObject({ group: 'toys.example.io', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(s.json.status.conditions[0]).toMatchObject({ status: 'True', reason: 'Local' });
  });
  expect((await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.toys.example.io')).status).toBe(200);
  await eventually(async () => expect((await call('GET', `${APISERVICES}/v1.toys.example.io`)).status).toBe(404));
}, 60_000);

test('apiregistration v1beta1 is served again under --runtime-config, deprecated', async () => {
  const r = await admin.raw('GET', `/apis/apiregistration.k8s.io/v1beta1/apiservices/v1.${GROUP}`, { Accept: 'application/json' });
  expect(r.status).toBe(200);
  expect(JSON.parse(r.body.toString('utf8'))).toMatchObject({ apiVersion: 'apiregistration.k8s.io/v1beta1', kind: 'APIService', spec: { group: GROUP, service: { namespace: 'wardle', name: 'api', port: 443 } } });
}, 60_000);

test('a bad APIService is 422 naming the fields', async () => {
  const bad = await call('POST', APISERVICES, {
    body: {
      metadata: { name: 'v1.not-matching.io' },
      spec: { group: 'example.io', version: 'v1', groupPriorityMinimum: 0, versionPriority: 1001, service: { namespace: 'x', name: 'y' }, caBundle, insecureSkipTLSVerify: true },
    },
  });
  expect(bad.status).toBe(422);
  expect(bad.json.reason).toBe('Invalid');
  expect(bad.json.details.causes.map((c: { field: string }) => c.field).sort()).toEqual(['metadata.name', 'spec.groupPriorityMinimum', 'spec.insecureSkipTLSVerify', 'spec.versionPriority']);
  const noService = await call('POST', APISERVICES, { body: { metadata: { name: 'v1.local.io' }, spec: { group: 'local.io', version: 'v1', groupPriorityMinimum: 10, versionPriority: 10, caBundle } } });
  expect(noService.status).toBe(422);
  expect(noService.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.caBundle']);
}, 60_000);

test('discovery lists the extension group; kubectl api-resources and get work through the front door', async () => {
  const apis = await call('GET', '/apis');
  expect(apis.json.groups.find((g: any) => g.name === GROUP)).toEqual({ name: GROUP, versions: [{ groupVersion: `${GROUP}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${GROUP}/v1`, version: 'v1' } });
  expect((await call('GET', `/apis/${GROUP}`)).json).toMatchObject({ kind: 'APIGroup', name: GROUP });
  await eventually(async () => {
    const agg = await call('GET', '/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const entry = agg.json.items.find((i: any) => i.metadata.name === GROUP);
    expect(entry.versions[0].resources[0]).toMatchObject({ resource: 'flunders', scope: 'Namespaced', shortNames: ['fl'], subresources: [{ subresource: 'status' }] });
  });
  const resources = await kubectl(server, ['api-resources', '--api-group', GROUP]);
  expect(resources.stdout).toMatch(/flunders\s+fl\s+wardle\.example\.io\/v1\s+true\s+Flunder/);
  const got = await kubectl(server, ['get', 'flunders', '-n', 'default']);
  expect(got.stderr).toBe('');
  expect(got.stdout).toMatch(/first/);
  expect(got.stdout).toMatch(/second/);
  const one = await kubectl(server, ['get', 'fl', 'third', '-n', 'default', '-o', 'jsonpath={.metadata.name}']);
  expect(one.stdout).toBe('third');
}, 60_000);

test("the extension's OpenAPI v3 document is listed in /openapi/v3: kubectl explain works", async () => {
  await eventually(async () => {
    const index = await call('GET', '/openapi/v3');
    expect(index.json.paths[`apis/${GROUP}/v1`].serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/apis/${GROUP}/v1\\?hash=[0-9A-F]+$`));
    expect(index.json.paths['api/v1']).toBeDefined();
    // Every process of the replica fetched it (requests are spread over them).
    for (let i = 0; i < 4; i++) {
      const doc = await call('GET', index.json.paths[`apis/${GROUP}/v1`].serverRelativeURL);
      expect(doc.json.components?.schemas?.['io.example.wardle.v1.Flunder']?.description).toBe('A flunder, for testing.');
    }
  });
  const explain = await kubectl(server, ['explain', 'flunders.spec']);
  expect(explain.stderr).toBe('');
  expect(explain.stdout).toContain('What the flunder wants.');
  expect(explain.stdout).toContain('Opaque payload.');
}, 60_000);

test('a create streams its body to the extension (kubectl over HTTP/2, and HTTP/1.1)', async () => {
  const file = join(dir, 'flunder.json');
  const big = 'x'.repeat(256 * 1024);
  writeFileSync(file, JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Flunder', metadata: { name: 'made' }, spec: { payload: big } }));
  const k = await kubectl(server, ['create', '-n', 'default', '-f', file, '-o', 'jsonpath={.metadata.uid}:{.spec.payload}']);
  expect(k.stderr).toBe('');
  expect(k.stdout).toBe(`made-by-extension:${big}`);
  const r = await call('POST', `${GV}/namespaces/default/flunders`, { body: { apiVersion: `${GROUP}/v1`, kind: 'Flunder', metadata: { name: 'made2' } } });
  expect([r.status, r.json.metadata.uid, r.json.metadata.name]).toEqual([201, 'made-by-extension', 'made2']);
}, 60_000);

test('the extension sees the identity as X-Remote-* from the front proxy, never the caller credentials', async () => {
  const before = seen.length;
  const r = await call('GET', `${GV}/namespaces/default/flunders/probe-identity`);
  expect(r.status).toBe(200);
  const req = seen.slice(before).find((s) => s.path.endsWith('/probe-identity'))!;
  expect(req.clientCn).toBe('front-proxy-client');
  expect(req.serverName).toBe('api.wardle.svc');
  expect(req.headers['authorization']).toBeUndefined();
  expect(req.headers['x-remote-user']).toBe('admin');
  expect(req.headers['x-remote-group']).toContain('system:masters');
}, 60_000);

test('forged X-Remote-* and impersonation headers never reach the extension; impersonation is resolved here', async () => {
  const before = seen.length;
  const forged = await call('GET', `${GV}/namespaces/default/flunders/probe-forged`, {
    token: 'bob-token',
    headers: { 'X-Remote-User': 'system:admin', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Scopes': 'everything', 'X-Remote-Uid': '0' },
  });
  // bob has no grant for flunders: 403 here, whatever the forged headers say.
  expect(forged.status).toBe(403);
  expect(seen.slice(before).some((s) => s.path.endsWith('/probe-forged'))).toBe(false);

  // The admin, with forged headers too, impersonating carol with an extra: the extension sees carol only.
  const imp = await call('GET', `${GV}/namespaces/default/flunders/probe-impersonated`, {
    headers: {
      'Impersonate-User': 'carol',
      'Impersonate-Group': 'wardle-readers',
      'Impersonate-Extra-Scopes': 'view',
      'X-Remote-User': 'mallory',
      'X-Remote-Group': 'system:masters',
      'X-Remote-Extra-Scopes': 'admin',
    },
  });
  // carol is not allowed either, until granted.
  expect(imp.status).toBe(403);
  const grant = [
    ['/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'flunder-reader' }, rules: [{ apiGroups: [GROUP], resources: ['flunders'], verbs: ['get', 'list', 'watch'] }] }],
    [
      '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      {
        metadata: { name: 'flunder-readers' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'flunder-reader' },
        subjects: [
          { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'wardle-readers' },
          { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' },
        ],
      },
    ],
  ] as const;
  for (const [path, body] of grant) expect((await call('POST', path, { body })).status).toBe(201);
  await eventually(async () => {
    expect((await call('GET', `${GV}/namespaces/default/flunders/probe-impersonated`, { headers: { 'Impersonate-User': 'carol', 'Impersonate-Group': 'wardle-readers', 'Impersonate-Extra-Scopes': 'view', 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Scopes': 'admin' } })).status).toBe(200);
  });
  const carol = seen.filter((s) => s.path.endsWith('/probe-impersonated')).pop()!;
  expect(carol.headers['x-remote-user']).toBe('carol');
  expect(carol.headers['x-remote-group']).toBe('wardle-readers, system:authenticated');
  expect(carol.headers['x-remote-extra-scopes']).toBe('view');
  expect(Object.keys(carol.headers).filter((h) => h.startsWith('impersonate-'))).toEqual([]);
  expect(carol.headers['authorization']).toBeUndefined();

  const bob = await call('GET', `${GV}/namespaces/default/flunders/probe-forged`, { token: 'bob-token', headers: { 'X-Remote-User': 'system:admin', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Scopes': 'everything', 'X-Remote-Uid': '0' } });
  expect(bob.status).toBe(200);
  const seenBob = seen.filter((s) => s.path.endsWith('/probe-forged')).pop()!;
  expect(seenBob.headers['x-remote-user']).toBe('bob');
  expect(seenBob.headers['x-remote-group']).toBe('dev, system:authenticated');
  expect(seenBob.headers['x-remote-extra-scopes']).toBeUndefined();
  expect(seenBob.headers['x-remote-uid']).toBeUndefined();
  expect(seenBob.headers['authorization']).toBeUndefined();
  // bob may read flunders, not write them: a forbidden verb is still answered here.
  const before2 = seen.length;
  expect((await call('DELETE', `${GV}/namespaces/default/flunders/x`, { token: 'bob-token' })).status).toBe(403);
  // Only the availability controller's periodic discovery checks may have reached it meanwhile.
  expect(seen.slice(before2).filter((s) => s.path.includes('/flunders'))).toEqual([]);
}, 60_000);

test('a watch streams through the proxy', async () => {
  const events: any[] = [];
  const w = admin.watch(`${GV}/namespaces/default/flunders?watch=1`, (e) => events.push(e));
  await eventually(async () => expect(events).toEqual([{ type: 'ADDED', object: expect.objectContaining({ metadata: expect.objectContaining({ name: 'watched' }) }) }]), 50);
  w.stop();
  await w.ended;
}, 60_000);

/** An exec-style upgrade through the front door as the bearer of `token`. */
const upgrade = (path: string, token: string, send: string) => upgradeCall(new URL(path, server.url), admin.ca, token, send);

test('an upgrade (exec-style) request is authorized here, then joined to the extension', async () => {
  const before = seen.length;
  // bob may read flunders, not their exec subresource: refused here, the extension sees nothing.
  expect(await upgrade(`${GV}/namespaces/default/flunders/x/exec`, 'bob-token', 'hi')).toEqual({ status: 403 });
  expect(seen.slice(before).filter((s) => s.path.includes('/flunders'))).toEqual([]);
  expect(await upgrade(`${GV}/namespaces/default/flunders/x/exec`, admin.token, 'hello through')).toEqual({ status: 101, echo: 'HELLO THROUGH' });
  const up = seen.slice(before).find((s) => s.path.endsWith('/exec'))!;
  expect(up.clientCn).toBe('front-proxy-client');
  expect(up.headers['x-remote-user']).toBe('admin');
  expect(up.headers['authorization']).toBeUndefined();
  expect(up.headers['upgrade']).toBe('cluster-echo');
  // Paths this server serves itself still answer an upgrade request, then close.
  expect((await upgrade('/api/v1/namespaces/default', admin.token, 'x')).status).toBe(200);
}, 60_000);

test('an extension that hangs, resets or answers garbage gets a clean 504 or 503 Status, and other requests go on', async () => {
  const hang = call('GET', `${GV}/namespaces/default/flunders/hang?timeout=2s`);
  // Meanwhile the server answers others at once.
  const t0 = Date.now();
  expect((await call('GET', '/api/v1/namespaces/default')).status).toBe(200);
  expect(Date.now() - t0).toBeLessThan(1500);
  const hung = await hang;
  expect(hung.status).toBe(504);
  expect(hung.json).toMatchObject({ kind: 'Status', reason: 'Timeout', code: 504 });
  // An answer that starts but never ends is cut at the deadline too.
  const t1 = Date.now();
  const trickle = await new Promise<string>((resolve) => {
    const req = request(new URL(`${GV}/namespaces/default/flunders/trickle?timeout=2s`, server.url), { ca: admin.ca, agent: false, headers: { Authorization: `Bearer ${admin.token}` } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve('ended'));
      res.on('error', () => resolve('cut'));
      res.on('close', () => resolve('cut'));
    });
    req.on('error', () => resolve('cut'));
    req.end();
  });
  expect(trickle).toBe('cut');
  expect(Date.now() - t1).toBeLessThan(10_000);
  for (const path of ['reset', 'garbage']) {
    const r = await call('GET', `${GV}/namespaces/default/flunders/${path}`);
    expect([path, r.status, r.json.kind, r.json.reason]).toEqual([path, 503, 'Status', 'ServiceUnavailable']);
  }
  expect((await call('GET', `${GV}/namespaces/default/flunders/fine`)).status).toBe(200);
}, 60_000);

test('availability follows the Service and its Endpoints, with upstream reasons; unavailable groups are 503 and out of discovery', async () => {
  const cases = [
    ['v1.nosvc.example.io', 'nosvc.example.io', { namespace: 'wardle', name: 'missing' }, 'ServiceNotFound'],
    ['v1.noeps.example.io', 'noeps.example.io', { namespace: 'wardle', name: 'noeps' }, 'EndpointsNotFound'],
    ['v1.noaddr.example.io', 'noaddr.example.io', { namespace: 'wardle', name: 'noaddr' }, 'MissingEndpoints'],
  ] as const;
  for (const name of ['noeps', 'noaddr']) {
    expect((await call('POST', '/api/v1/namespaces/wardle/services', { body: { metadata: { name }, spec: { ports: [{ name: 'https', port: 443 }] } } })).status).toBe(201);
  }
  expect((await call('POST', '/api/v1/namespaces/wardle/endpoints', { body: { metadata: { name: 'noaddr' }, subsets: [{ notReadyAddresses: [{ ip: HOST }], ports: [{ name: 'https', port: extensionPort }] }] } })).status).toBe(201);
  for (const [name, group, service] of cases) expect((await call('POST', APISERVICES, { body: apiService(name, group, service) })).status).toBe(201);
  for (const [name, group, , reason] of cases) {
    await eventually(async () => expect(await available(name)).toMatchObject({ status: 'False', reason }));
    await eventually(async () => {
      const r = await call('GET', `/apis/${group}/v1/things`);
      expect([name, r.status, r.json.reason]).toEqual([name, 503, 'ServiceUnavailable']);
    });
    expect((await call('GET', '/apis')).json.groups.map((g: any) => g.name)).not.toContain(group);
  }
  const k = await kubectl(server, ['get', 'apiservice', 'v1.nosvc.example.io']);
  expect(k.stdout).toMatch(/v1\.nosvc\.example\.io\s+wardle\/missing\s+False \(ServiceNotFound\)/);
}, 60_000);

test('stopping the extension makes its APIService unavailable (503); deleting it drops the group from discovery', async () => {
  await stopExtension();
  await eventually(async () => expect(await available(`v1.${GROUP}`)).toMatchObject({ status: 'False', reason: 'FailedDiscoveryCheck' }));
  // Every process of the replica follows the APIService by its own watch: soon, not at once.
  await eventually(async () => {
    const r = await call('GET', `${GV}/namespaces/default/flunders`);
    expect([r.status, r.json.reason]).toEqual([503, 'ServiceUnavailable']);
    expect((await call('GET', '/apis')).json.groups.map((g: any) => g.name)).not.toContain(GROUP);
  });
  // Back on the same port: available again.
  await startExtension(extensionPort);
  await eventually(async () => expect(await available(`v1.${GROUP}`)).toMatchObject({ status: 'True', reason: 'Passed' }));
  await eventually(async () => expect((await call('GET', `${GV}/namespaces/default/flunders`)).status).toBe(200));
  expect((await call('DELETE', `${APISERVICES}/v1.${GROUP}`)).status).toBe(200);
  await eventually(async () => {
    expect((await call('GET', '/apis')).json.groups.map((g: any) => g.name)).not.toContain(GROUP);
    expect((await call('GET', `${GV}/namespaces/default/flunders`)).status).toBe(404);
  });
  const metrics = await call('GET', '/metrics');
  expect(metrics.json).toMatch(/\naggregator_unavailable_apiservice\{[^}]*name="v1\.nosvc\.example\.io"[^}]*\} 1\n/);
  expect(metrics.json).toMatch(/\naggregator_unavailable_apiservice_total\{[^}]*name="v1\.nosvc\.example\.io",reason="ServiceNotFound"[^}]*\} [1-9]/);
}, 60_000);

test('a user without grants on apiservices cannot register one', async () => {
  const env = await tokenKubeconfig(server, 'bob', 'bob-token');
  const file = join(dir, 'apiservice.json');
  writeFileSync(file, JSON.stringify(apiService('v1.evil.example.io', 'evil.example.io', { namespace: 'wardle', name: 'api' })));
  const k = await kubectl(server, ['create', '-f', file], env);
  expect(k.code).not.toBe(0);
  expect(k.stderr).toContain('forbidden');
}, 60_000);
