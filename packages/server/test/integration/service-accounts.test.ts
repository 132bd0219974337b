import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { useTestServer, type TestServer } from '../support/test-server.js';

const run = promisify(execFile);
const b64 = (s: string) => Buffer.from(s).toString('base64');

async function kubectl(ts: TestServer, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const kubeconfig = join(ts.dataDir, 'kubectl.kubeconfig');
  const ca = join(ts.dataDir, 'kubectl-ca.crt');
  await writeFile(ca, ts.server.caPem ?? '');
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: ts.server.url, 'certificate-authority': ca } }],
      users: [{ name: 'u', user: { token: ts.server.adminToken } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 });
}

describe('service accounts and tokens (AlwaysAllow)', () => {
  const server = useTestServer(['--authorization-mode=AlwaysAllow', '--enable-bootstrap-token-auth']);

  test('create SA, request a token, use it, delete the SA', async () => {
    const ts = server();
    expect((await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'robot' } } })).status).toBe(201);
    const res = await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { name: 'robot', namespace: 'default' },
      spec: { audiences: ['https://cluster.default.svc.cluster.local'], expirationSeconds: 3600 },
    });
    const token: string = res.json.status.token;
    const exp = Date.parse(res.json.status.expirationTimestamp);
    expect(Math.abs(exp - (Date.now() + 3600_000))).toBeLessThan(10_000);
    const [header, payload] = token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toMatchObject({ alg: 'ES256' });
    expect(header.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(payload).toMatchObject({ sub: 'system:serviceaccount:default:robot', 'k8s.io': { namespace: 'default', serviceaccount: { name: 'robot' } } });

    expect((await ts.request('GET', '/api/v1/namespaces', { token })).status).toBe(200);
    expect((await ts.request('DELETE', '/api/v1/namespaces/default/serviceaccounts/robot')).status).toBe(200);
    const after = await ts.request('GET', '/api/v1/namespaces', { token });
    expect(after.status).toBe(401);
    expect(after.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    // Recreated under the same name: a new uid, and the old token stays revoked.
    expect((await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'robot' } } })).status).toBe(201);
    expect((await ts.request('GET', '/api/v1/namespaces', { token })).status).toBe(401);
  });

  test('token requests: bad expiration, missing SA, bound Secret', async () => {
    const ts = server();
    await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'bound' } } });
    const tokenUrl = '/api/v1/namespaces/default/serviceaccounts/bound/token';
    const short = await ts.request('POST', tokenUrl, { body: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: { expirationSeconds: 599 } } });
    expect(short.status).toBe(422);
    expect(short.json.message).toBe('TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes');
    const missing = await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts/nobody/token', { body: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: {} } });
    expect(missing.status).toBe(404);
    const noSecret = await ts.request('POST', tokenUrl, { body: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'gone' } } } });
    expect(noSecret.status).toBe(404);
    expect(noSecret.json.message).toBe('secrets "gone" not found');
    const badKind = await ts.request('POST', tokenUrl, { body: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } } } });
    expect(badKind.status).toBe(400);
    expect(badKind.json.message).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');

    const sec = await ts.request('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'anchor' }, stringData: { a: 'b' } } });
    expect(sec.status).toBe(201);
    const wrongUid = await ts.request('POST', tokenUrl, { body: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor', uid: 'nope' } } } });
    expect(wrongUid.status).toBe(409);
    const res = await ts.request('POST', tokenUrl, {
      body: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: { audiences: ['https://cluster.default.svc.cluster.local'], boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor', uid: sec.json.metadata.uid } } },
    });
    expect(res.status).toBe(201);
    const token: string = res.json.status.token;
    expect((await ts.request('GET', '/api/v1/namespaces', { token })).status).toBe(200);
    await ts.request('DELETE', '/api/v1/namespaces/default/secrets/anchor');
    expect((await ts.request('GET', '/api/v1/namespaces', { token })).status).toBe(401);
    // A token for another audience is not valid for this server.
    const other = await ts.request('POST', tokenUrl, { body: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: { audiences: ['vault'] } } });
    expect((await ts.request('GET', '/api/v1/namespaces', { token: other.json.status.token })).status).toBe(401);
  });

  test('pods get the API credentials volume; pod-bound tokens (forged bindings refused, invalid once the pod is gone)', async () => {
    const ts = server();
    const NS = '/api/v1/namespaces/default';
    const tr = (spec: object) => ({ body: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec } });
    for (const name of ['runner', 'other']) expect((await ts.request('POST', `${NS}/serviceaccounts`, { body: { metadata: { name } } })).status).toBe(201);
    const mk = async (name: string, sa: string) => {
      const res = await ts.request('POST', `${NS}/pods`, { body: { metadata: { name }, spec: { serviceAccountName: sa, containers: [{ name: 'c', image: 'x' }] } } });
      expect(res.status).toBe(201);
      return res.json;
    };
    const web = await mk('web', 'runner');
    const vol = web.spec.volumes.find((v: { name: string }) => v.name.startsWith('kube-api-access-'));
    expect(vol.projected.sources[0]).toEqual({ serviceAccountToken: { path: 'token', expirationSeconds: 3607 } });
    expect(web.spec.containers[0].volumeMounts).toEqual([{ name: vol.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    const theirs = await mk('theirs', 'other');
    const url = `${NS}/serviceaccounts/runner/token`;

    // Forged bindings: a pod of another account, a stale uid, a pod that does not exist.
    const otherSa = await ts.request('POST', url, tr({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'theirs', uid: theirs.metadata.uid } }));
    expect(otherSa.status).toBe(400);
    expect(otherSa.json).toMatchObject({ reason: 'BadRequest', message: 'cannot bind token for serviceaccount "runner" to pod running with different serviceaccount name.' });
    const wrongUid = await ts.request('POST', url, tr({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: theirs.metadata.uid } }));
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.json.message).toContain(`the UID in the bound object reference (${theirs.metadata.uid}) does not match the UID in record`);
    const gone = await ts.request('POST', url, tr({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nobody', uid: web.metadata.uid } }));
    expect(gone.status).toBe(404);
    expect(gone.json.message).toBe('pods "nobody" not found');

    // The kubelet's request: bound to the pod, its uid, the volume's lifetime.
    const res = await ts.request('POST', url, tr({ expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: web.metadata.uid } }));
    expect(res.status).toBe(201);
    const token: string = res.json.status.token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims['k8s.io']).toMatchObject({ namespace: 'default', serviceaccount: { name: 'runner' }, pod: { name: 'web', uid: web.metadata.uid } });
    expect(claims.exp - claims.iat).toBe(3607);
    const review = await ts.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
    expect(review.json.status).toMatchObject({
      authenticated: true,
      user: { username: 'system:serviceaccount:default:runner', extra: { 'authentication.k8s.io/pod-name': ['web'], 'authentication.k8s.io/pod-uid': [web.metadata.uid] } },
    });
    expect((await ts.request('GET', `${NS}/configmaps`, { token })).status).toBe(200);
    // A pod with no node is deleted at once; its tokens stop working.
    expect((await ts.request('DELETE', `${NS}/pods/web`)).status).toBe(200);
    expect((await ts.request('GET', `${NS}/pods/web`)).status).toBe(404);
    expect((await ts.request('GET', `${NS}/configmaps`, { token })).status).toBe(401);
    // Recreated under the same name: a new uid, and the old token stays invalid.
    await mk('web', 'runner');
    expect((await ts.request('GET', `${NS}/configmaps`, { token })).status).toBe(401);
  });

  test('secrets: stringData folded into data, type defaulted and immutable, base64 checked', async () => {
    const ts = server();
    const res = await ts.request('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'folded' }, data: { a: b64('x') }, stringData: { a: 'y', b: 'z' } } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ type: 'Opaque', data: { a: b64('y'), b: b64('z') } });
    expect(res.json.stringData).toBeUndefined();
    const got = await ts.request('GET', '/api/v1/namespaces/default/secrets/folded');
    expect(got.json.stringData).toBeUndefined();
    const retype = await ts.request('PUT', '/api/v1/namespaces/default/secrets/folded', { body: { ...got.json, type: 'k8s.io/basic-auth' } });
    expect(retype.status).toBe(422);
    expect(retype.json.message).toContain('type: Invalid value: "k8s.io/basic-auth": field is immutable');
    const badB64 = await ts.request('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'bad' }, data: { a: '%%%' } } });
    expect(badB64.status).toBe(400);
    expect(badB64.json.message).toBe('Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0');
    const tls = await ts.request('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 't' }, type: 'k8s.io/tls', data: {} } });
    expect(tls.status).toBe(422);
    expect(tls.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['data[tls.crt]', 'data[tls.key]']);
  });

  test('bootstrap token authenticates until it expires', async () => {
    const ts = server();
    const soon = new Date(Date.now() + 3_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const create = await ts.request('POST', '/api/v1/namespaces/cluster-system/secrets', {
      body: {
        metadata: { name: 'bootstrap-token-abcdef' },
        type: 'bootstrap.k8s.io/token',
        stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', expiration: soon },
      },
    });
    expect(create.status).toBe(201);
    expect((await ts.request('GET', '/api/v1/namespaces', { token: 'abcdef.0123456789abcdef' })).status).toBe(200);
    expect((await ts.request('GET', '/api/v1/namespaces', { token: 'abcdef.0123456789abcdeX' })).status).toBe(401);
    expect((await ts.request('GET', '/api/v1/namespaces', { token: 'abcdef.fedcba9876543210' })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 3_500));
    expect((await ts.request('GET', '/api/v1/namespaces', { token: 'abcdef.0123456789abcdef' })).status).toBe(401);
    const bad = await ts.request('POST', '/api/v1/namespaces/cluster-system/secrets', {
      body: { metadata: { name: 'bootstrap-token-abcdeg' }, type: 'bootstrap.k8s.io/token', stringData: { 'token-id': 'abcdeg', 'token-secret': 'short' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes[0].field).toBe('data[token-secret]');
  });

  test('kubectl create serviceaccount / token / secret generic', async () => {
    const ts = server();
    await kubectl(ts, 'create', 'serviceaccount', 'kc', '-n', 'default');
    const { stdout: token } = await kubectl(ts, 'create', 'token', 'kc', '-n', 'default', '--duration=20m');
    expect(token.trim().split('.')).toHaveLength(3);
    expect((await ts.request('GET', '/api/v1/namespaces', { token: token.trim() })).status).toBe(200);
    await kubectl(ts, 'create', 'secret', 'generic', 'kcs', '--from-literal=a=b', '-n', 'default');
    const { stdout } = await kubectl(ts, 'get', 'secret', 'kcs', '-n', 'default', '-o', 'json');
    expect(JSON.parse(stdout)).toMatchObject({ type: 'Opaque', data: { a: b64('b') } });
    const { stdout: table } = await kubectl(ts, 'get', 'secret', 'kcs', '-n', 'default');
    expect(table.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+DATA\s+AGE$/);
    const { stdout: saTable } = await kubectl(ts, 'get', 'sa', 'kc', '-n', 'default');
    expect(saTable.split('\n')[0]).toMatch(/^NAME\s+SECRETS\s+AGE$/);
  }, 60_000);
});

describe('service-account identity under RBAC', () => {
  const server = useTestServer(['--authorization-mode=RBAC']);

  test('a 403 names the service account', async () => {
    const ts = server();
    await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'who' } } });
    const res = await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts/who/token', { body: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: {} } });
    const denied = await ts.request('GET', '/api/v1/namespaces/default/configmaps', { token: res.json.status.token });
    expect(denied.status).toBe(403);
    expect(denied.json.message).toContain('User "system:serviceaccount:default:who" cannot list resource "configmaps"');
    expect((await ts.request('GET', '/api/v1/namespaces', { token: 'not-a-token' })).status).toBe(401);
  });
});

// Security review: --service-account-lookup=false stopped the checks of bound tokens too. As
// upstream, that flag is for legacy Secret tokens only; every token issued here is bound and is
// checked against its account and bound Secret (name and uid) on every use.
describe('bound tokens with --service-account-lookup=false', () => {
  const server = useTestServer(['--authorization-mode=AlwaysAllow', '--service-account-lookup=false']);
  const NS = '/api/v1/namespaces/default';

  async function tokenFor(ts: TestServer, sa: string, spec: object = {}): Promise<string> {
    const res = await ts.request('POST', `${NS}/serviceaccounts/${sa}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec } });
    expect(res.status).toBe(201);
    return res.json.status.token as string;
  }

  test('a deleted (or recreated) account and a deleted bound Secret revoke their tokens', async () => {
    const ts = server();
    expect((await ts.request('POST', `${NS}/serviceaccounts`, { body: { metadata: { name: 'gone' } } })).status).toBe(201);
    const secret = await ts.request('POST', `${NS}/secrets`, { body: { metadata: { name: 'anchor' }, stringData: { k: 'v' } } });
    expect(secret.status).toBe(201);
    const plain = await tokenFor(ts, 'gone');
    const bound = await tokenFor(ts, 'gone', { boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 'anchor', uid: secret.json.metadata.uid } });
    expect((await ts.request('GET', `${NS}/configmaps`, { token: plain })).status).toBe(200);
    expect((await ts.request('GET', `${NS}/configmaps`, { token: bound })).status).toBe(200);

    expect((await ts.request('DELETE', `${NS}/secrets/anchor`)).status).toBe(200);
    expect((await ts.request('GET', `${NS}/configmaps`, { token: bound })).status).toBe(401);
    expect((await ts.request('GET', `${NS}/configmaps`, { token: plain })).status).toBe(200);

    expect((await ts.request('DELETE', `${NS}/serviceaccounts/gone`)).status).toBe(200);
    expect((await ts.request('GET', `${NS}/configmaps`, { token: plain })).status).toBe(401);
    expect((await ts.request('POST', `${NS}/serviceaccounts`, { body: { metadata: { name: 'gone' } } })).status).toBe(201);
    expect((await ts.request('GET', `${NS}/configmaps`, { token: plain })).status).toBe(401);
  });
});
