import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { KubeObject } from '@cluster/apimachinery';
import { ServiceAccountAuthenticator, type ObjectLookup } from './service-account.js';
import { ServiceAccountTokenIssuer } from './service-account-token.js';
import { keyIdOf, parsePrivateKey, parsePublicKeys } from './service-account-keys.js';

const ISS = 'https://issuer.example';
const NOW = Date.parse('2030-01-01T00:00:00Z');
const ec256 = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const ec384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const stranger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

const objects = new Map<string, KubeObject>();
const lookup = (resource: string): ObjectLookup => async (ns, name) => objects.get(`${resource}/${ns}/${name}`);
function put(resource: string, name: string, uid: string, deletionTimestamp?: string) {
  objects.set(`${resource}/ns/${name}`, { metadata: { name, namespace: 'ns', uid, deletionTimestamp } });
}

function authenticator(opts: { apiAudiences?: string[] } = {}) {
  return new ServiceAccountAuthenticator({
    keys: [rsa.publicKey, ec256.publicKey, ec384.publicKey],
    issuers: ['https://other.example', ISS],
    apiAudiences: opts.apiAudiences ?? [ISS],
    apiDomain: 'k8s.io',
    lookup: { serviceAccount: lookup('sa'), secret: lookup('secret'), pod: lookup('pod') },
    now: () => NOW,
  });
}

async function issue(key: KeyObject, over: { secret?: boolean; pod?: boolean; audiences?: string[]; now?: number; expirationSeconds?: number; issuer?: string } = {}) {
  const issuer = new ServiceAccountTokenIssuer(key, over.issuer ?? ISS, 'k8s.io');
  const { token } = await issuer.issue({
    namespace: 'ns',
    serviceAccount: { name: 'robot', uid: 'sa-uid' },
    secret: over.secret ? { name: 'anchor', uid: 'secret-uid' } : undefined,
    pod: over.pod ? { name: 'web', uid: 'pod-uid' } : undefined,
    audiences: over.audiences ?? [ISS],
    expirationSeconds: over.expirationSeconds ?? 3600,
    now: over.now ?? NOW,
  });
  return token;
}

beforeEach(() => {
  objects.clear();
  put('sa', 'robot', 'sa-uid');
  put('secret', 'anchor', 'secret-uid');
  put('pod', 'web', 'pod-uid');
});

