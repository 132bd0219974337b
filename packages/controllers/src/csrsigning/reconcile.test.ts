import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateRequestDetails, certificateSubject, makeTestCsr, type TestCsrOptions } from '@cluster/apimachinery';
import { signerVerdict } from './policy.js';
import { signingAction, validityWindow, type CertificateSigningRequest } from './reconcile.js';
import { issueCertificate, loadSigningAuthority, type SigningAuthority } from './x509.js';

const D = 'k8s.io';
const NODE_CLIENT = `${D}/api-server-client-node-agent`;
const SERVING = `${D}/node-agent-serving`;
const CLIENT = `${D}/api-server-client`;
const nodeSubject: TestCsrOptions = { commonName: 'system:node:n1', organizations: ['system:nodes'] };
const nodeClientUsages = ['key encipherment', 'digital signature', 'client auth'];
const servingUsages = ['key encipherment', 'digital signature', 'server auth'];

const verdict = (signer: string, csr: TestCsrOptions, usages: string[]) => signerVerdict(D, signer, certificateRequestDetails(makeTestCsr(csr).pem), usages);

describe('signer rules of SPEC 4.11', () => {
  test.each<[string, string, TestCsrOptions, string[], string | undefined]>([
    ['client: client auth alone', CLIENT, { commonName: 'alice' }, ['client auth'], undefined],
    ['client: the three allowed usages', CLIENT, { commonName: 'alice', dnsNames: ['a'] }, ['digital signature', 'key encipherment', 'client auth'], undefined],
    ['client: server auth is not allowed', CLIENT, { commonName: 'alice' }, ['client auth', 'server auth'], 'invalid usage for client certificate: server auth'],
    ['client: cert sign is not allowed', CLIENT, { commonName: 'alice' }, ['client auth', 'cert sign'], 'invalid usage for client certificate: cert sign'],
    ['client: client auth is required', CLIENT, { commonName: 'alice' }, ['digital signature'], 'missing required usage for client certificate: client auth'],
    ['node client: valid', NODE_CLIENT, nodeSubject, nodeClientUsages, undefined],
    ['node client: ECDSA may leave out key encipherment', NODE_CLIENT, nodeSubject, ['digital signature', 'client auth'], undefined],
    ['node client: organization must be system:nodes', NODE_CLIENT, { ...nodeSubject, organizations: ['devs'] }, nodeClientUsages, 'subject organization is not system:nodes'],
    ['node client: exactly one organization', NODE_CLIENT, { ...nodeSubject, organizations: ['system:nodes', 'x'] }, nodeClientUsages, 'subject organization is not system:nodes'],
    ['node client: common name prefix', NODE_CLIENT, { ...nodeSubject, commonName: 'n1' }, nodeClientUsages, 'subject common name does not begin with system:node:'],
    ['node client: no DNS SAN', NODE_CLIENT, { ...nodeSubject, dnsNames: ['n1'] }, nodeClientUsages, 'DNS subjectAltNames are not allowed'],
    ['node client: no IP SAN', NODE_CLIENT, { ...nodeSubject, ipAddresses: ['10.0.0.1'] }, nodeClientUsages, 'IP subjectAltNames are not allowed'],
    ['node client: no email SAN', NODE_CLIENT, { ...nodeSubject, emailAddresses: ['a@b.c'] }, nodeClientUsages, 'Email subjectAltNames are not allowed'],
    ['node client: no URI SAN', NODE_CLIENT, { ...nodeSubject, uris: ['spiffe://a/b'] }, nodeClientUsages, 'URI subjectAltNames are not allowed'],
    ['node client: exact usages (extra)', NODE_CLIENT, nodeSubject, [...nodeClientUsages, 'server auth'], 'usages did not match [client auth digital signature key encipherment]'],
    ['node client: exact usages (missing)', NODE_CLIENT, nodeSubject, ['client auth'], 'usages did not match [client auth digital signature key encipherment]'],
    ['serving: valid with DNS', SERVING, { ...nodeSubject, dnsNames: ['n1.local'] }, servingUsages, undefined],
    ['serving: valid with IP', SERVING, { ...nodeSubject, ipAddresses: ['10.0.0.1'] }, servingUsages, undefined],
    ['serving: organization', SERVING, { ...nodeSubject, organizations: [], dnsNames: ['n1'] }, servingUsages, 'subject organization is not system:nodes'],
    ['serving: a DNS or IP name is required', SERVING, nodeSubject, servingUsages, 'DNS or IP subjectAltName is required'],
    ['serving: no email SAN', SERVING, { ...nodeSubject, dnsNames: ['n1'], emailAddresses: ['a@b.c'] }, servingUsages, 'Email subjectAltNames are not allowed'],
    ['serving: no URI SAN', SERVING, { ...nodeSubject, dnsNames: ['n1'], uris: ['spiffe://a/b'] }, servingUsages, 'URI subjectAltNames are not allowed'],
    ['serving: exact usages', SERVING, { ...nodeSubject, dnsNames: ['n1'] }, nodeClientUsages, 'usages did not match [digital signature key encipherment server auth]'],
    ['serving: common name prefix', SERVING, { ...nodeSubject, commonName: 'web', dnsNames: ['n1'] }, servingUsages, 'subject common name does not begin with system:node:'],
  ])('%s', (_, signer, csr, usages, error) => {
    const v = verdict(signer, csr, usages);
    expect(v.recognized).toBe(true);
    expect(v.recognized && v.error).toBe(error ?? undefined);
  });

  test('other signers are not ours', () => {
    expect(verdict('example.com/custom', nodeSubject, nodeClientUsages)).toEqual({ recognized: false });
    expect(verdict(`other.io/api-server-client`, nodeSubject, nodeClientUsages)).toEqual({ recognized: false });
  });

  test('only the serving and plain client signers honour subjectAltNames', () => {
    expect(verdict(SERVING, { ...nodeSubject, dnsNames: ['n1'] }, servingUsages)).toMatchObject({ honourSubjectAltNames: true });
    expect(verdict(NODE_CLIENT, nodeSubject, nodeClientUsages)).toMatchObject({ honourSubjectAltNames: false });
  });
});

