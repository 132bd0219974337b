import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatusError, makeTestCsr } from '@cluster/apimachinery';
import { X509Authenticator } from './x509.js';

// Certificates made by openssl, which copies a request's subject bytes as they are: what the
// signer made of a smuggled request before the name reader was shared.
const dir = mkdtempSync(join(tmpdir(), 'x509-authn-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
for (const ca of ['client', 'proxy']) {
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${ca}-ca.key`, '-out', `${ca}-ca.crt`, '-subj', `/CN=${ca}-ca`, '-days', '2');
}
function issue(name: string, ca: string, csrPem: string, days = '1'): Buffer {
  writeFileSync(join(dir, `${name}.csr`), csrPem);
  ssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}-ca.crt`, '-CAkey', `${ca}-ca.key`, '-set_serial', '1', '-out', `${name}.crt`, '-days', days);
  return new X509Certificate(readFileSync(join(dir, `${name}.crt`))).raw;
}
const clientCa = new X509Certificate(readFileSync(join(dir, 'client-ca.crt')));

const carol = issue('carol', 'client', makeTestCsr({ commonName: 'carol', organizations: ['devs', 'ops'] }).pem);
const proxy = issue('front-proxy', 'proxy', makeTestCsr({ commonName: 'front-proxy-client' }).pem);
const numericMasters = issue('numeric', 'client', makeTestCsr({ commonName: 'mallory', organizations: ['system:masters'], organizationTag: 0x12 }).pem);
const badPrintable = issue('printable', 'client', makeTestCsr({ commonName: 'carol@x', commonNameTag: 0x13 }).pem);

/** A request on a TLS socket whose handshake verified `raw` (or presented nothing). */
function requestOn(raw: Buffer | undefined, authorized = true): IncomingMessage {
  const socket = { authorized, getPeerCertificate: () => (raw ? { raw, subject: { CN: 'from-openssl', O: 'system:masters' } } : {}) };
  return { socket } as unknown as IncomingMessage;
}
const unauthorized = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof StatusError && e.status.code === 401;
  }
  return false;
};

test('a client-CA certificate is its CN and O groups', () => {
  expect(new X509Authenticator(() => [clientCa]).authenticate(requestOn(carol))).toEqual({ username: 'carol', groups: ['devs', 'ops'] });
});

test('no certificate, no answer', () => {
  expect(new X509Authenticator(() => [clientCa]).authenticate(requestOn(undefined))).toBeUndefined();
});

test.each<[string, Buffer]>([
  ['O=system:masters as a NumericString (the smuggled certificate)', numericMasters],
  ['a CN with @ in a PrintableString', badPrintable],
  ['a certificate of another CA the listener trusts (the front proxy\'s)', proxy],
])('401 for %s', (_n, raw) => {
  expect(unauthorized(() => new X509Authenticator(() => [clientCa]).authenticate(requestOn(raw)))).toBe(true);
});

test('without --client-ca-file a front-proxy certificate is nobody: the request is not authenticated by x509', () => {
  expect(new X509Authenticator(() => []).authenticate(requestOn(proxy))).toBeUndefined();
  expect(new X509Authenticator(() => []).authenticate(requestOn(carol))).toBeUndefined();
});

test('validity is checked on every request of a connection, not only at the handshake', () => {
  let now = Date.now();
  const authn = new X509Authenticator(() => [clientCa], () => now);
  const req = requestOn(carol);
  expect(authn.authenticate(req)?.username).toBe('carol');
  now += 2 * 24 * 3600 * 1000; // past the leaf's one day
  expect(unauthorized(() => authn.authenticate(req))).toBe(true);
  now -= 3 * 24 * 3600 * 1000; // before it was issued
  expect(unauthorized(() => authn.authenticate(req))).toBe(true);
});

test('a handshake that did not verify is 401', () => {
  expect(unauthorized(() => new X509Authenticator(() => [clientCa]).authenticate(requestOn(carol, false)))).toBe(true);
});
