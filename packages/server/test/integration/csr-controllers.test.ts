import { X509Certificate } from 'node:crypto';
import { approveCsr, csrBody as csr, CSRS, until } from '../support/csr.js';
import { useTestServer } from '../support/test-server.js';

// The CSR controllers against a real replica: the signer (only after approval, per the signer's
// rules) and the approver (never for other requests). The garbage collector: csr-cleaner.test.ts.
const ts = useTestServer(['--authorization-mode=RBAC']);

const certificateOf = (name: string) =>
  until(`certificate of ${name}`, async () => {
    const c = (await ts().request('GET', `${CSRS}/${name}`)).json;
    return c.status?.certificate ? new X509Certificate(Buffer.from(c.status.certificate, 'base64')) : undefined;
  });

describe('csrsigning', () => {
  test('an api-server-client request is signed only after approval, for the requested lifetime', async () => {
    const body = csr('alice-client', { commonName: 'alice', organizations: ['devs'], key: 'p256' }, 'k8s.io/api-server-client', ['client auth', 'digital signature'], 3600);
    expect((await ts().request('POST', CSRS, { body })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await ts().request('GET', `${CSRS}/alice-client`)).json.status?.certificate).toBeUndefined();
    await approveCsr(ts(), 'alice-client');
    const cert = await certificateOf('alice-client');
    const ca = new X509Certificate(ts().server.caPem!);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.subject).toBe('O=devs\nCN=alice');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.ca).toBe(false);
    const lifetime = Date.parse(cert.validTo) - Date.now();
    expect(lifetime).toBeGreaterThan(3500_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);
    const table = await ts().request('GET', `${CSRS}/alice-client`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.json.rows[0].cells).toContain('Approved,Issued');
  });

  test('an approved request that breaks its signer\'s rules fails and gets no certificate', async () => {
    const body = csr('bad-usage', { commonName: 'bob' }, 'k8s.io/api-server-client', ['client auth', 'server auth']);
    expect((await ts().request('POST', CSRS, { body })).status).toBe(201);
    await approveCsr(ts(), 'bad-usage');
    const failed = await until('Failed condition', async () => {
      const c = (await ts().request('GET', `${CSRS}/bad-usage`)).json;
      return c.status?.conditions?.find((x: { type: string }) => x.type === 'Failed');
    });
    expect(failed).toMatchObject({ status: 'True', reason: 'SignerValidationFailure', message: 'invalid usage for client certificate: server auth' });
    expect((await ts().request('GET', `${CSRS}/bad-usage`)).json.status.certificate).toBeUndefined();
  });

  test('a custom signer\'s approved request is left to that signer', async () => {
    expect((await ts().request('POST', CSRS, { body: csr('custom', { commonName: 'c' }, 'example.com/custom', ['client auth']) })).status).toBe(201);
    await approveCsr(ts(), 'custom');
    await new Promise((r) => setTimeout(r, 1000));
    const c = (await ts().request('GET', `${CSRS}/custom`)).json;
    expect(c.status.certificate).toBeUndefined();
    expect(c.status.conditions.map((x: { type: string }) => x.type)).toEqual(['Approved']);
  });
});

describe('csrapproving', () => {
  test('a request for another signer is never auto-approved, even for a node subject', async () => {
    const plain = csr('not-a-node', { commonName: 'system:node:x', organizations: ['system:nodes'] }, 'k8s.io/api-server-client', ['client auth']);
    expect((await ts().request('POST', CSRS, { body: plain })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await ts().request('GET', `${CSRS}/not-a-node`)).json.status?.conditions).toBeUndefined();
  });

  test('a node-agent client request whose requester may create nodeclient is approved and signed', async () => {
    // The admin (system:masters) may create certificatesigningrequests/nodeclient, so the
    // approver's SubjectAccessReview allows it, as upstream's would.
    const body = csr('node-n1', { commonName: 'system:node:n1', organizations: ['system:nodes'] }, 'k8s.io/api-server-client-node-agent', ['digital signature', 'key encipherment', 'client auth']);
    expect((await ts().request('POST', CSRS, { body })).status).toBe(201);
    const cert = await certificateOf('node-n1');
    const c = (await ts().request('GET', `${CSRS}/node-n1`)).json;
    expect(c.status.conditions[0]).toMatchObject({ type: 'Approved', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' });
    expect(cert.subject).toBe('O=system:nodes\nCN=system:node:n1');
  });
});

describe('controller metrics', () => {
  test('work queues and leadership are on /metrics', async () => {
    const text = (await ts().request('GET', '/metrics')).text;
    expect(text).toMatch(/^leader_election_master_status\{name="cluster-controller-manager"\} 1$/m);
    expect(text).toMatch(/^workqueue_adds_total\{name="csrsigning"\} [1-9]\d*$/m);
    expect(text).toMatch(/^workqueue_depth\{name="csrapproving"\} \d+$/m);
    expect(text).toMatch(/^workqueue_work_duration_seconds_count\{name="csrsigning"\} [1-9]\d*$/m);
    expect(text).toContain('# TYPE controller_runtime_reconcile_errors_total counter');
  });
});
