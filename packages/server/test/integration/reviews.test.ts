import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestServer } from '../support/test-server.js';

// Impersonation (SPEC 5.5) and the review APIs (TokenReview, SelfSubjectReview,
// SubjectAccessReview and its self/local forms, SelfSubjectRulesReview) with RBAC on.
const dir = mkdtempSync(join(tmpdir(), 'reviews-test-'));
const tokenFile = join(dir, 'tokens.csv');
writeFileSync(tokenFile, ['bob-token,bob,u2', 'imp-token,imp,u3'].join('\n') + '\n');
const ts = useTestServer(['--authorization-mode=RBAC', '--token-auth-file', tokenFile]);

const RBAC_G = 'rbac.authorization.k8s.io';
const AUTHN = '/apis/authentication.k8s.io/v1';
const AUTHZ = '/apis/authorization.k8s.io/v1';
const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} };

async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await probe())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function userInfo(headers: Record<string, string | string[]>, token?: string) {
  const r = await ts().request('POST', `${AUTHN}/selfsubjectreviews`, { body: whoami, headers, token });
  return r;
}

beforeAll(async () => {
  // imp may impersonate exactly: user jane, group devs, the extra scopes=view, uid u-1 and the
  // service account idp/bot.
  const role = {
    apiVersion: `${RBAC_G}/v1`,
    kind: 'ClusterRole',
    metadata: { name: 'narrow-impersonator' },
    rules: [
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['jane'] },
      { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: ['devs'] },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'], resourceNames: ['bot'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes'], verbs: ['impersonate'], resourceNames: ['view'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['uids'], verbs: ['impersonate'], resourceNames: ['u-1'] },
    ],
  };
  expect((await ts().request('POST', `/apis/${RBAC_G}/v1/clusterroles`, { body: role })).status).toBe(201);
  const binding = {
    apiVersion: `${RBAC_G}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'imp-impersonates' },
    roleRef: { apiGroup: RBAC_G, kind: 'ClusterRole', name: 'narrow-impersonator' },
    subjects: [{ kind: 'User', apiGroup: RBAC_G, name: 'imp' }],
  };
  expect((await ts().request('POST', `/apis/${RBAC_G}/v1/clusterrolebindings`, { body: binding })).status).toBe(201);
  await eventually('imp binding', async () => (await userInfo({ 'Impersonate-User': 'jane' }, 'imp-token')).status === 201);
});

describe('impersonation (SPEC 5.5)', () => {
  test('an admin acts as a user with groups (one per header line), extras (percent-decoded names) and a uid', async () => {
    const r = await userInfo({
      'Impersonate-User': 'jane',
      'Impersonate-Group': ['devs', 'qa'],
      'Impersonate-Extra-Acme.com%2Fproject': 'p1',
      'Impersonate-Extra-Scopes': ['view', 'edit'],
      'Impersonate-Uid': 'u-9',
    });
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo).toEqual({
      username: 'jane',
      uid: 'u-9',
      groups: ['devs', 'qa', 'system:authenticated'],
      extra: { 'acme.com/project': ['p1'], scopes: ['view', 'edit'] },
    });
  });

  test('the request is authorized as the impersonated identity', async () => {
    const r = await ts().request('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'Impersonate-User': 'jane' } });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "default"');
    const masters = await ts().request('GET', '/api/v1/namespaces/default/configmaps', {
      headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': 'system:masters' },
    });
    expect(masters.status).toBe(200);
  });

  test('a service-account username is checked as that account and gets its fixed groups', async () => {
    const r = await userInfo({ 'Impersonate-User': 'system:serviceaccount:idp:bot' }, 'imp-token');
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:idp', 'system:authenticated']);
    const other = await userInfo({ 'Impersonate-User': 'system:serviceaccount:idp:other' }, 'imp-token');
    expect(other.status).toBe(403);
    expect(other.json.message).toBe(
      'serviceaccounts "other" is forbidden: User "imp" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "idp"',
    );
  });

  test.each([
    ['a user', { 'Impersonate-User': 'john' }, 'users "john" is forbidden: User "imp" cannot impersonate resource "users" in API group "" at the cluster scope'],
    [
      'a group',
      { 'Impersonate-User': 'jane', 'Impersonate-Group': ['devs', 'ops'] },
      'groups "ops" is forbidden: User "imp" cannot impersonate resource "groups" in API group "" at the cluster scope',
    ],
    [
      'an extra value',
      { 'Impersonate-User': 'jane', 'Impersonate-Extra-Scopes': 'edit' },
      'userextras.authentication.k8s.io "edit" is forbidden: User "imp" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
    ],
    [
      'a uid',
      { 'Impersonate-User': 'jane', 'Impersonate-Uid': 'u-2' },
      'uids.authentication.k8s.io "u-2" is forbidden: User "imp" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
    ],
  ])('impersonating %s outside the grant is 403 with upstream message', async (_, headers, message) => {
    const r = await userInfo(headers, 'imp-token');
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, message });
  });

  test('within the grant every part passes', async () => {
    const r = await userInfo(
      { 'Impersonate-User': 'jane', 'Impersonate-Group': 'devs', 'Impersonate-Extra-Scopes': 'view', 'Impersonate-Uid': 'u-1' },
      'imp-token',
    );
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo).toEqual({ username: 'jane', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['view'] } });
  });

  test('a caller without impersonate rights is refused', async () => {
    const r = await userInfo({ 'Impersonate-User': 'jane' }, 'bob-token');
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  test.each([
    ['Impersonate-Group', { 'Impersonate-Group': 'system:masters' }],
    ['Impersonate-Extra-', { 'Impersonate-Extra-Scopes': 'view' }],
    ['Impersonate-Uid', { 'Impersonate-Uid': 'u-1' }],
  ])('%s without Impersonate-User is 400, not 500', async (_, headers) => {
    const r = await userInfo(headers);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    expect(r.json.message).toMatch(/without impersonating a user$/);
  });
});

describe('authentication/v1 reviews', () => {
  test('selfsubjectreviews names the caller, for any authenticated user', async () => {
    const r = await userInfo({}, 'bob-token');
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(r.json.status.userInfo).toEqual({ username: 'bob', uid: 'u2', groups: ['system:authenticated'] });
    expect(r.json.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  const review = (token: string, audiences?: string[]) => ({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec: audiences ? { token, audiences } : { token },
  });

  test('tokenreviews authenticates a token with this server\'s methods', async () => {
    const r = await ts().request('POST', `${AUTHN}/tokenreviews`, { body: review('bob-token') });
    expect(r.status).toBe(201);
    expect(r.json.status).toMatchObject({ authenticated: true, user: { username: 'bob', uid: 'u2', groups: ['system:authenticated'] } });
    const unknown = await ts().request('POST', `${AUTHN}/tokenreviews`, { body: review('nobody-knows-this') });
    expect(unknown.status).toBe(201);
    expect(unknown.json.status.authenticated).toBeUndefined();
    expect(unknown.json.status.user).toBeUndefined();
  });

  test('a service-account token for another audience is valid only when that audience is asked for', async () => {
    expect((await ts().request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'vaulty' } } })).status).toBe(201);
    const tr = await ts().request('POST', '/api/v1/namespaces/default/serviceaccounts/vaulty/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['vault'] } },
    });
    expect(tr.status).toBe(201);
    const token = tr.json.status.token as string;
    const forVault = await ts().request('POST', `${AUTHN}/tokenreviews`, { body: review(token, ['vault', 'other']) });
    expect(forVault.json.status).toMatchObject({
      authenticated: true,
      audiences: ['vault'],
      user: { username: 'system:serviceaccount:default:vaulty' },
    });
    const forServer = await ts().request('POST', `${AUTHN}/tokenreviews`, { body: review(token) });
    expect(forServer.json.status.authenticated).toBeUndefined();
    expect(forServer.json.status.error).toBeTruthy();
    const [h, p] = token.split('.');
    const forged = await ts().request('POST', `${AUTHN}/tokenreviews`, { body: review(`${h}.${p}.AAAA`, ['vault']) });
    expect(forged.json.status.authenticated).toBeUndefined();
    expect(forged.json.status.error).toBe('invalid bearer token');
  });

  test('bad TokenReviews: no token is 400; callers without the grant get 403', async () => {
    const empty = await ts().request('POST', `${AUTHN}/tokenreviews`, { body: review('') });
    expect(empty.status).toBe(400);
    expect(empty.json.message).toBe('token is required for TokenReview in authentication');
    const bob = await ts().request('POST', `${AUTHN}/tokenreviews`, { body: review('bob-token'), token: 'bob-token' });
    expect(bob.status).toBe(403);
  });
});

describe('authorization/v1 reviews', () => {
  const sar = (spec: object, metadata: object = {}) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata, spec });
  const listCm = { namespace: 'default', verb: 'list', resource: 'configmaps' };

  test('subjectaccessreviews answers for the named user, resource and non-resource', async () => {
    const no = await ts().request('POST', `${AUTHZ}/subjectaccessreviews`, { body: sar({ user: 'bob', resourceAttributes: listCm }) });
    expect(no.status).toBe(201);
    expect(no.json).toMatchObject({ kind: 'SubjectAccessReview', spec: { user: 'bob' }, status: { allowed: false } });
    expect(no.json.status.denied).toBeUndefined();
    const admin = await ts().request('POST', `${AUTHZ}/subjectaccessreviews`, { body: sar({ user: 'x', groups: ['system:masters'], resourceAttributes: listCm }) });
    expect(admin.json.status.allowed).toBe(true);
    const version = await ts().request('POST', `${AUTHZ}/subjectaccessreviews`, {
      body: sar({ user: 'bob', groups: ['system:authenticated'], nonResourceAttributes: { path: '/version', verb: 'get' } }),
    });
    expect(version.json.status.allowed).toBe(true);
  });

  test.each([
    ['both attributes', sar({ user: 'bob', resourceAttributes: listCm, nonResourceAttributes: { path: '/x', verb: 'get' } }), 'spec.nonResourceAttributes'],
    ['no attributes', sar({ user: 'bob' }), 'spec.resourceAttributes'],
    ['no user or group', sar({ resourceAttributes: listCm }), 'spec.user'],
    ['metadata set', sar({ user: 'bob', resourceAttributes: listCm }, { name: 'x' }), 'metadata'],
  ])('subjectaccessreviews with %s is 422 naming the field', async (_, body, field) => {
    const r = await ts().request('POST', `${AUTHZ}/subjectaccessreviews`, { body });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', details: { group: 'authorization.k8s.io', kind: 'SubjectAccessReview' } });
    expect(r.json.details.causes.map((c: { field: string }) => c.field)).toContain(field);
  });

  test('selfsubjectaccessreviews answers for the caller; every authenticated user may ask', async () => {
    const body = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: listCm } };
    const bob = await ts().request('POST', `${AUTHZ}/selfsubjectaccessreviews`, { body, token: 'bob-token' });
    expect(bob.status).toBe(201);
    expect(bob.json.status.allowed).toBe(false);
    const admin = await ts().request('POST', `${AUTHZ}/selfsubjectaccessreviews`, { body });
    expect(admin.json.status.allowed).toBe(true);
    const asJane = await ts().request('POST', `${AUTHZ}/selfsubjectaccessreviews`, { body, headers: { 'Impersonate-User': 'jane' } });
    expect(asJane.json.status.allowed).toBe(false);
    const bad = await ts().request('POST', `${AUTHZ}/selfsubjectaccessreviews`, { body: { ...body, spec: {} }, token: 'bob-token' });
    expect(bad.status).toBe(422);
  });

  test('localsubjectaccessreviews is confined to the namespace of its URL', async () => {
    const lsar = (spec: object) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', spec });
    const ok = await ts().request('POST', `${AUTHZ}/namespaces/default/localsubjectaccessreviews`, {
      body: lsar({ user: 'x', groups: ['system:masters'], resourceAttributes: listCm }),
    });
    expect(ok.status).toBe(201);
    expect(ok.json).toMatchObject({ metadata: { namespace: 'default' }, status: { allowed: true } });
    const elsewhere = await ts().request('POST', `${AUTHZ}/namespaces/default/localsubjectaccessreviews`, {
      body: lsar({ user: 'bob', resourceAttributes: { ...listCm, namespace: 'kube' } }),
    });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.json.details.causes).toContainEqual(expect.objectContaining({ field: 'spec.resourceAttributes.namespace' }));
    const nonResource = await ts().request('POST', `${AUTHZ}/namespaces/default/localsubjectaccessreviews`, {
      body: lsar({ user: 'bob', nonResourceAttributes: { path: '/x', verb: 'get' } }),
    });
    expect(nonResource.status).toBe(422);
  });

  test('selfsubjectrulesreviews lists the caller\'s rules in a namespace; no namespace is 400', async () => {
    const body = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } };
    const r = await ts().request('POST', `${AUTHZ}/selfsubjectrulesreviews`, { body, token: 'bob-token' });
    expect(r.status).toBe(201);
    expect(r.json.status.incomplete).toBe(false);
    expect(r.json.status.resourceRules).toContainEqual({
      verbs: ['create'],
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    });
    expect(r.json.status.nonResourceRules).toContainEqual(expect.objectContaining({ nonResourceURLs: expect.arrayContaining(['/version']) }));
    expect(r.json.status.resourceRules.some((rule: { resources: string[] }) => rule.resources.includes('configmaps'))).toBe(false);
    const none = await ts().request('POST', `${AUTHZ}/selfsubjectrulesreviews`, { body: { ...body, spec: {} }, token: 'bob-token' });
    expect(none.status).toBe(400);
    expect(none.json.message).toBe('no namespace on request');
  });

  test('review kinds are create-only in discovery and refuse other verbs', async () => {
    const d = await ts().request('GET', AUTHZ);
    const names = d.json.resources.map((r: { name: string; verbs: string[] }) => `${r.name}:${r.verbs.join(',')}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'subjectaccessreviews:create',
        'selfsubjectaccessreviews:create',
        'localsubjectaccessreviews:create',
        'selfsubjectrulesreviews:create',
      ]),
    );
    const list = await ts().request('GET', `${AUTHZ}/subjectaccessreviews`);
    expect(list.status).toBe(405);
    expect(list.json).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
  });
});
