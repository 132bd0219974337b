import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlagError, parseFlags } from './flags.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, loadServiceAccountConfig } from './service-accounts.js';

describe('service-account flags', () => {
  test.each<[string[], string]>([
    [['--service-account-signing-key-file=k.pem'], '--service-account-issuer is required when --service-account-signing-key-file is set'],
    [['--service-account-key-file=p.pem', '--service-account-issuer=https://a'], '--service-account-signing-key-file is required when --service-account-key-file and --service-account-issuer are set'],
    [['--service-account-issuer=https://a', '--service-account-issuer=https://a'], '--service-account-issuer "https://a" is already specified'],
    [['--service-account-issuer='], '--service-account-issuer cannot be an empty string'],
    [['--service-account-issuer=http://[::1'], `--service-account-issuer "http://[::1" contained a ':' but was not a valid URL`],
  ])('%j is refused', (args, message) => {
    expect(() => parseFlags(args)).toThrow(new FlagError(message));
  });

  test.each<[string[]]>([[[]], [['--service-account-issuer=cluster']], [['--service-account-issuer=https://a', '--service-account-signing-key-file=k', '--api-audiences=x,y']]])('%j is accepted', (args) => {
    expect(() => parseFlags(args)).not.toThrow();
  });
});

describe('loadServiceAccountConfig', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sa-config-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  test('embedded default: generates sa.key/sa.pub once, issuer and audiences default', async () => {
    const a = await loadServiceAccountConfig(parseFlags([]), join(dir, 'certs'));
    expect(a.issuers).toEqual([DEFAULT_SERVICE_ACCOUNT_ISSUER]);
    expect(a.apiAudiences).toEqual([DEFAULT_SERVICE_ACCOUNT_ISSUER]);
    expect((await stat(join(dir, 'certs', 'sa.key'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dir, 'certs', 'sa.pub'), 'utf8')).toContain('BEGIN PUBLIC KEY');
    const b = await loadServiceAccountConfig(parseFlags([]), join(dir, 'certs'));
    expect(b.signingKey.equals(a.signingKey)).toBe(true);
  });

  test('explicit keys: every key of the key files, plus the signing key; audiences from --api-audiences', async () => {
    const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const old = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    await writeFile(join(dir, 'sign.pem'), signing.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string);
    await writeFile(join(dir, 'verify.pem'), [old.publicKey.export({ type: 'spki', format: 'pem' }), signing.publicKey.export({ type: 'spki', format: 'pem' })].join(''));
    const cfg = await loadServiceAccountConfig(
      parseFlags([
        `--service-account-signing-key-file=${join(dir, 'sign.pem')}`,
        `--service-account-key-file=${join(dir, 'verify.pem')}`,
        '--service-account-issuer=https://one',
        '--service-account-issuer=https://two',
        '--api-audiences=api',
      ]),
      join(dir, 'certs'),
    );
    expect(cfg.issuers).toEqual(['https://one', 'https://two']);
    expect(cfg.apiAudiences).toEqual(['api']);
    expect(cfg.verifyKeys).toHaveLength(3);
    expect(cfg.signingKey.asymmetricKeyType).toBe('rsa');
  });

  test('a key file without keys fails with a one-line message naming it', async () => {
    await writeFile(join(dir, 'empty.pem'), 'nothing');
    await expect(loadServiceAccountConfig(parseFlags([`--service-account-key-file=${join(dir, 'empty.pem')}`]), dir)).rejects.toThrow(
      `${join(dir, 'empty.pem')}: no RSA or ECDSA key found in PEM data`,
    );
  });
});