const NOW = new Date('2030-06-01T00:00:00Z');
const YEAR = 365 * 24 * 3600 * 1000;
const policy = { apiDomain: D, maxDurationMs: YEAR, caNotAfter: new Date('2040-01-01T00:00:00Z'), now: NOW };
const approved = { type: 'Approved', status: 'True', reason: 'AutoApproved' };
const csrOf = (csr: TestCsrOptions, signerName: string, usages: string[], status: CertificateSigningRequest['status'] = { conditions: [approved] }, expirationSeconds?: number): CertificateSigningRequest => ({
  metadata: { name: 'c' },
  spec: { request: makeTestCsr(csr).request, signerName, usages, expirationSeconds },
  status,
});

describe('signingAction', () => {
  test.each<[string, CertificateSigningRequest, string]>([
    ['pending', csrOf(nodeSubject, NODE_CLIENT, nodeClientUsages, {}), 'not approved'],
    ['approved then failed', csrOf(nodeSubject, NODE_CLIENT, nodeClientUsages, { conditions: [approved, { type: 'Failed', status: 'True' }] }), 'failed'],
    ['denied', csrOf(nodeSubject, NODE_CLIENT, nodeClientUsages, { conditions: [{ type: 'Denied', status: 'True' }] }), 'not approved'],
    ['already issued', csrOf(nodeSubject, NODE_CLIENT, nodeClientUsages, { conditions: [approved], certificate: 'eA==' }), 'issued'],
    ['a custom signer', csrOf(nodeSubject, 'example.com/x', nodeClientUsages), 'not a built-in signer'],
  ])('%s: skipped', (_, csr, why) => {
    expect(signingAction(csr, policy)).toEqual({ action: 'skip', why });
  });

  test('an approved request that breaks its signer\'s rules fails', () => {
    expect(signingAction(csrOf({ commonName: 'x' }, NODE_CLIENT, nodeClientUsages), policy)).toEqual({ action: 'fail', message: 'subject organization is not system:nodes' });
  });

  test('an approved valid request is signed for min(duration, expirationSeconds)', () => {
    const a = signingAction(csrOf(nodeSubject, NODE_CLIENT, nodeClientUsages, undefined, 3600), policy);
    expect(a.action).toBe('sign');
    if (a.action !== 'sign') return;
    expect(a.notAfter.getTime() - NOW.getTime()).toBe(3600_000);
    expect(a.request.commonName).toBe('system:node:n1');
  });
});

