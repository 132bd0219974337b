import { SignJWT } from 'jose';
import { httpsJsonGetter } from '@cluster/apiserver';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { newIssuerKey, startTestIssuer, type IssuerKey, type TestIssuer } from '../support/oidc-issuer.js';

// OpenID Connect (SPEC 5, 5.1) against a real issuer on loopback over HTTPS with its own CA:
// discovery, the key set with RSA and EC keys, rotation, and the verification and claim rules,
// seen through requests, SelfSubjectReview, TokenReview and RBAC.
const RBAC_G = 'rbac.authorization.k8s.io';
const AUTHN = '/apis/authentication.k8s.io/v1';
const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} };
const TIMING = { discoveryRetryMs: 200, keyRefreshIntervalMs: 500 };

async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!(await probe())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function oidcFlags(issuer: TestIssuer, extra: string[] = []): string[] {
  return [
    '--authorization-mode=RBAC',
    `--oidc-issuer-url=${issuer.url}`,
    '--oidc-client-id=kube',
    `--oidc-ca-file=${issuer.caFile}`,
    '--oidc-groups-claim=groups',
    '--oidc-groups-prefix=oidc:',
    '--oidc-signing-algs=RS256,ES256',
    ...extra,
  ];
}

describe('OIDC with the issuer up', () => {
  let issuer: TestIssuer;
  let ts: TestServer;
  let rsa: IssuerKey;
  let ec: IssuerKey;
  let rsa2: IssuerKey;

  beforeAll(async () => {
    [rsa, ec, rsa2] = await Promise.all([newIssuerKey('r1', 'RS256'), newIssuerKey('e1', 'ES256'), newIssuerKey('r2', 'RS256')]);
    issuer = await startTestIssuer();
    issuer.published = [rsa, ec];
    ts = await startTestServer(oidcFlags(issuer, ['--oidc-required-claim=tenant=acme']), { oidcTiming: TIMING });
  }, 60_000);
  afterAll(async () => {
    await ts?.stop();
    await issuer?.stop();
  });

  const review = (token: string) => ts.request('POST', `${AUTHN}/selfsubjectreviews`, { body: whoami, token });
  const good = (key: IssuerKey, claims: Record<string, unknown> = {}) => issuer.sign(key, { tenant: 'acme', groups: ['dev', 'ops'], ...claims });

  test('RSA and EC signed ID tokens authenticate as the issuer-prefixed user with prefixed groups', async () => {
    for (const key of [rsa, ec]) {
      let r = await review(await good(key));
      await eventually('discovery', async () => (r = await review(await good(key))).status === 201);
      expect(r.json.status.userInfo).toEqual({
        username: `${issuer.url}#alice`,
        groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'],
      });
    }
  });

  test('a groups claim given as one string is one group', async () => {
    const r = await review(await good(rsa, { groups: 'admins' }));
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo.groups).toEqual(['oidc:admins', 'system:authenticated']);
  });

  test.each<[string, () => Promise<string>]>([
    ['expired', () => good(rsa, { exp: Math.floor(Date.now() / 1000) - 10 })],
    ['for another audience', () => good(rsa, { aud: 'someone-else' })],
    ['from another issuer', () => good(rsa, { iss: 'https://127.0.0.1:1/elsewhere' })],
    ['missing the required claim', () => issuer.sign(rsa, { groups: ['dev'] })],
    ['with the required claim of another value', () => good(rsa, { tenant: 'evil' })],
    ['with a groups claim of the wrong type', () => good(rsa, { groups: 42 })],
    ['with groups that are not all strings', () => good(rsa, { groups: ['dev', { x: 1 }] })],
    ['with a username claim of the wrong type', () => good(rsa, { sub: ['alice'] })],
    ['signed with HS256 while only RS256 and ES256 are allowed', async () => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer.url, aud: 'kube', sub: 'alice', tenant: 'acme', exp: now + 60 })
        .setProtectedHeader({ alg: 'HS256', kid: 'r1' })
        .sign(new TextEncoder().encode('shared-secret-shared-secret-shared'));
    }],
  ])('a token %s is 401', async (_what, make) => {
    const r = await review(await make());
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
  });

  test('TokenReview accepts the ID token and refuses an expired one', async () => {
    const ok = await ts.request('POST', `${AUTHN}/tokenreviews`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: await good(ec) } },
    });
    expect(ok.status).toBe(201);
    expect(ok.json.status).toMatchObject({ authenticated: true, user: { username: `${issuer.url}#alice`, groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'] } });
    const expired = await ts.request('POST', `${AUTHN}/tokenreviews`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: await good(rsa, { exp: 1 }) } },
    });
    expect(expired.json.status.authenticated).toBeUndefined();
    expect(expired.json.status.error).toBeTruthy();
  });

  test('RBAC: a binding to the prefixed user grants, the unprefixed name does not', async () => {
    const token = await good(rsa, { sub: 'bob', groups: [] });
    const list = () => ts.request('GET', '/api/v1/namespaces/default/configmaps', { token });
    expect((await list()).status).toBe(403);
    const binding = (name: string, user: string) => ({
      apiVersion: `${RBAC_G}/v1`,
      kind: 'RoleBinding',
      metadata: { name, namespace: 'default' },
      roleRef: { apiGroup: RBAC_G, kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: RBAC_G, name: user }],
    });
    expect((await ts.request('POST', `/apis/${RBAC_G}/v1/namespaces/default/rolebindings`, { body: binding('bob-plain', 'bob') })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    expect((await list()).status).toBe(403);
    expect((await ts.request('POST', `/apis/${RBAC_G}/v1/namespaces/default/rolebindings`, { body: binding('bob-oidc', `${issuer.url}#bob`) })).status).toBe(201);
    await eventually('the binding to take effect', async () => (await list()).status === 200);
  });

  test('a token under an unknown kid is 401 until the issuer publishes the key; the retired key then fails', async () => {
    const before = issuer.keyFetches;
    const next = await good(rsa2);
    expect((await review(next)).status).toBe(401);
    // Unknown kid: the set was fetched again (at most once per refresh interval).
    await eventually('a key-set refetch', async () => issuer.keyFetches > before);
    // Many tokens under the unknown kid at once do not each fetch the set.
    const burst = issuer.keyFetches;
    await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(async () => review(next)));
    expect(issuer.keyFetches - burst).toBeLessThanOrEqual(1);

    issuer.published = [rsa2, ec]; // rotation: r1 retired, r2 in
    await eventually('the rotated key to verify', async () => (await review(next)).status === 201, 5_000);
    const old = await good(rsa);
    await eventually('the retired key to be refused', async () => (await review(old)).status === 401, 5_000);
  });
});

