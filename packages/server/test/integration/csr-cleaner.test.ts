import { makeTestCsr, type TestCsrOptions } from '@cluster/apimachinery';
import { useTestServer } from '../support/test-server.js';

// The CSR garbage collector against a real replica, with the SPEC 3.2 periods shortened.
const ts = useTestServer([], { csrRetention: { finishedMs: 1500, pendingMs: 3000 } });
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const csr = (name: string, request: TestCsrOptions, signerName: string, usages: string[], expirationSeconds?: number) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: makeTestCsr(request).request, signerName, usages, ...(expirationSeconds ? { expirationSeconds } : {}) },
});

async function approve(name: string): Promise<void> {
  const current = (await ts().request('GET', `${CSRS}/${name}`)).json;
  const conditions = [{ type: 'Approved', status: 'True', reason: 'TestApproved', message: 'approved by the test' }];
  const r = await ts().request('PUT', `${CSRS}/${name}/approval`, { body: { ...current, status: { ...current.status, conditions } } });
  expect(r.status).toBe(200);
}

describe('csrcleaner', () => {
  test('a pending request is deleted once the pending retention passes', async () => {
    const body = csr('pending', { commonName: 'p' }, 'example.com/custom', ['client auth']);
    expect((await ts().request('POST', CSRS, { body })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await ts().request('GET', `${CSRS}/pending`)).status).toBe(200);
    await until('deletion', async () => ((await ts().request('GET', `${CSRS}/pending`)).status === 404 ? true : undefined), 10_000);
  });

  test('a finished request is deleted once its retention passes', async () => {
    const body = csr('to-collect', { commonName: 'gone' }, 'example.com/custom', ['client auth']);
    expect((await ts().request('POST', CSRS, { body })).status).toBe(201);
    await approve('to-collect');
    await until('deletion', async () => ((await ts().request('GET', `${CSRS}/to-collect`)).status === 404 ? true : undefined), 10_000);
  });
});
