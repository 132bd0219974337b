import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCertificates, issueClientCertificate } from '../../src/certs.js';
import { useTestServer } from '../support/test-server.js';

// The embedded default trusts its generated CA for client certificates (SPEC 5: CN is the user,
// each O a group); a certificate from any other CA is refused with 401.
const ts = useTestServer(['--authorization-mode=RBAC']);

async function dataDirCa(): Promise<{ cert: string; key: string }> {
  const dir = join(ts().dataDir, 'certs');
  return { cert: await readFile(join(dir, 'ca.crt'), 'utf8'), key: await readFile(join(dir, 'ca.key'), 'utf8') };
}

describe('x509 client certificates on the embedded default', () => {
  test('a certificate of the data-dir CA authenticates as its CN, with each O a group', async () => {
    const ca = await dataDirCa();
    const admin = issueClientCertificate(ca.cert, ca.key, { commonName: 'cert-admin', organizations: ['system:masters'] });
    const ok = await ts().request('GET', '/api/v1/namespaces', { token: null, clientCert: admin });
    expect(ok.status).toBe(200);

    const plain = issueClientCertificate(ca.cert, ca.key, { commonName: 'cert-user', organizations: ['team-a', 'team-b'] });
    const denied = await ts().request('GET', '/api/v1/namespaces', { token: null, clientCert: plain });
    expect(denied.status).toBe(403);
    expect(denied.json.message).toBe('namespaces is forbidden: User "cert-user" cannot list resource "namespaces" in API group "" at the cluster scope');
  });

  test('a certificate from another CA is 401 even though anonymous requests are on', async () => {
    // A second CA, made the way the server makes its own, in a directory of its own.
    const dir = await mkdtemp(join(tmpdir(), 'other-ca-'));
    const otherCa = await ensureCertificates({ certDir: dir, hosts: ['127.0.0.1'] });
    await rm(dir, { recursive: true, force: true });
    const other = issueClientCertificate(otherCa.caCertPem, otherCa.caKeyPem, { commonName: 'intruder', organizations: ['system:masters'] });
    const res = await ts().request('GET', '/api/v1/namespaces', { token: null, clientCert: other });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  test('an expired certificate of the right CA is 401', async () => {
    const ca = await dataDirCa();
    const old = new Date(Date.now() - 400 * 86_400_000);
    const expired = issueClientCertificate(ca.cert, ca.key, { commonName: 'cert-admin', organizations: ['system:masters'], days: 1, now: old });
    const res = await ts().request('GET', '/api/v1/namespaces', { token: null, clientCert: expired });
    expect(res.status).toBe(401);
  });
});

