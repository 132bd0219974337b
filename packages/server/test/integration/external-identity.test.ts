import { createServer, request as httpsRequest, type Server } from 'node:https';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCertificates, issueClientCertificate } from '../../src/certs.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// Webhook token authentication (SPEC 5.2) against a TokenReview service the test runs over HTTPS
// with its own CA and a client certificate, in v1 and v1beta1; and the authenticating proxy
// (SPEC 5.3) with a client certificate of its own CA.
let dir = '';
let webhook: Server;
let webhookUp = true;
const calls: { apiVersion: string; token: string; audiences?: string[] }[] = [];
let v1: TestServer;
let v1beta1: TestServer;
let proxyCa: { cert: string; key: string };
let webhookCa: { cert: string; key: string };

const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ext-identity-'));
  const wh = await ensureCertificates({ certDir: join(dir, 'webhook'), hosts: ['127.0.0.1'] });
  webhookCa = { cert: wh.caCertPem, key: wh.caKeyPem };
  const px = await ensureCertificates({ certDir: join(dir, 'proxy'), hosts: ['127.0.0.1'] });
  proxyCa = { cert: px.caCertPem, key: px.caKeyPem };

  // The TokenReview service: requires the API server's client certificate (its own CA).
  webhook = createServer({ cert: wh.servingCertPem, key: wh.servingKeyPem, ca: wh.caCertPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as { apiVersion: string; spec: { token: string; audiences?: string[] } };
      calls.push({ apiVersion: review.apiVersion, token: review.spec.token, audiences: review.spec.audiences });
      const answer = (status: object) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
      switch (review.spec.token) {
        case 'good-token':
          return answer({ authenticated: true, user: { username: 'alice', uid: 'a-1', groups: ['devs'], extra: { team: ['blue'] } } });
        case 'other-audience':
          return answer({ authenticated: true, user: { username: 'bob' }, audiences: ['somewhere-else'] });
        case 'slow-token':
          // Far beyond the servers' 1 s webhook timeout, so a loaded machine cannot blur the two.
          return void setTimeout(() => answer({ authenticated: true, user: { username: 'slow' } }), 8000).unref();
        case 'garbage-token':
          return res.writeHead(200).end('this is not JSON');
        case 'error-token':
          return res.writeHead(500).end('{}');
        default:
          return answer({ authenticated: false, error: 'unknown token' });
      }
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  const port = (webhook.address() as { port: number }).port;
  const client = issueClientCertificate(wh.caCertPem, wh.caKeyPem, { commonName: 'apiserver' });
  const config = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: webhook\n  cluster:\n    server: https://127.0.0.1:${port}/review\n    certificate-authority: webhook/ca.crt`,
    'users:',
    `- name: apiserver\n  user:\n    client-certificate-data: ${Buffer.from(client.certPem).toString('base64')}\n    client-key-data: ${Buffer.from(client.keyPem).toString('base64')}`,
    '',
  ].join('\n');
  await writeFile(join(dir, 'webhook.kubeconfig'), config);
  await writeFile(join(dir, 'proxy-ca.crt'), px.caCertPem);
  const common = [
    '--authorization-mode=RBAC',
    `--authentication-token-webhook-config-file=${join(dir, 'webhook.kubeconfig')}`,
    '--authentication-token-webhook-cache-ttl=30s',
    `--requestheader-client-ca-file=${join(dir, 'proxy-ca.crt')}`,
    '--requestheader-allowed-names=front-proxy',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-uid-headers=X-Remote-Uid',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    '--controllers=-namespace,-csrsigning,-csrapproving,-csrcleaner',
  ];
  v1 = await startTestServer([...common, '--authentication-token-webhook-version=v1'], { webhookTimeoutMs: 1000 });
  v1beta1 = await startTestServer([...common, '--authentication-token-webhook-version=v1beta1'], { webhookTimeoutMs: 1000 });
}, 60_000);

afterAll(async () => {
  await v1?.stop();
  await v1beta1?.stop();
  if (webhookUp) await new Promise((r) => webhook?.close(r));
  await rm(dir, { recursive: true, force: true });
});

const callsFor = (token: string) => calls.filter((c) => c.token === token);

