import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestServer } from '../support/test-server.js';

const dir = mkdtempSync(join(tmpdir(), 'rbac-test-'));
const tokenFile = join(dir, 'tokens.csv');
writeFileSync(
  tokenFile,
  ['alice-token,alice,u1,"devs,qa"', 'bob-token,bob,u2', 'carol-token,carol,u3', 'sa-token,system:serviceaccount:default:robot,u4', 'dave-token,dave,u5'].join('\n') + '\n',
);
const ts = useTestServer(['--authorization-mode=RBAC', '--token-auth-file', tokenFile]);

const G = 'rbac.authorization.k8s.io';
const RBAC = `/apis/${G}/v1`;
const as = (token: string | null) => ({ token });

async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const role = (name: string, rules: unknown[]) => ({ apiVersion: `${G}/v1`, kind: 'Role', metadata: { name }, rules });
const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleKind: string, roleName: string, subjects: unknown[]) => ({
  apiVersion: `${G}/v1`,
  kind,
  metadata: { name },
  roleRef: { apiGroup: G, kind: roleKind, name: roleName },
  subjects,
});
const user = (name: string) => ({ kind: 'User', apiGroup: G, name });

describe('RBAC authorization (SPEC 5.7)', () => {
  test('no grant: 403 with upstream message', async () => {
    const r = await ts().request('GET', '/api/v1/namespaces/default/configmaps', as('bob-token'));
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: 'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"',
      details: { kind: 'configmaps' },
    });
    const cluster = await ts().request('GET', `${RBAC}/clusterroles/view`, as('bob-token'));
    expect(cluster.status).toBe(403);
    expect(cluster.json.message).toBe(
      `clusterroles.${G} "view" is forbidden: User "bob" cannot get resource "clusterroles" in API group "${G}" at the cluster scope`,
    );
  });

  test('a RoleBinding grants in its namespace within a second; deleting it revokes', async () => {
    expect((await ts().request('POST', `${RBAC}/namespaces/default/roles`, { body: role('cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]) })).status).toBe(201);
    const b = await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, { body: binding('RoleBinding', 'bob-reads', 'Role', 'cm-reader', [user('bob')]) });
    expect(b.status).toBe(201);
    const took = await eventually('grant', async () => (await ts().request('GET', '/api/v1/namespaces/default/configmaps', as('bob-token'))).status === 200);
    expect(took).toBeLessThan(1000);
    // Only in that namespace, only those verbs.
    expect((await ts().request('GET', '/api/v1/namespaces/cluster-system/configmaps', as('bob-token'))).status).toBe(403);
    expect((await ts().request('GET', '/api/v1/configmaps', as('bob-token'))).status).toBe(403);
    const create = await ts().request('POST', '/api/v1/namespaces/default/configmaps', { ...as('bob-token'), body: { metadata: { name: 'x' } } });
    expect(create.status).toBe(403);
    expect((await ts().request('DELETE', `${RBAC}/namespaces/default/rolebindings/bob-reads`)).status).toBe(200);
    await eventually('revoke', async () => (await ts().request('GET', '/api/v1/namespaces/default/configmaps', as('bob-token'))).status === 403);
  });

  test('groups and service accounts are subjects; a ClusterRoleBinding grants everywhere', async () => {
    const b = binding('ClusterRoleBinding', 'devs-view', 'ClusterRole', 'view', [
      { kind: 'Group', apiGroup: G, name: 'devs' },
      { kind: 'ServiceAccount', name: 'robot', namespace: 'default' },
    ]);
    expect((await ts().request('POST', `${RBAC}/clusterrolebindings`, { body: b })).status).toBe(201);
    await eventually('group grant', async () => (await ts().request('GET', '/api/v1/configmaps', as('alice-token'))).status === 200);
    expect((await ts().request('GET', '/api/v1/namespaces/cluster-system/configmaps', as('sa-token'))).status).toBe(200);
    // view aggregates system:aggregate-to-view but holds no write verbs.
    expect((await ts().request('DELETE', '/api/v1/namespaces/default/configmaps/none', as('alice-token'))).status).toBe(403);
    expect((await ts().request('DELETE', `${RBAC}/clusterrolebindings/devs-view`)).status).toBe(200);
  });

  test('resourceNames narrow get but never grant list', async () => {
    await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'allowed' } } });
    await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'other' } } });
    await ts().request('POST', `${RBAC}/namespaces/default/roles`, {
      body: role('one-cm', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['allowed'], verbs: ['get', 'list'] }]),
    });
    await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, { body: binding('RoleBinding', 'carol-one', 'Role', 'one-cm', [user('carol')]) });
    await eventually('named grant', async () => (await ts().request('GET', '/api/v1/namespaces/default/configmaps/allowed', as('carol-token'))).status === 200);
    expect((await ts().request('GET', '/api/v1/namespaces/default/configmaps/other', as('carol-token'))).status).toBe(403);
    expect((await ts().request('GET', '/api/v1/namespaces/default/configmaps', as('carol-token'))).status).toBe(403);
  });

  test('a PUT or apply that creates needs create as well as update / patch (SPEC 5.7)', async () => {
    await ts().request('POST', `${RBAC}/namespaces/default/roles`, {
      body: role('cm-writer', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update', 'patch'] }]),
    });
    await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, { body: binding('RoleBinding', 'dave-writes', 'Role', 'cm-writer', [user('dave')]) });
    await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'dave-existing' } } });
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
    const apply = (name: string) => ({
      ...as('dave-token'),
      body: JSON.stringify(cm(name)),
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    await eventually('writer grant', async () =>
      (await ts().request('PUT', '/api/v1/namespaces/default/configmaps/dave-existing', { ...as('dave-token'), body: cm('dave-existing') })).status === 200,
    );
    const message = 'configmaps "dave-new" is forbidden: User "dave" cannot create resource "configmaps" in API group "" in the namespace "default"';
    const put = await ts().request('PUT', '/api/v1/namespaces/default/configmaps/dave-new', { ...as('dave-token'), body: cm('dave-new') });
    expect(put.status).toBe(403);
    expect(put.json.message).toBe(message);
    const applied = await ts().request('PATCH', '/api/v1/namespaces/default/configmaps/dave-new?fieldManager=t', apply('dave-new'));
    expect(applied.status).toBe(403);
    expect(applied.json.message).toBe(message);
    // Nothing was written by the refused requests; applying to the existing object needs only patch.
    expect((await ts().request('GET', '/api/v1/namespaces/default/configmaps/dave-new')).status).toBe(404);
    expect((await ts().request('PATCH', '/api/v1/namespaces/default/configmaps/dave-existing?fieldManager=t', apply('dave-existing'))).status).toBe(200);
  });

  test('nonResourceURL rules, and anonymous reaches only public info', async () => {
    expect((await ts().request('GET', '/metrics', as('bob-token'))).status).toBe(403);
    const forbidden = await ts().request('GET', '/metrics', as('bob-token'));
    expect(forbidden.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: {},
      message: 'forbidden: User "bob" cannot get path "/metrics"',
    });
    await ts().request('POST', `${RBAC}/clusterroles`, {
      body: { apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name: 'metrics-reader' }, rules: [{ nonResourceURLs: ['/metr*'], verbs: ['get'] }] },
    });
    await ts().request('POST', `${RBAC}/clusterrolebindings`, { body: binding('ClusterRoleBinding', 'bob-metrics', 'ClusterRole', 'metrics-reader', [user('bob')]) });
    await eventually('url grant', async () => (await ts().request('GET', '/metrics', as('bob-token'))).status === 200);
    // system:discovery for authenticated users.
    expect((await ts().request('GET', '/apis', as('bob-token'))).status).toBe(200);
    // system:public-info-viewer for everyone, nothing else for anonymous.
    expect((await ts().request('GET', '/version', as(null))).status).toBe(200);
    expect((await ts().request('GET', '/healthz', as(null))).status).toBe(200);
    const anon = await ts().request('GET', '/api/v1/namespaces/default/configmaps', as(null));
    expect(anon.status).toBe(403);
    expect(anon.json.message).toContain('User "system:anonymous" cannot list');
    expect((await ts().request('GET', '/apis', as(null))).status).toBe(403);
  });
});

