import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestServer } from '../support/test-server.js';
import { cronTabCrd } from '../support/crontab-crd.js';

// Issue 21: RBAC applies to custom resources by group and resource; cluster-scoped custom
// resources; CRD changes (new columns, deprecated versions) served live.

const dir = mkdtempSync(join(tmpdir(), 'crd-rbac-'));
const tokenFile = join(dir, 'tokens.csv');
writeFileSync(tokenFile, 'erin-token,erin,u1\n');
const ts = useTestServer(['--authorization-mode=RBAC', '--token-auth-file', tokenFile, '--controllers=-namespace']);

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const json = (body: unknown, contentType = 'application/json') => ({ body, headers: { 'Content-Type': contentType } });

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('custom resources: scope, access and live changes', () => {
  const CLUSTER = '/apis/cluster.example.com/v1/crontabs';

  beforeAll(async () => {
    expect((await ts().request('POST', CRDS, json(cronTabCrd('cluster.example.com', 'Cluster')))).status).toBe(201);
    await eventually('served', async () => (await ts().request('GET', CLUSTER)).status === 200);
  }, 30_000);

  test('cluster-scoped custom resources have no namespace', async () => {
    const created = await ts().request('POST', CLUSTER, json({ apiVersion: 'cluster.example.com/v1', kind: 'CronTab', metadata: { name: 'global' }, spec: {} }));
    expect(created.status).toBe(201);
    expect(created.json.metadata.namespace).toBeUndefined();
    expect((await ts().request('GET', '/apis/cluster.example.com/v1/namespaces/default/crontabs')).status).toBe(404);
    const discovery = await ts().request('GET', '/apis/cluster.example.com/v1');
    expect(discovery.json.resources.find((r: { name: string }) => r.name === 'crontabs').namespaced).toBe(false);
  });

  test('RBAC grants custom resources by group and resource', async () => {
    const erin = { token: 'erin-token' };
    const denied = await ts().request('GET', CLUSTER, erin);
    expect(denied.status).toBe(403);
    expect(denied.json.message).toContain('crontabs.cluster.example.com is forbidden: User "erin" cannot list resource "crontabs" in API group "cluster.example.com"');
    const G = 'rbac.authorization.k8s.io';
    await ts().request('POST', `/apis/${G}/v1/clusterroles`, json({
      apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name: 'crontab-reader' },
      rules: [{ apiGroups: ['cluster.example.com'], resources: ['crontabs'], verbs: ['get', 'list'] }],
    }));
    await ts().request('POST', `/apis/${G}/v1/clusterrolebindings`, json({
      apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'erin-crontabs' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'crontab-reader' },
      subjects: [{ kind: 'User', apiGroup: G, name: 'erin' }],
    }));
    await eventually('grant', async () => (await ts().request('GET', CLUSTER, erin)).status === 200);
    const write = await ts().request('POST', CLUSTER, { ...json({ apiVersion: 'cluster.example.com/v1', kind: 'CronTab', metadata: { name: 'x' } }), token: 'erin-token' });
    expect(write.status).toBe(403);
  });

  test('a CRD update is served live: new printer column, deprecated version warns', async () => {
    const current = (await ts().request('GET', `${CRDS}/crontabs.cluster.example.com`)).json;
    current.spec.versions[0].additionalPrinterColumns.push({ name: 'Image', type: 'string', jsonPath: '.spec.image' });
    current.spec.versions[1].deprecated = true;
    const updated = await ts().request('PUT', `${CRDS}/crontabs.cluster.example.com`, json(current));
    expect(updated.status).toBe(200);
    expect(updated.json.metadata.generation).toBe(2);
    const tableOf = () => ts().request('GET', CLUSTER, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    await eventually('the new column', async () => (await tableOf()).json.columnDefinitions.some((c: { name: string }) => c.name === 'Image'));
    const beta = await ts().request('GET', '/apis/cluster.example.com/v1beta1/crontabs');
    expect(beta.status).toBe(200);
    expect(beta.headers['warning']).toBe('299 - "cluster.example.com/v1beta1 CronTab is deprecated; use cluster.example.com/v1 CronTab"');
    expect((await ts().request('GET', CLUSTER)).headers['warning']).toBeUndefined();
  });

  test('changing the scope of a CRD is refused', async () => {
    const current = (await ts().request('GET', `${CRDS}/crontabs.cluster.example.com`)).json;
    current.spec.scope = 'Namespaced';
    const r = await ts().request('PUT', `${CRDS}/crontabs.cluster.example.com`, json(current));
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('spec.scope: Invalid value: "Namespaced": field is immutable');
  });

  test('objects cannot be created while the CRD is terminating', async () => {
    // An object finalizer of its own keeps the CRD terminating long enough to look.
    const held = await ts().request('POST', CLUSTER, json({ apiVersion: 'cluster.example.com/v1', kind: 'CronTab', metadata: { name: 'held', finalizers: ['example.com/hold'] } }));
    expect(held.status).toBe(201);
    expect((await ts().request('DELETE', `${CRDS}/crontabs.cluster.example.com`)).status).toBe(200);
    await eventually('Terminating', async () => {
      const crd = (await ts().request('GET', `${CRDS}/crontabs.cluster.example.com`)).json;
      return (crd.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Terminating' && c.status === 'True');
    });
    const refused = await ts().request('POST', CLUSTER, json({ apiVersion: 'cluster.example.com/v1', kind: 'CronTab', metadata: { name: 'late' } }));
    expect(refused.status).toBe(405);
    expect(refused.json.message).toBe('create not allowed while custom resource definition is terminating');
    await eventually('the free object deleted', async () => (await ts().request('GET', `${CLUSTER}/global`)).status === 404);
    // The cleanup deletes the objects one by one, in no set order: the held one may come after.
    await eventually('the held object marked for deletion', async () => !!(await ts().request('GET', `${CLUSTER}/held`)).json.metadata?.deletionTimestamp);
    expect((await ts().request('GET', `${CLUSTER}/held`)).status).toBe(200);
    // Releasing the object's finalizer lets the cleanup finish and the CRD go.
    await ts().request('PATCH', `${CLUSTER}/held`, json({ metadata: { finalizers: null } }, 'application/merge-patch+json'));
    await eventually('the CRD gone', async () => (await ts().request('GET', `${CRDS}/crontabs.cluster.example.com`)).status === 404);
  }, 30_000);
});