describe('webhook token authentication', () => {
  test('an authenticated answer is the user (v1 and v1beta1 reviews); it is cached', async () => {
    for (const [server, version] of [[v1, 'v1'], [v1beta1, 'v1beta1']] as const) {
      const before = callsFor('good-token').length;
      const r = await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token: 'good-token', body: whoami });
      expect(r.status).toBe(201);
      expect(r.json.status.userInfo).toEqual({ username: 'alice', uid: 'a-1', groups: ['devs', 'system:authenticated'], extra: { team: ['blue'] } });
      expect(callsFor('good-token').at(-1)!.apiVersion).toBe(`authentication.k8s.io/${version}`);
      // Within the cache TTL the webhook is not asked again.
      expect((await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token: 'good-token', body: whoami })).status).toBe(201);
      expect(callsFor('good-token').length).toBe(before + 1);
    }
  });

  test.each([
    ['denied', 'nobody-token'],
    ['answering 500', 'error-token'],
    ['answering garbage', 'garbage-token'],
    ['slower than the timeout', 'slow-token'],
  ])('a webhook %s means 401, never a 5xx', async (_, token) => {
    const started = Date.now();
    const r = await v1.request('GET', '/api/v1/namespaces', { token });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    // The slow webhook would have said yes (200) after 8 s: a 401 well before shows the timeout cut it.
    expect(Date.now() - started).toBeLessThan(6000);
  });

  test('a denial is cached too, briefly; TokenReview through the API asks the webhook with audiences', async () => {
    const before = callsFor('nobody-token').length;
    await v1.request('GET', '/api/v1/namespaces', { token: 'nobody-token' });
    expect(callsFor('nobody-token').length).toBe(before);
    const review = await v1.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'other-audience', audiences: ['api-x'] } },
    });
    expect(review.status).toBe(201);
    expect(review.json.status.authenticated).toBeUndefined();
    expect(callsFor('other-audience').at(-1)!.audiences).toEqual(['api-x']);
  });

  // Security review: an answer with no audiences counted for any audience a TokenReview asked for.
  test('an answer without audiences holds for the API server\'s audiences only', async () => {
    const review = (audiences?: string[]) =>
      v1.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'good-token', ...(audiences ? { audiences } : {}) } },
      });
    const other = await review(['https://vault.example']);
    expect(other.status).toBe(201);
    expect(other.json.status.authenticated).toBeUndefined();
    const api = 'https://cluster.default.svc.cluster.local';
    const mixed = await review(['https://vault.example', api]);
    expect(mixed.json.status).toMatchObject({ authenticated: true, audiences: [api], user: { username: 'alice' } });
  });

  test('a webhook that is down is "not authenticated by this method": other methods still work', async () => {
    await new Promise((r) => webhook.close(r));
    webhookUp = false;
    const fresh = await v1.request('GET', '/api/v1/namespaces', { token: 'never-seen-token' });
    expect(fresh.status).toBe(401);
    // The admin's static token is another method, unaffected.
    expect((await v1.request('GET', '/api/v1/namespaces')).status).toBe(200);
    // A token accepted before is still served from the cache.
    expect((await v1.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token: 'good-token', body: whoami })).status).toBe(201);
  });
});

describe('authenticating proxy', () => {
  const headers = {
    'X-Remote-User': 'proxied-user',
    'X-Remote-Uid': 'p-1',
    'X-Remote-Group': ['g1', 'g2'],
    'X-Remote-Extra-Acme.com%2fProject': 'p1',
  };

  test('a trusted proxy certificate makes the headers the identity', async () => {
    const proxy = issueClientCertificate(proxyCa.cert, proxyCa.key, { commonName: 'front-proxy' });
    const r = await v1.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token: null, clientCert: proxy, headers, body: whoami });
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo).toEqual({ username: 'proxied-user', uid: 'p-1', groups: ['g1', 'g2', 'system:authenticated'], extra: { 'acme.com/project': ['p1'] } });
  });

  test('a proxy certificate whose name is not allowed is not trusted (and is no user either)', async () => {
    const other = issueClientCertificate(proxyCa.cert, proxyCa.key, { commonName: 'other-proxy' });
    const r = await v1.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token: null, clientCert: other, headers, body: whoami });
    expect(r.status).toBe(401);
  });

  test('a certificate of another CA with the allowed name is not trusted: it is its own x509 user', async () => {
    const dataCa = { cert: await readFile(join(v1.dataDir, 'certs', 'ca.crt'), 'utf8'), key: await readFile(join(v1.dataDir, 'certs', 'ca.key'), 'utf8') };
    const impostor = issueClientCertificate(dataCa.cert, dataCa.key, { commonName: 'front-proxy' });
    const r = await v1.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token: null, clientCert: impostor, headers, body: whoami });
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo).toEqual({ username: 'front-proxy', groups: ['system:authenticated'] });
  });

  test('the headers are stripped whoever sends them: a bearer token\'s user stays itself', async () => {
    const r = await v1.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { headers, body: whoami });
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo.username).toBe('admin');
    expect(JSON.stringify(r.json)).not.toContain('proxied-user');
  });
});

// Security review: with --requestheader-client-ca-file but no --client-ca-file (explicit serving
// certificates), the listener trusts the proxy's CA, and x509 took a proxy certificate for a user.
describe('no --client-ca-file', () => {
  let server: TestServer;
  let serving: { ca: string };
  beforeAll(async () => {
    const certs = await ensureCertificates({ certDir: join(dir, 'serving'), hosts: ['127.0.0.1'] });
    serving = { ca: certs.caCertPem };
    server = await startTestServer([
      `--tls-cert-file=${join(dir, 'serving', 'apiserver.crt')}`,
      `--tls-private-key-file=${join(dir, 'serving', 'apiserver.key')}`,
      `--requestheader-client-ca-file=${join(dir, 'proxy-ca.crt')}`,
      '--requestheader-allowed-names=front-proxy',
      '--requestheader-username-headers=X-Remote-User',
      '--authorization-mode=RBAC',
      '--controllers=-namespace,-csrsigning,-csrapproving,-csrcleaner',
    ]);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  function whoamiWith(cert: { certPem: string; keyPem: string }, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
    const body = JSON.stringify(whoami);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server.server.url),
        { method: 'POST', ca: serving.ca, cert: cert.certPem, key: cert.keyPem, headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length), ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  test('a front-proxy certificate without identity headers is no user; with them the proxy works', async () => {
    const proxy = issueClientCertificate(proxyCa.cert, proxyCa.key, { commonName: 'front-proxy', organizations: ['system:masters'] });
    const bare = await whoamiWith(proxy);
    // Anonymous (on by default under RBAC), which may not ask who it is: not the proxy's CN/O.
    expect(bare.status).toBe(403);
    expect(JSON.parse(bare.body).message).toContain('User "system:anonymous"');
    expect(bare.body).not.toContain('front-proxy');
    const proxied = await whoamiWith(proxy, { 'X-Remote-User': 'proxied-user' });
    expect(proxied.status).toBe(201);
    expect(JSON.parse(proxied.body).status.userInfo.username).toBe('proxied-user');
  });
});