describe('RBAC objects', () => {
  test('default roles and bindings exist after start-up, and admin/edit/view aggregate', async () => {
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:node-bootstrapper', 'system:aggregate-to-view']) {
      const r = await ts().request('GET', `${RBAC}/clusterroles/${name}`);
      expect([name, r.status]).toEqual([name, 200]);
      expect(r.json.metadata.labels['k8s.io/bootstrapping']).toBe('rbac-defaults');
      expect(r.json.metadata.annotations[`${G}/autoupdate`]).toBe('true');
    }
    const crb = await ts().request('GET', `${RBAC}/clusterrolebindings/system:public-info-viewer`);
    expect(crb.json.subjects.map((s: { name: string }) => s.name)).toEqual(['system:authenticated', 'system:unauthenticated']);
    let admin: { rules: Array<{ resources?: string[] }> } | undefined;
    await eventually('aggregation', async () => {
      admin = (await ts().request('GET', `${RBAC}/clusterroles/admin`)).json;
      return (admin?.rules ?? []).some((r) => r.resources?.includes('configmaps'));
    }, 5000);
    // admin holds edit's (and so view's) rules plus its own.
    expect(admin!.rules.some((r) => r.resources?.includes('rolebindings'))).toBe(true);
  });

  test('validation as upstream', async () => {
    const bad = await ts().request('POST', `${RBAC}/namespaces/default/roles`, {
      body: role('bad', [{ resources: ['pods'] }, { nonResourceURLs: ['/x'], verbs: ['get'] }]),
    });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toContain('rules[0].verbs: Required value: verbs must contain at least one value');
    expect(bad.json.message).toContain('rules[0].apiGroups: Required value: resource rules must supply at least one api group');
    expect(bad.json.message).toContain('namespaced rules cannot apply to non-resource URLs');
    const crb = await ts().request('POST', `${RBAC}/clusterrolebindings`, {
      body: binding('ClusterRoleBinding', 'bad', 'Role', 'x', [{ kind: 'ServiceAccount', name: 'sa' }, { kind: 'Robot', name: 'r' }]),
    });
    expect(crb.status).toBe(422);
    expect(crb.json.message).toContain('roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"');
    expect(crb.json.message).toContain('subjects[0].namespace: Required value');
    expect(crb.json.message).toContain('subjects[1].kind: Unsupported value: "Robot"');
  });

  test('roleRef is immutable; apiGroups are defaulted', async () => {
    const body = { apiVersion: `${G}/v1`, kind: 'RoleBinding', metadata: { name: 'imm' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'zed' }] };
    const c = await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, { body });
    expect(c.status).toBe(201);
    expect(c.json.roleRef.apiGroup).toBe(G);
    expect(c.json.subjects[0].apiGroup).toBe(G);
    const u = await ts().request('PUT', `${RBAC}/namespaces/default/rolebindings/imm`, {
      body: { ...c.json, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'edit' } },
    });
    expect(u.status).toBe(422);
    expect(u.json.reason).toBe('Invalid');
    expect(u.json.message).toContain('cannot change roleRef');
  });

  test('wide table columns of a binding', async () => {
    const r = await ts().request('GET', `${RBAC}/clusterrolebindings/system:public-info-viewer`, {
      headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    expect(r.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
    expect(r.json.rows[0].cells[1]).toBe('ClusterRole/system:public-info-viewer');
    expect(r.json.rows[0].cells[4]).toBe('system:authenticated, system:unauthenticated');
  });
});

describe('escalation prevention', () => {
  beforeAll(async () => {
    // alice may manage roles and bindings in namespace "default" (edit-like rights on RBAC only).
    await ts().request('POST', `${RBAC}/namespaces/default/roles`, {
      body: role('rbac-manager', [
        { apiGroups: [G], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'get'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      ]),
    });
    await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, { body: binding('RoleBinding', 'alice-manager', 'Role', 'rbac-manager', [user('alice')]) });
    await eventually('manager grant', async () => (await ts().request('GET', `${RBAC}/namespaces/default/roles/rbac-manager`, as('alice-token'))).status === 200);
  });

  test('a role with rules the writer lacks is 403 with upstream message', async () => {
    const r = await ts().request('POST', `${RBAC}/namespaces/default/roles`, {
      ...as('alice-token'),
      body: role('too-much', [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list'] }]),
    });
    expect(r.status).toBe(403);
    expect(r.json.reason).toBe('Forbidden');
    expect(r.json.message).toBe(
      `roles.${G} "too-much" is forbidden: user "alice" (groups=["devs" "qa" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n` +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    );
    // Rules the writer holds are fine.
    const ok = await ts().request('POST', `${RBAC}/namespaces/default/roles`, {
      ...as('alice-token'),
      body: role('subset', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
    });
    expect(ok.status).toBe(201);
  });

  test('escalate allows it; bind allows binding a role the writer does not hold', async () => {
    const bindView = await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, {
      ...as('alice-token'),
      body: binding('RoleBinding', 'bob-view', 'ClusterRole', 'view', [user('bob')]),
    });
    expect(bindView.status).toBe(403);
    expect(bindView.json.message).toContain(`rolebindings.${G} "bob-view" is forbidden: user "alice"`);
    // Binding a role whose rules alice holds is fine.
    const bindSubset = await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, {
      ...as('alice-token'),
      body: binding('RoleBinding', 'bob-subset', 'Role', 'subset', [user('bob')]),
    });
    expect(bindSubset.status).toBe(201);
    // Missing role: 404.
    const missing = await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, {
      ...as('alice-token'),
      body: binding('RoleBinding', 'bob-missing', 'Role', 'nope', [user('bob')]),
    });
    expect(missing.status).toBe(404);

    await ts().request('POST', `${RBAC}/namespaces/default/roles`, {
      body: role('escalator', [
        { apiGroups: [G], resources: ['roles'], verbs: ['escalate'] },
        { apiGroups: [G], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['view'] },
      ]),
    });
    await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, { body: binding('RoleBinding', 'alice-escalator', 'Role', 'escalator', [user('alice')]) });
    await eventually('escalate grant', async () =>
      (await ts().request('POST', `${RBAC}/namespaces/default/roles`, {
        ...as('alice-token'),
        body: role('now-ok', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]),
      })).status === 201,
    );
    const bound = await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, {
      ...as('alice-token'),
      body: binding('RoleBinding', 'bob-view', 'ClusterRole', 'view', [user('bob')]),
    });
    expect(bound.status).toBe(201);
    // bind is narrowed to "view": edit is still refused.
    const edit = await ts().request('POST', `${RBAC}/namespaces/default/rolebindings`, {
      ...as('alice-token'),
      body: binding('RoleBinding', 'bob-edit', 'ClusterRole', 'edit', [user('bob')]),
    });
    expect(edit.status).toBe(403);
  });
});
