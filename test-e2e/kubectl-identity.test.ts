import { kubectl, startServerProcess, tokenKubeconfig, type ServerProcess } from './support/server-process.js';

// The identity-and-access issue's "done when", driven by the installed kubectl against the built
// server with RBAC on: service accounts and their tokens, can-i, whoami, impersonation, bindings
// that take effect and are revoked, and secrets.
let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess(['--authorization-mode=RBAC', '--controllers=-namespace']);
}, 60_000);
afterAll(async () => {
  await server?.stop();
}, 30_000);

const ok = async (args: string[], env: Record<string, string> = {}) => {
  const r = await kubectl(server, args, env);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};

/** Polls `fn` until it returns true, every 100 ms, for at most `ms`; returns how long it took. */
async function within(ms: number, fn: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await fn()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('kubectl identity and access (RBAC on)', () => {
  let botEnv: Record<string, string>;

  beforeAll(async () => {
    await ok(['create', 'namespace', 'idp']);
    await ok(['create', 'serviceaccount', 'bot', '-n', 'idp']);
    const token = (await ok(['create', 'token', 'bot', '-n', 'idp', '--duration=1h'])).trim();
    expect(token.split('.')).toHaveLength(3);
    botEnv = await tokenKubeconfig(server, 'bot', token, 'idp');
  }, 60_000);

  test('auth whoami names the service account', async () => {
    const out = await ok(['auth', 'whoami', '-o', 'json'], botEnv);
    const review = JSON.parse(out) as { status: { userInfo: { username: string; groups: string[] } } };
    expect(review.status.userInfo.username).toBe('system:serviceaccount:idp:bot');
    expect(review.status.userInfo.groups).toEqual(expect.arrayContaining(['system:serviceaccounts', 'system:serviceaccounts:idp', 'system:authenticated']));
  });

  test('can-i answers per bindings; a rolebinding grants within a second and its deletion revokes', async () => {
    const denied = await kubectl(server, ['auth', 'can-i', 'list', 'configmaps', '-n', 'idp'], botEnv);
    expect(denied.stdout.trim()).toBe('no');
    const get = await kubectl(server, ['get', 'configmaps', '-n', 'idp'], botEnv);
    expect(get.code).not.toBe(0);
    expect(get.stderr).toContain('configmaps is forbidden: User "system:serviceaccount:idp:bot" cannot list resource "configmaps" in API group "" in the namespace "idp"');

    await ok(['create', 'rolebinding', 'bot-view', '--clusterrole=view', '--serviceaccount=idp:bot', '-n', 'idp']);
    const took = await within(1_000, async () => (await kubectl(server, ['get', 'configmaps', '-n', 'idp'], botEnv)).code === 0);
    expect(took).toBeLessThanOrEqual(1_000);
    expect((await kubectl(server, ['auth', 'can-i', 'list', 'configmaps', '-n', 'idp'], botEnv)).stdout.trim()).toBe('yes');
    expect((await kubectl(server, ['auth', 'can-i', 'create', 'configmaps', '-n', 'idp'], botEnv)).stdout.trim()).toBe('no');
    const list = await ok(['auth', 'can-i', '--list', '-n', 'idp'], botEnv);
    expect(list).toMatch(/configmaps\s+\[\]\s+\[\]\s+\[get list watch\]/);

    await ok(['delete', 'rolebinding', 'bot-view', '-n', 'idp']);
    await within(1_000, async () => (await kubectl(server, ['get', 'configmaps', '-n', 'idp'], botEnv)).code !== 0);
  });

  test('impersonation: the admin may act as another user; the service account may not', async () => {
    const asJane = JSON.parse(await ok(['auth', 'whoami', '-o', 'json', '--as=jane', '--as-group=devs'])) as {
      status: { userInfo: { username: string; groups: string[] } };
    };
    expect(asJane.status.userInfo.username).toBe('jane');
    expect(asJane.status.userInfo.groups).toEqual(expect.arrayContaining(['devs', 'system:authenticated']));
    expect((await kubectl(server, ['auth', 'can-i', 'list', 'configmaps', '-n', 'idp', '--as=jane'])).stdout.trim()).toBe('no');

    const refused = await kubectl(server, ['get', 'configmaps', '-n', 'idp', '--as=jane'], botEnv);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('users "jane" is forbidden: User "system:serviceaccount:idp:bot" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  test('secrets: create generic, read back as YAML with data base64', async () => {
    await ok(['create', 'secret', 'generic', 'creds', '-n', 'idp', '--from-literal=user=alice', '--from-literal=pass=s3cr3t']);
    const yaml = await ok(['get', 'secret', 'creds', '-n', 'idp', '-o', 'yaml']);
    expect(yaml).toContain('type: Opaque');
    expect(yaml).toContain(`user: ${Buffer.from('alice').toString('base64')}`);
    expect(yaml).toContain(`pass: ${Buffer.from('s3cr3t').toString('base64')}`);
    const table = await ok(['get', 'secrets', '-n', 'idp']);
    expect(table).toMatch(/^NAME\s+TYPE\s+DATA\s+AGE/);
    expect(table).toMatch(/creds\s+Opaque\s+2\s+/);
  });

  test('a deleted service account token stops working', async () => {
    await ok(['create', 'serviceaccount', 'temp', '-n', 'idp']);
    const env = await tokenKubeconfig(server, 'temp', (await ok(['create', 'token', 'temp', '-n', 'idp'])).trim());
    expect((await kubectl(server, ['auth', 'whoami'], env)).code).toBe(0);
    await ok(['delete', 'serviceaccount', 'temp', '-n', 'idp']);
    const after = await kubectl(server, ['auth', 'whoami'], env);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toMatch(/Unauthorized|must be logged in/);
  });
});
