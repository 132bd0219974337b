import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import { OidcAuthenticator, type OidcAuthenticatorOptions } from './oidc.js';

// The authenticator against an in-memory issuer (the HTTPS one is in the server's integration
// tests): verification rules, key rotation and its rate limit, and start-up while the issuer is down.
const ISSUER = 'https://issuer.test';
const JWKS_URI = 'https://issuer.test/keys';

interface Key {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(kid: string, alg: 'RS256' | 'ES256' | 'PS256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, use: 'sig' } };
}

/** A fake issuer: discovery + a key set that tests replace; can be "down". */
class FakeIssuer {
  published: Key[] = [];
  down = false;
  keyFetches = 0;
  issuerInDiscovery = ISSUER;
  getJson = async (url: string): Promise<unknown> => {
    if (this.down) throw new Error('connect ECONNREFUSED');
    if (url === `${ISSUER}/.well-known/openid-configuration`) return { issuer: this.issuerInDiscovery, jwks_uri: JWKS_URI };
    if (url === JWKS_URI) {
      this.keyFetches++;
      return { keys: this.published.map((k) => k.jwk) };
    }
    throw new Error(`404 ${url}`);
  };
}

async function sign(key: Key, claims: JWTPayload, opts: { kid?: string | null; expIn?: number } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const header: { alg: string; kid?: string } = { alg: key.alg };
  if (opts.kid !== null) header.kid = opts.kid ?? key.kid;
  return new SignJWT({ iss: ISSUER, aud: 'kube', sub: 'alice', iat: now, exp: now + (opts.expIn ?? 300), ...claims })
    .setProtectedHeader(header)
    .sign(key.privateKey);
}

let rsa: Key;
let ec: Key;
let rsa2: Key;
beforeAll(async () => {
  [rsa, ec, rsa2] = await Promise.all([newKey('r1', 'RS256'), newKey('e1', 'ES256'), newKey('r2', 'RS256')]);
});

const started: OidcAuthenticator[] = [];
afterEach(() => {
  for (const a of started.splice(0)) a.stop();
});

async function ready(issuer: FakeIssuer, over: Partial<OidcAuthenticatorOptions> = {}): Promise<OidcAuthenticator> {
  const a = new OidcAuthenticator({
    issuerUrl: ISSUER,
    clientId: 'kube',
    usernameClaim: 'sub',
    usernamePrefix: '',
    groupsClaim: 'groups',
    groupsPrefix: 'oidc:',
    requiredClaims: {},
    signingAlgs: ['RS256', 'ES256'],
    apiAudiences: ['https://api'],
    getJson: issuer.getJson,
    discoveryRetryMs: 20,
    keyRefreshIntervalMs: 60_000,
    ...over,
  });
  started.push(a);
  a.start();
  await waitFor(() => a.keys.discovered && a.keys.fetches > 0);
  return a;
}

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('OidcAuthenticator', () => {
  test('a valid RS256 or ES256 token is a prefixed user with prefixed groups', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa, ec];
    const a = await ready(issuer);
    for (const key of [rsa, ec]) {
      const r = await a.authenticateToken(await sign(key, { groups: ['dev'] }));
      expect(r).toEqual({ user: { username: `${ISSUER}#alice`, groups: ['oidc:dev'] } });
    }
    // aud may be an array that names the client among others.
    expect((await a.authenticateToken(await sign(rsa, { aud: ['other', 'kube'] })))?.user.username).toBe(`${ISSUER}#alice`);
  });

