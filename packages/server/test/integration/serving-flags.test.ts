import { request } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCertificates } from '../../src/certs.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let dir: string;
let ts: TestServer;
let ca: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'serving-flags-'));
  const certs = await ensureCertificates({ certDir: join(dir, 'own-certs'), hosts: ['127.0.0.1'] });
  ca = certs.caCertPem;
  await writeFile(join(dir, 'tokens.csv'), 'team-token,alice,alice-uid,"dev,ops"\n');
  ts = await startTestServer([
    `--tls-cert-file=${certs.certFile}`,
    `--tls-private-key-file=${certs.keyFile}`,
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    '--controllers=-namespace',
  ]);
}, 60_000);

afterAll(async () => {
  await ts?.stop();
  await rm(dir, { recursive: true, force: true });
});

function get(path: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, ts.server.url), { headers: { Authorization: `Bearer ${token}` }, ca }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('--tls-cert-file, --tls-private-key-file and --token-auth-file', () => {
  test('the server presents the given certificate and accepts tokens from the given file', async () => {
    // The request verifies the serving certificate against the CA that issued the given files.
    const res = await get('/api/v1/namespaces', 'team-token');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).kind).toBe('NamespaceList');
  });

  test('a token not in the file is 401', async () => {
    expect((await get('/api/v1/namespaces', 'other-token')).status).toBe(401);
  });

  test('the admin token still works (its own token file in the data dir)', async () => {
    expect((await get('/api/v1/namespaces', ts.server.adminToken)).status).toBe(200);
  });
});
