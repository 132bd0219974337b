import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withFrontProxyDefaults } from './start-aggregator.js';
import { parseFlags } from './flags.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'front-proxy-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a fresh data directory gets the front-proxy CA and client certificate (the cert dir is made)', async () => {
  const dataDir = join(dir, 'data');
  const opts = await withFrontProxyDefaults(parseFlags([`--data-dir=${dataDir}`]), dataDir);
  expect(opts.proxyClientCertFile).toBe(join(dataDir, 'certs', 'front-proxy-client.crt'));
  expect(readFileSync(join(dataDir, 'certs', 'front-proxy-ca.crt'), 'utf8')).toContain('BEGIN CERTIFICATE');
  expect(readFileSync(join(dataDir, 'certs', 'front-proxy-client.key'), 'utf8')).toContain('PRIVATE KEY');
});