describe('validityWindow', () => {
  test('the signing duration bounds a longer request; the CA expiry bounds both', () => {
    expect(validityWindow(policy, undefined).notAfter.getTime() - NOW.getTime()).toBe(YEAR);
    expect(validityWindow(policy, 10 * YEAR / 1000).notAfter.getTime() - NOW.getTime()).toBe(YEAR);
    expect(validityWindow({ ...policy, caNotAfter: new Date('2030-07-01T00:00:00Z') }, undefined).notAfter).toEqual(new Date('2030-07-01T00:00:00Z'));
    expect(NOW.getTime() - validityWindow(policy, undefined).notBefore.getTime()).toBe(5 * 60_000);
    expect(NOW.getTime() - validityWindow(policy, 600).notBefore.getTime()).toBeLessThan(10_000);
  });
});

function makeCa(kind: 'rsa' | 'ec'): SigningAuthority {
  const dir = mkdtempSync(join(tmpdir(), 'signer-ca-'));
  const keyArgs = kind === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  execFileSync('openssl', ['req', '-x509', ...keyArgs, '-nodes', '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.crt'), '-subj', '/CN=signing-ca', '-days', '3650'], { stdio: 'ignore' });
  return loadSigningAuthority(readFileSync(join(dir, 'ca.crt'), 'utf8'), readFileSync(join(dir, 'ca.key'), 'utf8'));
}

describe('issueCertificate', () => {
  test.each(['rsa', 'ec'] as const)('a %s CA issues a leaf that verifies, with the asked subject, usages and lifetime and no CA bit', (kind) => {
    const ca = makeCa(kind);
    const now = new Date();
    const window = validityWindow({ ...policy, now, caNotAfter: ca.notAfter }, 3600);
    const request = certificateRequestDetails(makeTestCsr({ ...nodeSubject, key: 'p256' }).pem);
    const pem = issueCertificate(ca, { request, usages: nodeClientUsages, honourSubjectAltNames: false, ...window });
    const cert = new X509Certificate(pem);
    expect(cert.verify(ca.certificate.publicKey)).toBe(true);
    expect(cert.checkIssued(ca.certificate)).toBe(true);
    expect(cert.subject).toBe('O=system:nodes\nCN=system:node:n1');
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(new Date(cert.validTo).getTime()).toBe(Math.floor(window.notAfter.getTime() / 1000) * 1000);
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem }).toString();
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment/);
    expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(text).not.toContain('Subject Alternative Name');
  });

  test('the subject is issued re-encoded from what the name reader read, never the requested bytes (as Go)', () => {
    const ca = makeCa('ec');
    // An IA5String O and a T61String CN are read as text; the certificate carries PrintableStrings.
    const request = certificateRequestDetails(makeTestCsr({ commonName: 'carol', commonNameTag: 0x14, organizations: ['devs', 'ops'], organizationTag: 0x16 }).pem);
    const window = validityWindow({ ...policy, now: new Date(), caNotAfter: ca.notAfter }, undefined);
    const cert = new X509Certificate(issueCertificate(ca, { request, usages: ['client auth'], honourSubjectAltNames: false, ...window }));
    // Both O values in one RDN, a DER SET OF sorted by encoding, as Go marshals pkix.Name.
    expect(certificateSubject(new Uint8Array(cert.raw))).toMatchObject({ organization: ['ops', 'devs'], commonName: 'carol' });
    const hex = Buffer.from(cert.raw).toString('hex');
    expect(hex).toContain(`1304${Buffer.from('devs').toString('hex')}`);
    expect(hex).not.toContain(`1604${Buffer.from('devs').toString('hex')}`);
    expect(hex).toContain(`1305${Buffer.from('carol').toString('hex')}`);
  });

  test('subjectAltNames are copied only when the signer honours them', () => {
    const ca = makeCa('rsa');
    const request = certificateRequestDetails(makeTestCsr({ ...nodeSubject, dnsNames: ['n1.local'], ipAddresses: ['10.0.0.7'] }).pem);
    const window = validityWindow({ ...policy, now: new Date(), caNotAfter: ca.notAfter }, undefined);
    const cert = new X509Certificate(issueCertificate(ca, { request, usages: servingUsages, honourSubjectAltNames: true, ...window }));
    expect(cert.subjectAltName).toBe('DNS:n1.local, IP Address:10.0.0.7');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });
});
