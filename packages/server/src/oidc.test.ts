import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseFlags } from './flags.js';
import { startOidcAuthenticator } from './oidc.js';

describe('startOidcAuthenticator', () => {
  const dir = mkdtempSync(join(tmpdir(), 'oidc-flags-'));
  const logger = pino({ level: 'silent' });
  const flags = (...extra: string[]) => parseFlags(['--oidc-issuer-url=https://127.0.0.1:1/idp', '--oidc-client-id=kube', ...extra]);

  test('no issuer: no method', async () => {
    expect(await startOidcAuthenticator(parseFlags([]), [], logger)).toBeUndefined();
  });

  test('an unreadable or non-PEM --oidc-ca-file stops start-up', async () => {
    await expect(startOidcAuthenticator(flags(`--oidc-ca-file=${join(dir, 'missing.pem')}`), [], logger)).rejects.toThrow('failed to read the OIDC CA file');
    writeFileSync(join(dir, 'junk.pem'), 'not a certificate');
    await expect(startOidcAuthenticator(flags(`--oidc-ca-file=${join(dir, 'junk.pem')}`), [], logger)).rejects.toThrow('holds no PEM certificate');
  });

  test('an unreachable issuer does not stop start-up', async () => {
    const oidc = await startOidcAuthenticator(flags(), [], logger);
    expect(oidc).toBeDefined();
    expect(oidc!.keys.discovered).toBe(false);
    oidc!.stop();
  });
});
