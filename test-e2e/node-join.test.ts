import { request } from 'node:https';
import { X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compactVerify } from 'jose';
import { parse } from 'yaml';
import { makeTestCsr } from '@cluster/apimachinery';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';

// The node-join flow of the certificates issue, over real HTTPS against the built server with the
// flags `make run` uses: cluster-info read anonymously and verified with the bootstrap token,
// a node CSR posted with the token, auto-approved and signed, and the certificate authenticating
// as the node. Then kubectl's certificate commands and `get csr` columns.
let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess([
    '--authorization-mode=Node,RBAC',
    '--enable-bootstrap-token-auth',
    '--node-join-bindings',
    '--controllers=*,bootstrapsigner,tokencleaner',
  ]);
}, 60_000);
afterAll(async () => {
  await server?.stop();
}, 30_000);

const TOKEN_ID = 'abcdef';
const TOKEN = `${TOKEN_ID}.0123456789abcdef`;
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

interface Reply {
  status: number;
  // Replies are arbitrary JSON; assertions narrow them.
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

interface Credentials {
  /** Pinned CA; absent only for the first, unverified read of cluster-info. */
  ca?: string;
  token?: string;
  cert?: string;
  key?: string;
}

function call(method: string, path: string, creds: Credentials, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (creds.token) headers.Authorization = `Bearer ${creds.token}`;
  if (payload) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  const tls = creds.ca ? { ca: creds.ca } : { rejectUnauthorized: false };
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { method, headers, timeout: 20_000, cert: creds.cert, key: creds.key, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
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

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ok = async (args: string[]) => {
  const r = await kubectl(server, args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};

test('a machine joins with nothing but the server address and a bootstrap token', async () => {
  const secret = join(server.dataDir, 'token.yaml');
  await writeFile(
    secret,
    [
      'apiVersion: v1',
      'kind: Secret',
      `metadata: {name: bootstrap-token-${TOKEN_ID}, namespace: cluster-system}`,
      'type: bootstrap.k8s.io/token',
      'stringData:',
      `  token-id: ${TOKEN_ID}`,
      '  token-secret: 0123456789abcdef',
      '  usage-bootstrap-authentication: "true"',
      '  usage-bootstrap-signing: "true"',
      '',
    ].join('\n'),
  );
  await ok(['apply', '-f', secret]);

  // 1. Anonymous and unverified: read cluster-info, verify its JWS with the token, pin its CA.
  const info = await until('a signed cluster-info', async () => {
    const r = await call('GET', '/api/v1/namespaces/cluster-public/configmaps/cluster-info', {});
    return r.status === 200 && r.json.data?.[`jws-kubeconfig-${TOKEN_ID}`] ? (r.json.data as Record<string, string>) : undefined;
  });
  const [header, , signature] = info[`jws-kubeconfig-${TOKEN_ID}`]!.split('.');
  const payload = Buffer.from(info.kubeconfig!).toString('base64url');
  const verified = await compactVerify(`${header}.${payload}.${signature}`, new TextEncoder().encode(TOKEN), { algorithms: ['HS256'] });
  expect(Buffer.from(verified.payload).toString()).toBe(info.kubeconfig);
  const kubeconfig = parse(info.kubeconfig!) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[] };
  const ca = Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString();
  expect(kubeconfig.clusters[0]!.cluster.server).toBe(server.url);
  // A wrong token does not verify.
  await expect(compactVerify(`${header}.${payload}.${signature}`, new TextEncoder().encode(`${TOKEN_ID}.ffffffffffffffff`), { algorithms: ['HS256'] })).rejects.toThrow();

  // 2. With the token and the pinned CA: post an ECDSA P-256 node client CSR.
  const node = makeTestCsr({ key: 'p256', commonName: 'system:node:worker-1', organizations: ['system:nodes'] });
  const created = await call('POST', CSRS, { ca, token: TOKEN }, {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'node-csr-worker-1' },
    spec: { request: node.request, signerName: 'k8s.io/api-server-client-node-agent', usages: ['digital signature', 'client auth'] },
  });
  expect(created.status).toBe(201);
  expect(created.json.spec).toMatchObject({ username: `system:bootstrap:${TOKEN_ID}`, groups: expect.arrayContaining(['system:bootstrappers', 'system:authenticated']) });

  // 3. Auto-approved and signed.
  const issued = await until('the signed certificate', async () => {
    const r = await call('GET', `${CSRS}/node-csr-worker-1`, { ca, token: TOKEN });
    return r.json.status?.certificate ? (r.json as { status: { certificate: string; conditions: { type: string; reason: string }[] } }) : undefined;
  });
  expect(issued.status.conditions[0]).toMatchObject({ type: 'Approved', reason: 'AutoApproved' });
  const certPem = Buffer.from(issued.status.certificate, 'base64').toString();
  expect(new X509Certificate(certPem).verify(new X509Certificate(ca).publicKey)).toBe(true);

  // 4. The certificate authenticates as the node.
  const whoami = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { ca, cert: certPem, key: node.keyPem }, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  });
  expect(whoami.status).toBe(201);
  expect(whoami.json.status.userInfo).toEqual({ username: 'system:node:worker-1', groups: ['system:nodes', 'system:authenticated'] });
}, 60_000);

test('kubectl certificate approve and deny, and get csr columns', async () => {
  const file = join(server.dataDir, 'csrs.yaml');
  const doc = (name: string) =>
    [
      'apiVersion: certificates.k8s.io/v1',
      'kind: CertificateSigningRequest',
      `metadata: {name: ${name}}`,
      'spec:',
      `  request: ${makeTestCsr({ commonName: name, key: 'rsa2048' }).request}`,
      '  signerName: k8s.io/api-server-client',
      '  expirationSeconds: 86400',
      '  usages: [client auth, digital signature, key encipherment]',
    ].join('\n');
  await writeFile(file, `${doc('carol')}\n---\n${doc('dave')}\n`);
  await ok(['create', '-f', file]);
  await new Promise((r) => setTimeout(r, 500));
  const pending = await ok(['get', 'csr', 'carol']);
  expect(pending).toMatch(/^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION/);
  expect(pending).toMatch(/carol\s+\S+\s+k8s\.io\/api-server-client\s+\S+\s+24h\s+Pending/);

  await ok(['certificate', 'approve', 'carol']);
  await ok(['certificate', 'deny', 'dave']);
  const cert = await until('carol issued', async () => {
    const c = JSON.parse(await ok(['get', 'csr', 'carol', '-o', 'json'])) as { status: { certificate?: string } };
    return c.status.certificate ? new X509Certificate(Buffer.from(c.status.certificate, 'base64')) : undefined;
  });
  expect(cert.subject).toBe('CN=carol');
  const hours = (Date.parse(cert.validTo) - Date.now()) / 3_600_000;
  expect(hours).toBeGreaterThan(23.9);
  expect(hours).toBeLessThanOrEqual(24);
  const table = await ok(['get', 'csr']);
  expect(table).toMatch(/carol\s.*Approved,Issued/);
  expect(table).toMatch(/dave\s.*Denied/);
  await new Promise((r) => setTimeout(r, 1000));
  expect(JSON.parse(await ok(['get', 'csr', 'dave', '-o', 'json'])).status.certificate).toBeUndefined();
}, 60_000);

test('with every controller running, the server prints no runtime warning (a listener-leak warning would alarm operators)', () => {
  // The server logs JSON lines; Node's own warnings are plain `(node:PID) ...Warning: ...` lines.
  const warnings = server.output().split('\n').filter((line) => /^\(node:\d+\) \w*Warning/.test(line));
  expect(warnings).toEqual([]);
});
