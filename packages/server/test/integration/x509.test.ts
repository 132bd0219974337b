import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestServer, type TestServer } from '../support/test-server.js';

// Two certificate authorities: the server trusts only "trusted".
const dir = mkdtempSync(join(tmpdir(), 'x509-test-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
for (const ca of ['trusted', 'other']) {
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${ca}-ca.key`, '-out', `${ca}-ca.crt`, '-subj', `/CN=${ca}-ca`, '-days', '1');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${ca}-client.key`, '-out', `${ca}-client.csr`, '-subj', '/O=devs/O=ops/CN=carol');
  ssl('x509', '-req', '-in', `${ca}-client.csr`, '-CA', `${ca}-ca.crt`, '-CAkey', `${ca}-ca.key`, '-CAcreateserial', '-out', `${ca}-client.crt`, '-days', '1');
}
const file = (name: string) => readFileSync(join(dir, name), 'utf8');

function getWithCert(ts: TestServer, path: string, ca: string): Promise<{ status: number; body: { message?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, ts.server.url),
      { ca: ts.server.caPem, cert: file(`${ca}-client.crt`), key: file(`${ca}-client.key`) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('X.509 client certificates', () => {
  const server = useTestServer(['--authorization-mode=RBAC', `--client-ca-file=${join(dir, 'trusted-ca.crt')}`]);

  test('a certificate of the client CA authenticates as its CN (a 403 names the user)', async () => {
    const res = await getWithCert(server(), '/api/v1/namespaces/default/configmaps', 'trusted');
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('User "carol" cannot list resource "configmaps"');
  });

  test('a certificate of another CA is 401, even with anonymous requests on', async () => {
    const res = await getWithCert(server(), '/api/v1/namespaces/default/configmaps', 'other');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});
