import { kubectl, startServerProcess, type ServerProcess, tokenKubeconfig } from './support/server-process.js';
import { newIssuerKey, startTestIssuer, type IssuerKey, type TestIssuer } from '../packages/server/test/support/oidc-issuer.js';

// OpenID Connect end to end: the built server trusts an issuer on loopback (HTTPS, its own CA);
// the installed kubectl carries an ID token in its kubeconfig (`user.token`) and is authorized by
// an RBAC binding to the prefixed user.
let issuer: TestIssuer;
let server: ServerProcess;
let key: IssuerKey;

beforeAll(async () => {
  key = await newIssuerKey('e2e-1', 'RS256');
  issuer = await startTestIssuer();
  issuer.published = [key];
  server = await startServerProcess([
    '--authorization-mode=RBAC',
    '--controllers=-namespace',
    `--oidc-issuer-url=${issuer.url}`,
    '--oidc-client-id=kubectl',
    `--oidc-ca-file=${issuer.caFile}`,
    '--oidc-username-prefix=oidc:',
    '--oidc-groups-claim=groups',
    '--oidc-groups-prefix=oidc:',
  ]);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await issuer?.stop();
}, 30_000);

const ok = async (args: string[], env: Record<string, string> = {}) => {
  const r = await kubectl(server, args, env);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};

async function within(ms: number, fn: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  while (!(await fn())) {
    if (Date.now() - start > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('kubectl with an OIDC ID token', () => {
  test('whoami names the prefixed user; an RBAC binding to that name authorizes it', async () => {
    const env = await tokenKubeconfig(server, 'alice', await issuer.sign(key, { aud: 'kubectl', sub: 'alice', groups: ['dev'] }));
    // Discovery runs in the background from start-up (the issuer is up, so it is quick).
    await within(15_000, async () => (await kubectl(server, ['auth', 'whoami'], env)).code === 0);
    const who = JSON.parse(await ok(['auth', 'whoami', '-o', 'json'], env)) as { status: { userInfo: { username: string; groups: string[] } } };
    expect(who.status.userInfo).toEqual({ username: 'oidc:alice', groups: ['oidc:dev', 'system:authenticated'] });

    const denied = await kubectl(server, ['get', 'configmaps'], env);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('User "oidc:alice" cannot list resource "configmaps"');

    await ok(['create', 'rolebinding', 'alice-view', '--clusterrole=view', '--user=oidc:alice', '-n', 'default']);
    await within(5_000, async () => (await kubectl(server, ['get', 'configmaps'], env)).code === 0);
    expect((await kubectl(server, ['auth', 'can-i', 'list', 'configmaps'], env)).stdout.trim()).toBe('yes');
    expect((await kubectl(server, ['auth', 'can-i', 'create', 'configmaps'], env)).stdout.trim()).toBe('no');
  }, 60_000);

  test('a binding to the prefixed group authorizes a member', async () => {
    const env = await tokenKubeconfig(server, 'bob', await issuer.sign(key, { aud: 'kubectl', sub: 'bob', groups: ['editors'] }));
    await ok(['create', 'rolebinding', 'editors-edit', '--clusterrole=edit', '--group=oidc:editors', '-n', 'default']);
    await within(5_000, async () => (await kubectl(server, ['create', 'configmap', 'from-bob', '--from-literal=a=b'], env)).code === 0);
    expect(await ok(['get', 'configmap', 'from-bob', '-o', 'jsonpath={.data.a}'])).toBe('b');
  }, 60_000);

  test('an expired or wrong-audience ID token is refused as unauthorized', async () => {
    const expired = await tokenKubeconfig(server, 'late', await issuer.sign(key, { aud: 'kubectl', exp: Math.floor(Date.now() / 1000) - 60 }));
    const wrongAud = await tokenKubeconfig(server, 'stray', await issuer.sign(key, { aud: 'another-client' }));
    for (const env of [expired, wrongAud]) {
      const r = await kubectl(server, ['get', 'configmaps'], env);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/Unauthorized|must be logged in/);
    }
  }, 60_000);
});
