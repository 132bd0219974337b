import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from './flags.js';
import { extensionAuthenticationData, withFrontProxyDefaults } from './start-aggregator.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'front-proxy-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('withFrontProxyDefaults', () => {
  test('the embedded default gets a front-proxy CA, a client certificate it signed, and the authenticating proxy on that CA', async () => {
    const opts = await withFrontProxyDefaults(parseFlags(['--data-dir', dir]), dir);
    expect(opts.proxyClientCertFile).toBe(join(dir, 'certs', 'front-proxy-client.crt'));
    expect(opts.requestheaderClientCaFile).toBe(join(dir, 'certs', 'front-proxy-ca.crt'));
    expect(opts.requestheaderAllowedNames).toEqual(['front-proxy-client']);
    expect([opts.requestheaderUsernameHeaders, opts.requestheaderGroupHeaders, opts.requestheaderExtraHeadersPrefix]).toEqual([['X-Remote-User'], ['X-Remote-Group'], ['X-Remote-Extra-']]);
    const ca = new X509Certificate(await readFile(opts.requestheaderClientCaFile, 'utf8'));
    const client = new X509Certificate(await readFile(opts.proxyClientCertFile, 'utf8'));
    expect(client.subject).toBe('CN=front-proxy-client');
    expect(client.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect((await stat(opts.proxyClientKeyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'certs', 'front-proxy-ca.key'))).mode & 0o777).toBe(0o600);
    // A restart keeps them.
    const again = await withFrontProxyDefaults(parseFlags(['--data-dir', dir]), dir);
    expect(await readFile(again.proxyClientCertFile, 'utf8')).toBe(await readFile(opts.proxyClientCertFile, 'utf8'));
    // Two RSA keys are generated: seconds on a loaded 2-core machine.
  }, 60_000);

  test.each([
    ['an authenticating proxy of its own', ['--requestheader-client-ca-file', '/x/ca.crt']],
    ['explicit serving certificates', ['--tls-cert-file', '/x/tls.crt', '--tls-private-key-file', '/x/tls.key']],
    ['an explicit proxy client certificate', ['--proxy-client-cert-file', '/x/p.crt', '--proxy-client-key-file', '/x/p.key']],
  ])('nothing is generated with %s', async (_name, flags) => {
    const given = parseFlags(['--data-dir', dir, ...flags]);
    expect(await withFrontProxyDefaults(given, dir)).toBe(given);
  });

  test('a proxy client certificate without its key is refused', async () => {
    await expect(withFrontProxyDefaults(parseFlags(['--data-dir', dir, '--proxy-client-cert-file', '/x/p.crt']), dir)).rejects.toThrow('must be given together');
  });
});

test('extension-apiserver-authentication carries the CAs and the header names as JSON lists', () => {
  const opts = parseFlags(['--requestheader-allowed-names', 'front-proxy-client', '--requestheader-username-headers', 'X-Remote-User', '--requestheader-group-headers', 'X-Remote-Group', '--requestheader-extra-headers-prefix', 'X-Remote-Extra-']);
  expect(extensionAuthenticationData(opts, 'CLIENT-CA', 'PROXY-CA')).toEqual({
    'client-ca-file': 'CLIENT-CA',
    'requestheader-client-ca-file': 'PROXY-CA',
    'requestheader-allowed-names': '["front-proxy-client"]',
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  });
  expect(extensionAuthenticationData(opts, undefined, undefined)).toEqual({});
});