describe('ServiceAccountAuthenticator', () => {
  test.each([
    ['ECDSA P-256', ec256.privateKey, 'ES256'],
    ['ECDSA P-384', ec384.privateKey, 'ES384'],
    ['RSA', rsa.privateKey, 'RS256'],
  ])('accepts a token signed with %s', async (_n, key, alg) => {
    const token = await issue(key);
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({ alg, kid: keyIdOf(key) });
    const r = await authenticator().authenticateToken(token);
    expect(r).toEqual({
      user: {
        username: 'system:serviceaccount:ns:robot',
        uid: 'sa-uid',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
        extra: { 'authentication.k8s.io/credential-id': [expect.stringMatching(/^JTI=[0-9a-f-]{36}$/)] },
      },
      audiences: undefined,
    });
  });

  const unauthorized = { status: { code: 401, reason: 'Unauthorized' } };

  test.each<[string, () => Promise<string>]>([
    ['expired beyond the leeway', () => issue(ec256.privateKey, { now: NOW - 3600_000 - 61_000 })],
    ['not yet valid beyond the leeway', () => issue(ec256.privateKey, { now: NOW + 61_000 })],
    ['signed by an unknown key', () => issue(stranger.privateKey)],
    ['for another audience', () => issue(ec256.privateKey, { audiences: ['vault'] })],
    [
      'with a tampered payload',
      async () => {
        const [h, p, s] = (await issue(ec256.privateKey)).split('.');
        const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
        claims.sub = 'system:serviceaccount:ns:admin';
        return [h, Buffer.from(JSON.stringify(claims)).toString('base64url'), s].join('.');
      },
    ],
    [
      'whose subject does not match the private claim',
      () =>
        new SignJWT({ 'k8s.io': { namespace: 'ns', serviceaccount: { name: 'robot', uid: 'sa-uid' } } })
          .setProtectedHeader({ alg: 'ES256' })
          .setIssuer(ISS)
          .setAudience(ISS)
          .setSubject('system:serviceaccount:ns:other')
          .setExpirationTime(NOW / 1000 + 600)
          .sign(ec256.privateKey),
    ],
    [
      'without the private claim',
      () => new SignJWT({}).setProtectedHeader({ alg: 'ES256' }).setIssuer(ISS).setAudience(ISS).setSubject('x').sign(ec256.privateKey),
    ],
  ])('rejects a token %s with 401', async (_n, make) => {
    await expect(authenticator().authenticateToken(await make())).rejects.toMatchObject(unauthorized);
  });

  test('accepts within the 60 s leeway', async () => {
    expect(await authenticator().authenticateToken(await issue(ec256.privateKey, { now: NOW - 3600_000 - 59_000 }))).toBeDefined();
    expect(await authenticator().authenticateToken(await issue(ec256.privateKey, { now: NOW + 59_000 }))).toBeDefined();
  });

  test.each([
    ['not a JWT', 'abcdef.0123456789abcdef'],
    ['an opaque string', 'secret-token'],
    ['a malformed header', `${Buffer.from('{"alg":').toString('base64url')}.e30.sig`],
    ['bad base64 segments', '!!!.???.***'],
  ])('leaves %s to the next method', async (_n, token) => {
    expect(await authenticator().authenticateToken(token)).toBeUndefined();
  });

  test('leaves a JWT of another issuer to the next method', async () => {
    expect(await authenticator().authenticateToken(await issue(ec256.privateKey, { issuer: 'https://elsewhere' }))).toBeUndefined();
  });

  test('lookup: deleted account, recreated account, deleted or recreated bound Secret', async () => {
    const plain = await issue(ec256.privateKey);
    const bound = await issue(ec256.privateKey, { secret: true });
    const a = authenticator();
    expect(await a.authenticateToken(bound)).toBeDefined();
    objects.delete('secret/ns/anchor');
    await expect(a.authenticateToken(bound)).rejects.toMatchObject(unauthorized);
    expect(await a.authenticateToken(plain)).toBeDefined();
    put('secret', 'anchor', 'other-uid');
    await expect(a.authenticateToken(bound)).rejects.toMatchObject(unauthorized);
    put('sa', 'robot', 'new-uid');
    await expect(a.authenticateToken(plain)).rejects.toMatchObject(unauthorized);
    objects.delete('sa/ns/robot');
    await expect(a.authenticateToken(plain)).rejects.toMatchObject(unauthorized);
  });

  test('a pod-bound token: pod name and uid in the claims and the user extras; invalid once the pod is gone or replaced', async () => {
    const token = await issue(ec256.privateKey, { pod: true });
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims['k8s.io']).toEqual({ namespace: 'ns', serviceaccount: { name: 'robot', uid: 'sa-uid' }, pod: { name: 'web', uid: 'pod-uid' } });
    const a = authenticator();
    expect((await a.authenticateToken(token))?.user.extra).toMatchObject({ 'authentication.k8s.io/pod-name': ['web'], 'authentication.k8s.io/pod-uid': ['pod-uid'] });
    put('pod', 'web', 'pod-uid', new Date(NOW - 30_000).toISOString());
    expect(await a.authenticateToken(token)).toBeDefined();
    put('pod', 'web', 'pod-uid', new Date(NOW - 120_000).toISOString());
    await expect(a.authenticateToken(token)).rejects.toMatchObject(unauthorized);
    put('pod', 'web', 'other-uid');
    await expect(a.authenticateToken(token)).rejects.toMatchObject(unauthorized);
    objects.delete('pod/ns/web');
    await expect(a.authenticateToken(token)).rejects.toMatchObject(unauthorized);
  });

  test('a pod claim is never ignored: malformed, or with no pod lookup, it is 401', async () => {
    const forged = (pod: unknown) =>
      new SignJWT({ 'k8s.io': { namespace: 'ns', serviceaccount: { name: 'robot', uid: 'sa-uid' }, pod } })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(ISS)
        .setAudience(ISS)
        .setSubject('system:serviceaccount:ns:robot')
        .setExpirationTime(NOW / 1000 + 600)
        .sign(ec256.privateKey);
    for (const pod of [null, 'web', { uid: 'pod-uid' }, { name: 'web' }]) {
      await expect(authenticator().authenticateToken(await forged(pod))).rejects.toMatchObject(unauthorized);
    }
    const noPods = new ServiceAccountAuthenticator({
      keys: [ec256.publicKey],
      issuers: [ISS],
      apiAudiences: [ISS],
      apiDomain: 'k8s.io',
      lookup: { serviceAccount: lookup('sa'), secret: lookup('secret') },
      now: () => NOW,
    });
    await expect(noPods.authenticateToken(await issue(ec256.privateKey, { pod: true }))).rejects.toMatchObject(unauthorized);
  });

  test('an account whose deletion began within the leeway still authenticates', async () => {
    const token = await issue(ec256.privateKey);
    put('sa', 'robot', 'sa-uid', new Date(NOW - 30_000).toISOString());
    expect(await authenticator().authenticateToken(token)).toBeDefined();
    put('sa', 'robot', 'sa-uid', new Date(NOW - 120_000).toISOString());
    await expect(authenticator().authenticateToken(token)).rejects.toMatchObject(unauthorized);
  });

  test('requested audiences: the intersection is reported; none in common is 401', async () => {
    const token = await issue(ec256.privateKey, { audiences: ['a', 'b', ISS] });
    expect((await authenticator().authenticateToken(token, ['b', 'c']))?.audiences).toEqual(['b']);
    await expect(authenticator().authenticateToken(token, ['c'])).rejects.toMatchObject(unauthorized);
    expect((await authenticator().authenticateToken(token))?.audiences).toBeUndefined();
  });
});

describe('service-account keys', () => {
  test('a PEM file with several keys of both kinds, private and public', () => {
    const pem = [
      rsa.publicKey.export({ type: 'spki', format: 'pem' }),
      ec256.privateKey.export({ type: 'sec1', format: 'pem' }),
      rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }),
      ec384.privateKey.export({ type: 'pkcs8', format: 'pem' }),
    ].join('\n');
    expect(parsePublicKeys(pem).map(keyIdOf)).toEqual([rsa.publicKey, ec256.publicKey, rsa.publicKey, ec384.publicKey].map(keyIdOf));
    expect(keyIdOf(parsePrivateKey(pem))).toBe(keyIdOf(ec256.publicKey));
  });

  test('kid is base64url SHA-256 of the DER public key', () => {
    const der = ec256.publicKey.export({ type: 'spki', format: 'der' });
    expect(keyIdOf(ec256.privateKey)).toBe(createHash('sha256').update(der).digest('base64url'));
  });

  test.each([
    ['no key', 'nothing here', /no RSA or ECDSA key/],
    ['an Ed25519 key', generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string, /unsupported key type ed25519/],
  ])('refuses a file with %s', (_n, pem, err) => {
    expect(() => parsePublicKeys(pem, 'f.pem')).toThrow(err);
  });
});
