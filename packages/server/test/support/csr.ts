import { makeTestCsr, type TestCsrOptions } from '@cluster/apimachinery';
import type { TestServer } from './test-server.js';

export const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

/** Polls `probe` every 50 ms until it returns something, for at most `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A certificates/v1 request with a fresh key. */
export const csrBody = (name: string, request: TestCsrOptions, signerName: string, usages: string[], expirationSeconds?: number) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: makeTestCsr(request).request, signerName, usages, ...(expirationSeconds ? { expirationSeconds } : {}) },
});

/** Approves a request through its approval subresource, as the admin. */
export async function approveCsr(ts: TestServer, name: string): Promise<void> {
  const current = (await ts.request('GET', `${CSRS}/${name}`)).json;
  const conditions = [{ type: 'Approved', status: 'True', reason: 'TestApproved', message: 'approved by the test' }];
  const r = await ts.request('PUT', `${CSRS}/${name}/approval`, { body: { ...current, status: { ...current.status, conditions } } });
  if (r.status !== 200) throw new Error(`approving ${name}: HTTP ${r.status}`);
}
