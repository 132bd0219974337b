import { X509Certificate } from 'node:crypto';
import { createCertificateRequest } from '@cluster/apimachinery';
import { call, type Credentials } from './api.js';
import { verifyClusterInfo, type VerifiedCluster } from './cluster-info.js';
import { credentialPlan, loadCredential, saveCredential, type StoredCredential } from './store.js';

export interface BootstrapOptions {
  server: string;
  token: string;
  apiDomain: string;
  /** `<domain>/api-server-client-node-agent` (default) or `<domain>/api-server-client`. */
  signerName: string;
  commonName: string;
  organizations: string[];
  dir: string;
  expirationSeconds?: number;
  renewBeforeMs: number;
  waitMs: number;
  now?: () => Date;
  log?: (line: string) => void;
}

const TOKEN = /^[a-z0-9]{6}\.[a-z0-9]{16}$/;

/** Reads cluster-info anonymously and verifies it with the token (SPEC 4.12). */
export async function pinCluster(server: string, token: string): Promise<VerifiedCluster> {
  const r = await call(server, 'GET', '/api/v1/namespaces/cluster-public/configmaps/cluster-info', {});
  if (r.status !== 200) throw new Error(`cannot read cluster-info from ${server}: HTTP ${r.status}`);
  return verifyClusterInfo(r.json?.data as Record<string, string> | undefined, token);
}

/**
 * The client certificate to present (SPEC 5.6 credential plugin, bootstrap mode): the stored one
 * while it has more than `renewBeforeMs` left; else a new one, requested with the current
 * certificate when it still works (a renewal) or with the bootstrap token (a join), after pinning
 * the CA from a verified cluster-info. Nothing is stored unless a certificate was issued.
 */
export async function bootstrapCredential(o: BootstrapOptions): Promise<StoredCredential> {
  if (!TOKEN.test(o.token)) throw new Error('the bootstrap token must look like <6 chars>.<16 chars> of [a-z0-9]');
  const now = (o.now ?? (() => new Date()))();
  const stored = await loadCredential(o.dir);
  const plan = credentialPlan(stored, now, o.renewBeforeMs);
  if (plan === 'reuse') return stored!;
  const cluster = await pinCluster(o.server, o.token);
  const creds: Credentials =
    plan === 'renew' ? { caPem: cluster.caPem, certPem: stored!.certPem, keyPem: stored!.keyPem } : { caPem: cluster.caPem, token: o.token };
  o.log?.(plan === 'renew' ? 'renewing the client certificate' : 'joining with the bootstrap token');
  const csr = createCertificateRequest({ commonName: o.commonName, organizations: o.organizations });
  const name = `${o.commonName.replace(/[^a-z0-9.-]/g, '-')}-${now.getTime().toString(36)}`.slice(0, 253);
  const usages = o.signerName.endsWith('/api-server-client') ? ['client auth', 'digital signature'] : ['digital signature', 'client auth'];
  const body = {
    apiVersion: `certificates.${o.apiDomain}/v1`,
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: csr.request, signerName: o.signerName, usages, ...(o.expirationSeconds ? { expirationSeconds: o.expirationSeconds } : {}) },
  };
  const path = `/apis/certificates.${o.apiDomain}/v1/certificatesigningrequests`;
  const created = await call(cluster.server, 'POST', path, creds, body);
  if (created.status !== 201) throw new Error(`the certificate request was refused: HTTP ${created.status} ${created.json?.message ?? ''}`.trim());
  const deadline = Date.now() + o.waitMs;
  for (;;) {
    const r = await call(cluster.server, 'GET', `${path}/${name}`, creds);
    if (r.status !== 200) throw new Error(`reading the certificate request failed: HTTP ${r.status} ${r.json?.message ?? ''}`.trim());
    const conditions = (r.json.status?.conditions ?? []) as { type: string; reason?: string; message?: string }[];
    const final = conditions.find((c) => c.type === 'Denied' || c.type === 'Failed');
    if (final) throw new Error(`the certificate request ${name} was ${final.type.toLowerCase()}: ${final.reason ?? ''} ${final.message ?? ''}`.trim());
    if (r.json.status?.certificate) {
      const certPem = Buffer.from(r.json.status.certificate as string, 'base64').toString('utf8');
      new X509Certificate(certPem); // a certificate that does not parse is not stored
      await saveCredential(o.dir, certPem, csr.keyPem);
      return (await loadCredential(o.dir))!;
    }
    if (Date.now() > deadline) throw new Error(`the certificate request ${name} was not approved and signed within ${Math.round(o.waitMs / 1000)} s`);
    await new Promise((res) => setTimeout(res, 250));
  }
}
