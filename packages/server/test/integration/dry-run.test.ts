import { useTestServer } from '../support/test-server.js';

const ts = useTestServer(['--controllers=-namespace']);

/** The etcd revision as a quorum list reports it: unchanged means nothing was written. */
const revision = async () => (await ts().request('GET', '/api/v1/namespaces/default/configmaps')).json.metadata.resourceVersion as string;

const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' }, data: { a: 'b' } };

describe('dry run (SPEC 4.6)', () => {
  beforeAll(async () => {
    expect((await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: base })).status).toBe(201);
  });

  test.each([['dryRun=All'], ['dryRun'], ['dryRun=']])('create with ?%s answers 201 and stores nothing', async (q) => {
    const before = await revision();
    const res = await ts().request('POST', `/api/v1/namespaces/default/configmaps?${q}`, {
      body: { ...base, metadata: { name: 'dry-create' } },
    });
    expect(res.status).toBe(201);
    expect(res.json.metadata.uid).toBeTruthy();
    expect(res.json.metadata.creationTimestamp).toBeTruthy();
    expect((await ts().request('GET', '/api/v1/namespaces/default/configmaps/dry-create')).status).toBe(404);
    expect(await revision()).toBe(before);
  });

  test('update, patch, delete and deletecollection with dryRun=All change nothing', async () => {
    const current = (await ts().request('GET', '/api/v1/namespaces/default/configmaps/dry')).json;
    const before = await revision();
    const put = await ts().request('PUT', '/api/v1/namespaces/default/configmaps/dry?dryRun=All', { body: { ...current, data: { a: 'put' } } });
    expect(put.status).toBe(200);
    expect(put.json.data).toEqual({ a: 'put' });
    const patch = await ts().request('PATCH', '/api/v1/namespaces/default/configmaps/dry?dryRun=All', {
      body: { data: { a: 'patched' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patch.status).toBe(200);
    expect(patch.json.data).toEqual({ a: 'patched' });
    const del = await ts().request('DELETE', '/api/v1/namespaces/default/configmaps/dry?dryRun=All');
    expect(del.status).toBe(200);
    const delAll = await ts().request('DELETE', '/api/v1/namespaces/default/configmaps?dryRun=All');
    expect(delAll.status).toBe(200);
    expect(await revision()).toBe(before);
    const after = (await ts().request('GET', '/api/v1/namespaces/default/configmaps/dry')).json;
    expect(after.data).toEqual({ a: 'b' });
    expect(after.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
  });

  test('dry run still validates', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', {
      body: { ...base, metadata: { name: 'Bad!' } },
    });
    expect(res.status).toBe(422);
  });

  test('an unknown dryRun value is refused', async () => {
    const res = await ts().request('POST', '/api/v1/namespaces/default/configmaps?dryRun=Some', { body: { ...base, metadata: { name: 'x' } } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.json.message).toContain('dryRun');
    expect((await ts().request('GET', '/api/v1/namespaces/default/configmaps/x')).status).toBe(404);
  });
});
