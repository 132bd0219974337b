import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCsr, type TestCsrOptions } from '@cluster/apimachinery';
import { useTestServer } from '../support/test-server.js';

// SPEC 4.10: approving needs update on certificatesigningrequests/approval plus `approve` on
// `signers` (by signer name or `<domain>/*`); signing needs update on .../status plus `sign`;
// and the api-server-client signer refuses system:masters subjects (SPEC 4.11).
const dir = mkdtempSync(join(tmpdir(), 'csr-authz-'));
const tokenFile = join(dir, 'tokens.csv');
writeFileSync(tokenFile, 'carol-token,carol,u3\n');
const ts = useTestServer(['--authorization-mode=RBAC', '--token-auth-file', tokenFile, '--controllers=-csrsigning,-csrapproving,-csrcleaner']);

const G = 'rbac.authorization.k8s.io';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const carol = { token: 'carol-token' };

async function grant(name: string, rules: object[]): Promise<void> {
  expect((await ts().request('POST', `/apis/${G}/v1/clusterroles`, { body: { apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name }, rules } })).status).toBe(201);
  const binding = { apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: G, kind: 'ClusterRole', name }, subjects: [{ kind: 'User', apiGroup: G, name: 'carol' }] };
  expect((await ts().request('POST', `/apis/${G}/v1/clusterrolebindings`, { body: binding })).status).toBe(201);
}

async function create(name: string, signerName: string, csr: TestCsrOptions = { commonName: name }) {
  const body = { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: makeTestCsr(csr).request, signerName, usages: ['client auth'] } };
  return ts().request('POST', CSRS, { body });
}

async function approveAs(name: string, opts: { token?: string } = {}) {
  const current = (await ts().request('GET', `${CSRS}/${name}`)).json;
  const status = { conditions: [{ type: 'Approved', status: 'True', reason: 'ByHand', message: 'ok' }] };
  return ts().request('PUT', `${CSRS}/${name}/approval`, { ...opts, body: { ...current, status } });
}

async function eventually(probe: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  while (!(await probe())) {
    if (Date.now() - start > 10_000) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  await grant('csr-approval-writer', [
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['update'] },
  ]);
  await eventually(async () => (await ts().request('GET', CSRS, carol)).status === 200);
});

