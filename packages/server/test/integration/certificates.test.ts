import { execFile, execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeProtobufObject, encodeProtobufObject } from '@cluster/apimachinery';
import { useTestServer, type TestServer } from '../support/test-server.js';

const run = promisify(execFile);
const b64 = (s: string) => Buffer.from(s).toString('base64');
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const TABLE = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

function openssl(...args: string[]): string {
  return execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
}
const rsaRequest = () => openssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=alice/O=devs');
const ecRequest = () => openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=bob');
const selfSigned = () => openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=x', '-days', '1');

const csr = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: b64(ecRequest()), signerName: 'example.com/signer', usages: ['digital signature', 'client auth'], ...spec },
});

async function kubectl(ts: TestServer, ...args: string[]): Promise<string> {
  const kubeconfig = join(ts.dataDir, 'kubectl.kubeconfig');
  const ca = join(ts.dataDir, 'kubectl-ca.crt');
  await writeFile(ca, ts.server.caPem ?? '');
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: ts.server.url, 'certificate-authority': ca } }],
      users: [{ name: 'u', user: { token: ts.server.adminToken } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return (await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 })).stdout;
}

describe('certificatesigningrequests (SPEC 2.8, 3.2, 4.10)', () => {
  const server = useTestServer(['--authorization-mode=AlwaysAllow']);

  test('create records the requester and drops status; get returns it', async () => {
    const ts = server();
    const body = { ...csr('one', { request: b64(rsaRequest()), expirationSeconds: 3600, username: 'mallory', groups: ['x'] }), status: { certificate: b64(selfSigned()) } };
    const res = await ts.request('POST', CSRS, { body });
    expect(res.status).toBe(201);
    expect(res.json.spec).toMatchObject({ username: 'admin', signerName: 'example.com/signer', expirationSeconds: 3600 });
    expect(res.json.spec.groups).toContain('system:masters');
    expect(res.json.status ?? {}).toEqual({});
    const got = await ts.request('GET', `${CSRS}/one`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ kind: 'CertificateSigningRequest', metadata: { name: 'one' }, spec: { username: 'admin' } });
  });

  test('Table: NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION', async () => {
    const ts = server();
    await ts.request('POST', CSRS, { body: csr('tabled') });
    const res = await ts.request('GET', `${CSRS}/tabled`, { headers: TABLE });
    expect(res.status).toBe(200);
    expect(res.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    expect(res.json.rows[0].cells).toEqual(['tabled', expect.any(String), 'example.com/signer', 'admin', '<none>', 'Pending']);
    const out = await kubectl(ts, 'get', 'csr', 'tabled');
    expect(out.split('\n')[0]).toMatch(/^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/);
    expect(out.split('\n')[1]).toMatch(/^tabled\s+\S+\s+example\.com\/signer\s+admin\s+<none>\s+Pending$/);
  }, 60_000);

  test('approve through /approval, issue through /status; both kept from then on', async () => {
    const ts = server();
    await ts.request('POST', CSRS, { body: csr('flow') });
    const current = (await ts.request('GET', `${CSRS}/flow`)).json;
    // The approval subresource takes only conditions: the certificate sent along is ignored.
    const approve = await ts.request('PUT', `${CSRS}/flow/approval`, {
      body: { ...current, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test' }], certificate: b64(selfSigned()) } },
    });
    expect(approve.status).toBe(200);
    const cond = approve.json.status.conditions[0];
    expect(cond).toMatchObject({ type: 'Approved', status: 'True', reason: 'Test' });
    expect(cond.lastUpdateTime).toMatch(/Z$/);
    expect(cond.lastTransitionTime).toBe(cond.lastUpdateTime);
    expect(approve.json.status.certificate).toBeUndefined();

    // The main resource ignores status.
    const ignored = await ts.request('PUT', `${CSRS}/flow`, { body: { ...approve.json, status: { conditions: [] } } });
    expect(ignored.status).toBe(200);
    expect(ignored.json.status.conditions).toHaveLength(1);

    const cert = b64(selfSigned());
    const issue = await ts.request('PUT', `${CSRS}/flow/status`, { body: { ...ignored.json, status: { ...ignored.json.status, certificate: cert } } });
    expect(issue.status).toBe(200);
    expect(issue.json.status.certificate).toBe(cert);
    const row = (await ts.request('GET', `${CSRS}/flow`, { headers: TABLE })).json.rows[0].cells;
    expect(row[5]).toBe('Approved,Issued');

    const replace = await ts.request('PUT', `${CSRS}/flow/status`, { body: { ...issue.json, status: { ...issue.json.status, certificate: b64(selfSigned()) } } });
    expect(replace.status).toBe(422);
    expect(replace.json.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'status.certificate', message: 'Invalid value: "<certificate data>": updates may not modify existing certificate content' },
    ]);
    const unapprove = await ts.request('PATCH', `${CSRS}/flow/approval`, {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { status: { conditions: [{ type: 'Denied', status: 'True' }] } },
    });
    expect(unapprove.status).toBe(422);
    expect(unapprove.json.details.causes).toEqual([
      { reason: 'FieldValueForbidden', field: 'status.conditions', message: 'Forbidden: updates may not remove a condition of type "Approved"' },
    ]);
  });

  test('kubectl certificate approve', async () => {
    const ts = server();
    await ts.request('POST', CSRS, { body: csr('kubectl-approved') });
    await kubectl(ts, 'certificate', 'approve', 'kubectl-approved');
    const got = (await ts.request('GET', `${CSRS}/kubectl-approved`)).json;
    expect(got.status.conditions).toEqual([expect.objectContaining({ type: 'Approved', status: 'True' })]);
  }, 60_000);

  test('kubectl apply, explain and strict field validation use the OpenAPI schema', async () => {
    const ts = server();
    const file = join(ts.dataDir, 'csr.json');
    await writeFile(file, JSON.stringify(csr('applied')));
    expect(await kubectl(ts, 'apply', '--server-side', '-f', file)).toContain('applied');
    expect(await kubectl(ts, 'apply', '-f', file)).toContain('applied');
    expect(await kubectl(ts, 'explain', 'csr.spec.signerName')).toMatch(/FIELD:\s+signerName/);
    const strict = await ts.request('POST', `${CSRS}?fieldValidation=Strict`, { body: { ...csr('strict'), spec: { ...csr('strict').spec, colour: 'red' } } });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toContain('unknown field "spec.colour"');
  }, 60_000);

  test('Protobuf round trip, signerName field selector, delete', async () => {
    const ts = server();
    const PB = 'application/vnd.kubernetes.protobuf';
    const sent = csr('pb', { signerName: 'example.com/pb', expirationSeconds: 900 });
    const res = await ts.request('POST', CSRS, { body: Buffer.from(encodeProtobufObject(sent)), headers: { 'Content-Type': PB, Accept: PB } });
    expect(res.status).toBe(201);
    expect(decodeProtobufObject(res.body)).toMatchObject({ kind: 'CertificateSigningRequest', spec: { request: sent.spec.request, signerName: 'example.com/pb', expirationSeconds: 900, username: 'admin' } });
    const list = await ts.request('GET', `${CSRS}?fieldSelector=spec.signerName%3Dexample.com%2Fpb`);
    expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['pb']);
    expect((await ts.request('DELETE', `${CSRS}/pb`)).status).toBe(200);
    expect((await ts.request('GET', `${CSRS}/pb`)).status).toBe(404);
  });

  test('spec is immutable on update', async () => {
    const ts = server();
    const created = (await ts.request('POST', CSRS, { body: csr('frozen') })).json;
    const res = await ts.request('PUT', `${CSRS}/frozen`, { body: { ...created, spec: { ...created.spec, signerName: 'example.com/other', username: 'mallory' } } });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422, details: { name: 'frozen', group: 'certificates.k8s.io', kind: 'CertificateSigningRequest' } });
    expect(res.json.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.signerName', message: 'Invalid value: "example.com/other": field is immutable' },
      { reason: 'FieldValueInvalid', field: 'spec.username', message: 'Invalid value: "mallory": field is immutable' },
    ]);
  });

  test.each<[string, Record<string, unknown>, string, string]>([
    ['a request that is not PEM', { request: b64('hello') }, 'spec.request', 'PEM block type must be CERTIFICATE REQUEST'],
    ['no signer', { signerName: '' }, 'spec.signerName', 'Required value'],
    ['the legacy signer', { signerName: 'k8s.io/legacy-unknown' }, 'spec.signerName', 'the legacy signerName is not allowed via this API version'],
    ['no usages', { usages: [] }, 'spec.usages', 'usages must be provided'],
    ['an unknown usage', { usages: ['flying'] }, 'spec.usages[0]', 'Unsupported value: "flying"'],
    ['a duplicate usage', { usages: ['any', 'any'] }, 'spec.usages[1]', 'Duplicate value: "any"'],
    ['a short duration', { expirationSeconds: 60 }, 'spec.expirationSeconds', 'may not specify a duration less than 600 seconds'],
  ])('422 for %s', async (_name, spec, field, text) => {
    const res = await server().request('POST', CSRS, { body: csr('bad', spec) });
    expect(res.status).toBe(422);
    expect(res.json.reason).toBe('Invalid');
    expect(res.json.details.causes).toEqual([expect.objectContaining({ field })]);
    expect(res.json.details.causes[0].message).toContain(text);
  });

  test('422 for bad conditions through /status', async () => {
    const ts = server();
    const created = (await ts.request('POST', CSRS, { body: csr('conds') })).json;
    const res = await ts.request('PUT', `${CSRS}/conds/status`, {
      body: { ...created, status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }, { type: 'X', status: '' }] } },
    });
    expect(res.status).toBe(422);
    // Approved and Denied are also refused here: only /approval adds them.
    expect(res.json.details.causes.map((c: { field: string; message: string }) => [c.field, c.message])).toEqual([
      ['status.conditions[2].status', expect.any(String)],
      ['status.conditions', expect.stringContaining('mutually exclusive')],
      ['status.conditions', 'Forbidden: updates may not add a condition of type "Approved"'],
      ['status.conditions', 'Forbidden: updates may not add a condition of type "Denied"'],
    ]);
    const junk = await ts.request('PUT', `${CSRS}/conds/status`, { body: { ...created, status: { certificate: b64('not a cert') } } });
    expect(junk.status).toBe(422);
    expect(junk.json.details.causes[0]).toMatchObject({ field: 'status.certificate' });
  });
});
