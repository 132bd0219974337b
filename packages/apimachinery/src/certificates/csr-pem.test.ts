import { execFileSync } from 'node:child_process';
import { certificatePemError, verifyCertificateRequest } from './csr-pem.js';
import { decodePemBlocks, encodePem } from './pem.js';
import { makeTestCsr, type TestCsrOptions } from './certificate-request.js';

/** A self-signed certificate from openssl, to check status.certificate acceptance. */
function selfSignedCert(): string {
  return execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=ca', '-days', '1'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  ).toString();
}

function reason(pem: string): string {
  try {
    verifyCertificateRequest(pem);
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

describe('verifyCertificateRequest', () => {
  test.each<[string, TestCsrOptions, string]>([
    ['RSA 2048 SHA-256', { key: 'rsa2048' }, ''],
    ['ECDSA P-256', { key: 'p256' }, ''],
    ['ECDSA P-384 SHA-384', { key: 'p384', hash: 'sha384' }, ''],
    ['RSA 1024', { key: 'rsa1024' }, 'RSA keys must have at least 2048 bits, found 1024'],
    ['ECDSA P-521', { key: 'p521' }, 'ECDSA keys must use curve P-256 or P-384, found secp521r1'],
    ['Ed25519', { key: 'ed25519' }, 'x509: cannot verify signature: algorithm unimplemented'],
    ['SHA-1', { key: 'p256', hash: 'sha1' }, 'x509: cannot verify signature: insecure algorithm ECDSA-SHA1'],
    ['bad RSA signature', { key: 'rsa2048', corruptSignature: true }, 'x509: the request signature does not verify with its public key'],
    ['bad ECDSA signature', { key: 'p256', corruptSignature: true }, 'x509: the request signature does not verify with its public key'],
  ])('%s', (_name, opts, want) => {
    expect(reason(makeTestCsr(opts).pem)).toBe(want);
  });

  test('reports the key it verified', () => {
    expect(verifyCertificateRequest(makeTestCsr({ key: 'p384' }).pem)).toEqual({ keyAlgorithm: 'ECDSA', keySize: 'P-384', signatureAlgorithm: 'ECDSA-SHA256' });
    expect(verifyCertificateRequest(Buffer.from(makeTestCsr({ key: 'rsa2048' }).pem))).toEqual({
      keyAlgorithm: 'RSA',
      keySize: 2048,
      signatureAlgorithm: 'SHA256-RSA',
    });
  });

  test.each(['rsa2048', 'p384'] as const)('openssl verifies the %s test requests too', (key) => {
    const out = execFileSync('openssl', ['req', '-verify', '-noout'], { input: makeTestCsr({ key }).pem, stdio: ['pipe', 'pipe', 'pipe'] });
    expect(out.toString()).toBe('');
  });

  test('accepts a request made by openssl', () => {
    const pem = execFileSync('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=alice/O=devs'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();
    expect(reason(pem)).toBe('');
  });

  const der = decodePemBlocks(makeTestCsr().pem)[0]?.bytes ?? Buffer.alloc(0);
  test.each<[string, string, string]>([
    ['empty', '', 'PEM block type must be CERTIFICATE REQUEST'],
    ['not PEM', 'hello', 'PEM block type must be CERTIFICATE REQUEST'],
    ['a certificate instead', encodePem('CERTIFICATE', der), 'PEM block type must be CERTIFICATE REQUEST'],
    ['garbage DER', encodePem('CERTIFICATE REQUEST', Buffer.from([0x30, 0x03, 1, 2, 3])), 'x509: malformed certificate request'],
    ['trailing data', encodePem('CERTIFICATE REQUEST', Buffer.concat([der, Buffer.from([0])])), 'x509: trailing data'],
    ['truncated', encodePem('CERTIFICATE REQUEST', der.subarray(0, der.length - 5)), 'x509: trailing data'],
  ])('rejects %s', (_name, pem, want) => {
    expect(reason(pem)).toBe(want);
  });

  test('text before the block is skipped, as pem.Decode does', () => {
    expect(reason(`a comment\n${makeTestCsr().pem}`)).toBe('');
  });
});

describe('certificatePemError', () => {
  const cert = selfSignedCert();
  test.each<[string, string, string | undefined]>([
    ['empty', '', undefined],
    ['one certificate', cert, undefined],
    ['a chain', cert + cert, undefined],
    ['no PEM', 'not a certificate', 'must contain at least one CERTIFICATE PEM block'],
    ['a key block', cert + makeTestCsr().keyPem, 'only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"'],
    ['headers', cert.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n'), 'no PEM block headers are permitted'],
    ['not X.509', encodePem('CERTIFICATE', Buffer.from('nope')), 'x509: malformed certificate'],
  ])('%s', (_name, pem, want) => {
    expect(certificatePemError(pem)).toBe(want);
  });
});