describe('OIDC with the issuer down at start-up', () => {
  let issuer: TestIssuer;
  let ts: TestServer;
  let key: IssuerKey;

  beforeAll(async () => {
    key = await newIssuerKey('k1', 'ES256');
    issuer = await startTestIssuer({ path: '' });
    issuer.published = [key];
    await issuer.close();
    ts = await startTestServer(oidcFlags(issuer, ['--oidc-username-claim=email', '--oidc-groups-claim=roles', '--oidc-username-prefix=-']), { oidcTiming: TIMING });
  }, 60_000);
  afterAll(async () => {
    await ts?.stop();
    await issuer?.stop();
  });

  test('the server serves; tokens are 401 until the issuer is up, then authenticate', async () => {
    expect((await ts.request('GET', '/readyz', { token: null })).status).toBe(200);
    const token = await issuer.sign(key, { email: 'jane@corp.example', email_verified: true, roles: 'admin' });
    const review = () => ts.request('POST', `${AUTHN}/selfsubjectreviews`, { body: whoami, token });
    expect((await review()).status).toBe(401);
    // Other methods are unaffected.
    expect((await ts.request('POST', `${AUTHN}/selfsubjectreviews`, { body: whoami })).status).toBe(201);
    await issuer.start();
    let r = await review();
    await eventually('discovery after the issuer came up', async () => (r = await review()).status === 201);
    // The email claim: no default prefix (and "-" disables it anyway); email_verified false is refused.
    expect(r.json.status.userInfo).toEqual({ username: 'jane@corp.example', groups: ['oidc:admin', 'system:authenticated'] });
    const unverified = await issuer.sign(key, { email: 'jane@corp.example', email_verified: false });
    expect((await ts.request('POST', `${AUTHN}/selfsubjectreviews`, { body: whoami, token: unverified })).status).toBe(401);
  });
});

describe('fetching discovery over HTTPS', () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer();
  });
  afterAll(async () => {
    await issuer?.stop();
  });

  test('with the issuer CA the document is read; with the host roots its certificate is refused', async () => {
    const url = `${issuer.url}/.well-known/openid-configuration`;
    await expect(httpsJsonGetter({ ca: issuer.caPem })(url)).resolves.toMatchObject({ issuer: issuer.url });
    await expect(httpsJsonGetter()(url)).rejects.toThrow(/certificate/i);
    await expect(httpsJsonGetter({ ca: issuer.caPem })(url.replace('https:', 'http:'))).rejects.toThrow('only https');
    await expect(httpsJsonGetter({ ca: issuer.caPem })(`${issuer.url}/nope`)).rejects.toThrow('404');
  });
});