test('approval without approve on the signer is 403; the built-in approver role grants it', async () => {
  expect((await create('needs-approver', 'k8s.io/api-server-client')).status).toBe(201);
  const denied = await approveAs('needs-approver', carol);
  expect(denied.status).toBe(403);
  expect(denied.json.message).toBe(
    'certificatesigningrequests.certificates.k8s.io "needs-approver" is forbidden: user not permitted to approve requests with signerName "k8s.io/api-server-client"',
  );
  const binding = {
    apiVersion: `${G}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'carol-approves-clients' },
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'system:certificates.k8s.io:api-server-client-approver' },
    subjects: [{ kind: 'User', apiGroup: G, name: 'carol' }],
  };
  expect((await ts().request('POST', `/apis/${G}/v1/clusterrolebindings`, { body: binding })).status).toBe(201);
  await eventually(async () => (await approveAs('needs-approver', carol)).status === 200);
  // That role names one signer only.
  expect((await create('other-signer', 'example.com/thing')).status).toBe(201);
  expect((await approveAs('other-signer', carol)).status).toBe(403);
});

test('approve on <domain>/* covers every signer of that domain', async () => {
  await grant('wildcard-approver', [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.org/*'], verbs: ['approve'] }]);
  expect((await create('wild', 'example.org/anything')).status).toBe(201);
  await eventually(async () => (await approveAs('wild', carol)).status === 200);
});

test('setting status.certificate needs sign on the signer', async () => {
  expect((await create('to-sign', 'example.net/signer')).status).toBe(201);
  const current = (await ts().request('GET', `${CSRS}/to-sign`)).json;
  const issued = (await ts().request('GET', `${CSRS}/needs-approver`)).json;
  const fakeCert = Buffer.from(ts().server.caPem!).toString('base64');
  const signed = await ts().request('PUT', `${CSRS}/to-sign/status`, { ...carol, body: { ...current, status: { ...issued.status, certificate: fakeCert, conditions: [] } } });
  expect(signed.status).toBe(403);
  expect(signed.json.message).toContain('user not permitted to sign requests with signerName "example.net/signer"');
  await grant('net-signer', [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.net/signer'], verbs: ['sign'] }]);
  await eventually(async () => {
    const fresh = (await ts().request('GET', `${CSRS}/to-sign`)).json;
    return (await ts().request('PUT', `${CSRS}/to-sign/status`, { ...carol, body: { ...fresh, status: { certificate: fakeCert } } })).status === 200;
  });
});

test('the api-server-client signer refuses system:masters subjects, for everyone', async () => {
  const r = await create('masters', 'k8s.io/api-server-client', { commonName: 'evil', organizations: ['system:masters'] });
  expect(r.status).toBe(403);
  expect(r.json.message).toBe(
    'certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of k8s.io/api-server-client signer with system:masters group is not allowed',
  );
  expect((await create('masters-elsewhere', 'example.com/x', { commonName: 'x', organizations: ['system:masters'] })).status).toBe(201);
});

// Security review, finding 1: an external signer's grant (create CSRs, update /status, `sign`)
// must not approve its own requests: Approved and Denied change only through /approval.
test('a status update cannot add or retouch Approved/Denied; /approval cannot set the certificate', async () => {
  await grant('external-signer', [
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get'] },
    { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['k8s.io/api-server-client'], verbs: ['sign'] },
  ]);
  await eventually(async () => (await create('self-approve', 'k8s.io/api-server-client', { commonName: 'carol' }).then(() => ts().request('GET', `${CSRS}/self-approve`, carol))).status === 200);
  const current = (await ts().request('GET', `${CSRS}/self-approve`, carol)).json;
  const approved = { type: 'Approved', status: 'True', reason: 'Self', message: 'mine' };
  const put = await ts().request('PUT', `${CSRS}/self-approve/status`, { ...carol, body: { ...current, status: { conditions: [approved] } } });
  expect(put.status).toBe(422);
  expect(put.json.details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'status.conditions', message: 'Forbidden: updates may not add a condition of type "Approved"' }]);
  const patch = await ts().request('PATCH', `${CSRS}/self-approve/status`, {
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: { status: { conditions: [{ type: 'Denied', status: 'True' }] } },
  });
  expect(patch.status).toBe(422);
  expect(patch.json.details.causes[0].message).toBe('Forbidden: updates may not add a condition of type "Denied"');
  // Even the admin goes through /approval.
  const admin = await ts().request('PUT', `${CSRS}/self-approve/status`, { body: { ...current, status: { conditions: [approved] } } });
  expect(admin.status).toBe(422);
  expect((await ts().request('GET', `${CSRS}/self-approve`)).json.status.conditions ?? []).toEqual([]);

  // Approved by an approver: a status update that rewrites it keeps the stored one.
  expect((await approveAs('self-approve')).status).toBe(200);
  const stored = (await ts().request('GET', `${CSRS}/self-approve`)).json;
  const retouch = await ts().request('PUT', `${CSRS}/self-approve/status`, {
    ...carol,
    body: { ...stored, status: { conditions: [{ ...stored.status.conditions[0], reason: 'Forged', message: 'by the signer' }] } },
  });
  expect(retouch.status).toBe(200);
  expect(retouch.json.status.conditions).toEqual(stored.status.conditions);

  // The approval subresource takes conditions only.
  const fakeCert = Buffer.from(ts().server.caPem!).toString('base64');
  const viaApproval = await ts().request('PUT', `${CSRS}/self-approve/approval`, { body: { ...stored, status: { ...stored.status, certificate: fakeCert } } });
  expect(viaApproval.status).toBe(200);
  expect(viaApproval.json.status.certificate ?? '').toBe('');
});

// Security review, finding 2: an O of system:masters in a string type the old reader showed as
// hex slipped past CertificateSubjectRestriction. Go refuses a NumericString that is not digits.
test('a subject that breaks the ASN.1 string rules is refused with 422 at create, whatever the signer', async () => {
  const smuggled = { commonName: 'mallory', organizations: ['system:masters'], organizationTag: 0x12 };
  for (const signer of ['k8s.io/api-server-client', 'example.com/x']) {
    const r = await create(`numeric-${signer.length}`, signer, smuggled);
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      expect.objectContaining({ field: 'spec.request', message: expect.stringContaining('x509: invalid RDNSequence: invalid attribute value: invalid NumericString') }),
    ]);
  }
  expect((await create('bad-printable', 'example.com/x', { organizations: ['system@masters'], organizationTag: 0x13 })).status).toBe(422);
  expect((await create('bad-ia5', 'example.com/x', { organizations: ['syst\u00e9m'], organizationTag: 0x16 })).status).toBe(422);
  // The same name as a PrintableString or IA5String is read as text, and refused by admission.
  for (const tag of [0x13, 0x16, 0x14]) {
    const r = await create(`masters-${tag}`, 'k8s.io/api-server-client', { commonName: 'mallory', organizations: ['system:masters'], organizationTag: tag });
    expect(r.status).toBe(403);
  }
  expect((await create('numeric-digits', 'k8s.io/api-server-client', { commonName: 'n', organizations: ['0123 456'], organizationTag: 0x12 })).status).toBe(201);
});