  test('not a JWT, or another issuer: not this method (undefined)', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa];
    const a = await ready(issuer);
    expect(await a.authenticateToken('abcdef.0123456789abcdef')).toBeUndefined();
    expect(await a.authenticateToken(await sign(rsa, { iss: 'https://elsewhere' }))).toBeUndefined();
    expect(await a.authenticateToken(await sign(rsa, { iss: `${ISSUER}/` }))).toBeUndefined();
  });

  test.each<[string, (k: Key) => Promise<string>]>([
    ['expired', (k) => sign(k, {}, { expIn: -5 })],
    ['without exp', (k) => sign(k, { exp: undefined })],
    ['not yet valid (nbf beyond the leeway)', (k) => sign(k, { nbf: Math.floor(Date.now() / 1000) + 600 })],
    ['for another audience', (k) => sign(k, { aud: 'other-client' })],
    ['without aud', (k) => sign(k, { aud: undefined })],
    ['with a username claim of the wrong type', (k) => sign(k, { sub: 12 as unknown as string })],
    ['with a groups claim of the wrong type', (k) => sign(k, { groups: { admin: true } })],
    ['with a tampered payload', async (k) => {
      const [h, , s] = (await sign(k, {})).split('.');
      return [h, Buffer.from(JSON.stringify({ iss: ISSUER, aud: 'kube', sub: 'root', exp: 9e9 })).toString('base64url'), s].join('.');
    }],
  ])('a token %s is 401', async (_what, make) => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa];
    const a = await ready(issuer);
    await expect(a.authenticateToken(await make(rsa))).rejects.toMatchObject({ status: { code: 401 } });
  });

  test('nbf within the leeway is accepted', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa];
    const a = await ready(issuer);
    expect(await a.authenticateToken(await sign(rsa, { nbf: Math.floor(Date.now() / 1000) + 60 }))).toBeDefined();
  });

  test('HS256 (or any algorithm not allowed) is 401 without a key-set fetch', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa, ec];
    const a = await ready(issuer, { signingAlgs: ['RS256'] });
    const fetches = issuer.keyFetches;
    const now = Math.floor(Date.now() / 1000);
    const hs = await new SignJWT({ iss: ISSUER, aud: 'kube', sub: 'alice', exp: now + 60 })
      .setProtectedHeader({ alg: 'HS256', kid: 'r1' })
      .sign(new TextEncoder().encode('a-shared-secret-of-enough-length!!'));
    await expect(a.authenticateToken(hs)).rejects.toMatchObject({ status: { code: 401 } });
    // ES256 is signed correctly but not in --oidc-signing-algs.
    await expect(a.authenticateToken(await sign(ec, {}))).rejects.toMatchObject({ status: { code: 401 } });
    expect(issuer.keyFetches).toBe(fetches);
  });

  test('an unknown kid refetches the set once per interval; after rotation the new key verifies', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa];
    let now = Date.now();
    const a = await ready(issuer, { keyRefreshIntervalMs: 10_000, now: () => now });
    expect(issuer.keyFetches).toBe(1);
    const token = await sign(rsa2, {});
    // The issuer has not published r2 yet: one refetch (the first fetch was long enough ago).
    now += 10_000;
    await expect(a.authenticateToken(token)).rejects.toMatchObject({ status: { code: 401 } });
    expect(issuer.keyFetches).toBe(2);
    // Rotation: r2 is published, but within the interval no refetch happens.
    issuer.published = [rsa2];
    await expect(a.authenticateToken(token)).rejects.toMatchObject({ status: { code: 401 } });
    await expect(a.authenticateToken(token)).rejects.toMatchObject({ status: { code: 401 } });
    expect(issuer.keyFetches).toBe(2);
    now += 10_000;
    expect((await a.authenticateToken(token))?.user.username).toBe(`${ISSUER}#alice`);
    expect(issuer.keyFetches).toBe(3);
    // The retired key is gone from the set: a token under it (a known kid no more) is refused.
    now += 10_000;
    await expect(a.authenticateToken(await sign(rsa, {}))).rejects.toMatchObject({ status: { code: 401 } });
  });

  test('concurrent tokens with an unknown kid share one fetch', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa];
    let now = Date.now();
    const a = await ready(issuer, { keyRefreshIntervalMs: 1_000, now: () => now });
    issuer.published = [rsa, rsa2];
    now += 1_000;
    const token = await sign(rsa2, {});
    const results = await Promise.all([1, 2, 3, 4].map(() => a.authenticateToken(token)));
    expect(results.every((r) => r?.user.username === `${ISSUER}#alice`)).toBe(true);
    expect(issuer.keyFetches).toBe(2);
  });

  test('a token without kid is tried against every matching key', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa, rsa2];
    const a = await ready(issuer);
    expect(await a.authenticateToken(await sign(rsa2, {}, { kid: null }))).toBeDefined();
    const other = await newKey('x', 'RS256');
    await expect(a.authenticateToken(await sign(other, {}, { kid: null }))).rejects.toMatchObject({ status: { code: 401 } });
  });

  test('while the issuer is down tokens are 401; once it is up they verify', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa];
    issuer.down = true;
    const logged: string[] = [];
    const a = new OidcAuthenticator({
      issuerUrl: ISSUER, clientId: 'kube', usernameClaim: 'sub', usernamePrefix: '-', groupsClaim: '', groupsPrefix: '',
      requiredClaims: {}, signingAlgs: ['RS256'], apiAudiences: [], getJson: issuer.getJson, discoveryRetryMs: 20,
      log: (m) => logged.push(m),
    });
    started.push(a);
    a.start();
    const token = await sign(rsa, {});
    await expect(a.authenticateToken(token)).rejects.toMatchObject({ status: { code: 401 } });
    await waitFor(() => logged.filter((m) => m.includes('initializing')).length >= 2);
    issuer.down = false;
    await waitFor(() => a.keys.discovered);
    expect((await a.authenticateToken(token))?.user.username).toBe('alice');
  });

  test('a failing key endpoint is asked at most once per interval, and its set is used once it answers', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa];
    const realGet = issuer.getJson;
    let keysDown = true;
    issuer.getJson = async (url) => {
      if (url === JWKS_URI && keysDown) {
        issuer.keyFetches++;
        throw new Error('503');
      }
      return realGet(url);
    };
    let now = Date.now();
    const a = new OidcAuthenticator({
      issuerUrl: ISSUER, clientId: 'kube', usernameClaim: 'sub', usernamePrefix: '-', groupsClaim: '', groupsPrefix: '',
      requiredClaims: {}, signingAlgs: ['RS256'], apiAudiences: [], getJson: issuer.getJson, keyRefreshIntervalMs: 5_000, now: () => now,
    });
    started.push(a);
    a.start();
    await waitFor(() => issuer.keyFetches === 1);
    const token = await sign(rsa, {});
    for (let i = 0; i < 3; i++) await expect(a.authenticateToken(token)).rejects.toMatchObject({ status: { code: 401 } });
    expect(issuer.keyFetches).toBe(1);
    keysDown = false;
    now += 5_000;
    expect((await a.authenticateToken(token))?.user.username).toBe('alice');
    expect(issuer.keyFetches).toBe(2);
  });

  test('a discovery document naming another issuer is not accepted', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa];
    issuer.issuerInDiscovery = 'https://impostor.test';
    const errors: unknown[] = [];
    const a = new OidcAuthenticator({
      issuerUrl: ISSUER, clientId: 'kube', usernameClaim: 'sub', usernamePrefix: '', groupsClaim: '', groupsPrefix: '',
      requiredClaims: {}, signingAlgs: ['RS256'], apiAudiences: [], getJson: issuer.getJson, discoveryRetryMs: 20,
      log: (_m, err) => errors.push(err),
    });
    started.push(a);
    a.start();
    await waitFor(() => errors.length > 0);
    expect(String(errors[0])).toContain('issuer did not match');
    await expect(a.authenticateToken(await sign(rsa, {}))).rejects.toMatchObject({ status: { code: 401 } });
  });

  test('TokenReview audiences: only those that are API audiences', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa];
    const a = await ready(issuer);
    const token = await sign(rsa, {});
    expect(await a.authenticateToken(token, ['https://elsewhere'])).toBeUndefined();
    expect((await a.authenticateToken(token, ['https://api', 'x']))?.audiences).toEqual(['https://api']);
  });

  test('required claims and the email rules apply', async () => {
    const issuer = new FakeIssuer();
    issuer.published = [rsa];
    const a = await ready(issuer, { usernameClaim: 'email', requiredClaims: { hd: 'corp.example' } });
    const good = await sign(rsa, { email: 'j@corp.example', email_verified: true, hd: 'corp.example' });
    expect((await a.authenticateToken(good))?.user.username).toBe('j@corp.example');
    for (const claims of [{ email: 'j@corp.example', hd: 'other' }, { email: 'j@corp.example', email_verified: false, hd: 'corp.example' }]) {
      await expect(a.authenticateToken(await sign(rsa, claims))).rejects.toMatchObject({ status: { code: 401 } });
    }
  });
});
