import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { ensureCertificates, serialNumberHex } from './certs.js';

/** RSA keys are generated: seconds on a loaded 2-core machine. */
const KEYGEN_MS = 60_000;
const HOSTS = ['127.0.0.1', 'localhost', '::1', 'node-a.example'];

describe('ensureCertificates', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'certs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('generates a CA and a serving certificate signed by it', async () => {
    const certDir = join(dir, 'certs');
    const certs = await ensureCertificates({ certDir, hosts: HOSTS });
    expect(certs.generated).toEqual({ ca: true, serving: true });
    expect(certs.caFile).toBe(join(certDir, 'ca.crt'));
    expect(certs.certFile).toBe(join(certDir, 'apiserver.crt'));
    expect(certs.keyFile).toBe(join(certDir, 'apiserver.key'));

    const ca = new X509Certificate(certs.caCertPem);
    expect(ca.subject).toBe('CN=cluster-ca');
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(ca.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const caYears = (Date.parse(ca.validTo) - Date.parse(ca.validFrom)) / (365.25 * 86_400_000);
    expect(Math.round(caYears)).toBe(10);

    const serving = new X509Certificate(certs.servingCertPem);
    expect(serving.ca).toBe(false);
    expect(serving.checkIssued(ca)).toBe(true);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.subjectAltName).toBe(
      'IP Address:127.0.0.1, DNS:localhost, IP Address:0:0:0:0:0:0:0:1, DNS:node-a.example',
    );
    expect(serving.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // serverAuth
    expect(serving.checkPrivateKey(createPrivateKey(certs.servingKeyPem))).toBe(true);
    const days = (Date.parse(serving.validTo) - Date.parse(serving.validFrom)) / 86_400_000;
    expect(Math.round(days)).toBe(365);

    expect(await readFile(certs.caFile, 'utf8')).toBe(certs.caCertPem);
    expect((await stat(join(certDir, 'ca.key'))).mode & 0o777).toBe(0o600);
    expect((await stat(certs.keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(certDir)).mode & 0o777).toBe(0o700);
  }, KEYGEN_MS);

  test('a second call reuses the files', async () => {
    const first = await ensureCertificates({ certDir: dir, hosts: HOSTS });
    const second = await ensureCertificates({ certDir: dir, hosts: ['localhost', '127.0.0.1'] });
    expect(second.generated).toEqual({ ca: false, serving: false });
    expect(second.caCertPem).toBe(first.caCertPem);
    expect(second.caKeyPem).toBe(first.caKeyPem);
    expect(second.servingCertPem).toBe(first.servingCertPem);
    expect(second.servingKeyPem).toBe(first.servingKeyPem);
  }, KEYGEN_MS);

  test('re-issues the serving certificate from the same CA when a host is missing', async () => {
    const first = await ensureCertificates({ certDir: dir, hosts: ['127.0.0.1'] });
    const second = await ensureCertificates({ certDir: dir, hosts: ['127.0.0.1', 'new-name'] });
    expect(second.generated).toEqual({ ca: false, serving: true });
    expect(second.caCertPem).toBe(first.caCertPem);
    const serving = new X509Certificate(second.servingCertPem);
    expect(serving.verify(new X509Certificate(first.caCertPem).publicKey)).toBe(true);
    expect(serving.checkHost('new-name')).toBe('new-name');
  }, KEYGEN_MS);

  test('re-issues an expired serving certificate', async () => {
    await ensureCertificates({ certDir: dir, hosts: ['127.0.0.1'], now: new Date('2020-01-01T00:00:00Z') });
    const later = await ensureCertificates({ certDir: dir, hosts: ['127.0.0.1'] });
    expect(later.generated).toEqual({ ca: false, serving: true });
  }, KEYGEN_MS);

  test('refuses half a CA', async () => {
    await writeFile(join(dir, 'ca.crt'), 'x');
    await expect(ensureCertificates({ certDir: dir, hosts: ['localhost'] })).rejects.toThrow(
      `incomplete cluster CA in ${dir}: need both ca.crt and ca.key, or neither`,
    );
  }, KEYGEN_MS);

  test('a TLS client trusting the CA accepts the serving certificate', async () => {
    const certs = await ensureCertificates({ certDir: dir, hosts: ['127.0.0.1', 'localhost'] });
    const server = createServer({ cert: certs.servingCertPem, key: certs.servingKeyPem }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        const body = await new Promise<string>((resolve, reject) => {
          const req = request(
            { host: '127.0.0.1', servername: host === 'localhost' ? host : undefined, port, ca: certs.caCertPem, timeout: 5000 },
            (res) => {
              let data = '';
              res.on('data', (c: Buffer) => (data += c.toString()));
              res.on('end', () => resolve(data));
            },
          );
          req.on('error', reject);
          req.end();
        });
        expect(body).toBe('ok');
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, KEYGEN_MS);
});

describe('serialNumberHex', () => {
  // A certificate forge signs with `serial` as its serial number, loaded by OpenSSL.
  const loads = (serial: string): boolean => {
    const keys = forge.pki.rsa.generateKeyPair({ bits: 512, e: 0x10001 });
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = serial;
    cert.validity.notBefore = new Date(0);
    cert.validity.notAfter = new Date(86_400_000);
    cert.setSubject([{ name: 'commonName', value: 'serial' }]);
    cert.setIssuer([{ name: 'commonName', value: 'serial' }]);
    cert.sign(keys.privateKey);
    try {
      new X509Certificate(forge.pki.certificateToPem(cert));
      return true;
    } catch {
      return false;
    }
  };

  test('random bytes whose first byte masks to zero still give a serial OpenSSL accepts', () => {
    for (const first of [0x00, 0x80]) {
      const random = Buffer.alloc(16, 0x11);
      random[0] = first;
      random[1] = 0x00;
      const hex = serialNumberHex(random);
      expect(hex).toMatch(/^(0[1-9a-f]|[1-7][0-9a-f])/);
      expect(loads(hex)).toBe(true);
    }
    // What such random bytes gave before: two leading zero bytes, of which forge drops one.
    expect(loads(`0000${'11'.repeat(14)}`)).toBe(false);
  });

  test('a serial is always positive and 16 bytes', () => {
    for (let i = 0; i < 256; i++) {
      const hex = serialNumberHex(Buffer.alloc(16, i));
      expect(hex).toHaveLength(32);
      expect(parseInt(hex.slice(0, 2), 16)).toBeGreaterThan(0);
      expect(parseInt(hex.slice(0, 2), 16)).toBeLessThan(0x80);
    }
  });
});
