import { useTestServer } from '../support/test-server.js';

// DELETE on a collection (deletecollection) through a replica run with --delete-collection-workers:
// each selected object is deleted as a single DELETE of it would be (upstream's
// registry Store.DeleteCollection), several at a time.

const ts = useTestServer(['--controllers=-namespace', '--enable-garbage-collector', '--delete-collection-workers=4']);

async function namespace(name: string): Promise<string> {
  expect((await ts().request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } })).status).toBe(201);
  return `/api/v1/namespaces/${name}/configmaps`;
}
async function create(path: string, name: string, metadata: Record<string, unknown> = {}): Promise<void> {
  const r = await ts().request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...metadata }, data: { k: 'v' } } });
  expect(r.status).toBe(201);
}
async function names(path: string): Promise<string[]> {
  const r = await ts().request('GET', path);
  expect(r.status).toBe(200);
  return (r.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort();
}

test('a label selector deletes only the objects it picks; the answer is a Success Status', async () => {
  const path = await namespace('dc-selector');
  for (let i = 0; i < 10; i++) await create(path, `cm-${i}`, { labels: { tier: i < 6 ? 'web' : 'db' } });
  const r = await ts().request('DELETE', `${path}?labelSelector=tier%3Dweb`);
  expect(r.status).toBe(200);
  expect(r.json).toMatchObject({ kind: 'Status', status: 'Success' });
  expect(await names(path)).toEqual(['cm-6', 'cm-7', 'cm-8', 'cm-9']);
  // A field selector on the name picks one object.
  expect((await ts().request('DELETE', `${path}?fieldSelector=metadata.name%3Dcm-7`)).status).toBe(200);
  expect(await names(path)).toEqual(['cm-6', 'cm-8', 'cm-9']);
});

test('objects with finalizers stay, marked for deletion, until their finalizers are gone', async () => {
  const path = await namespace('dc-finalizers');
  for (let i = 0; i < 8; i++) await create(path, `cm-${i}`, i % 3 === 0 ? { finalizers: ['example.com/hold'] } : {});
  expect((await ts().request('DELETE', path)).status).toBe(200);
  expect(await names(path)).toEqual(['cm-0', 'cm-3', 'cm-6']);
  for (const name of ['cm-0', 'cm-3', 'cm-6']) {
    const o = (await ts().request('GET', `${path}/${name}`)).json;
    expect(o.metadata.deletionTimestamp).toBeTruthy();
    expect(o.metadata.deletionGracePeriodSeconds).toBe(0);
    expect(o.metadata.finalizers).toEqual(['example.com/hold']);
  }
  // Removing the finalizer finishes the delete.
  const p = await ts().request('PATCH', `${path}/cm-3`, { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  expect(p.status).toBe(200);
  expect(await names(path)).toEqual(['cm-0', 'cm-6']);
});

test('dryRun=All deletes nothing and marks nothing', async () => {
  const path = await namespace('dc-dryrun');
  for (let i = 0; i < 5; i++) await create(path, `cm-${i}`, i === 0 ? { finalizers: ['example.com/hold'] } : {});
  const r = await ts().request('DELETE', `${path}?dryRun=All`);
  expect(r.status).toBe(200);
  expect(await names(path)).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
  expect((await ts().request('GET', `${path}/cm-0`)).json.metadata.deletionTimestamp).toBeUndefined();
  // The same through DeleteOptions in the body.
  expect((await ts().request('DELETE', path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] } })).status).toBe(200);
  expect(await names(path)).toHaveLength(5);
});

test('propagationPolicy=Orphan leaves every object marked under the orphan finalizer for a garbage collector', async () => {
  const path = await namespace('dc-orphan');
  for (let i = 0; i < 3; i++) await create(path, `cm-${i}`);
  const r = await ts().request('DELETE', `${path}?propagationPolicy=Orphan`);
  expect(r.status).toBe(200);
  for (let i = 0; i < 3; i++) {
    const o = (await ts().request('GET', `${path}/cm-${i}`)).json;
    expect(o.metadata.finalizers).toEqual(['orphan']);
    expect(o.metadata.deletionTimestamp).toBeTruthy();
  }
});

test('preconditions of the caller are not applied per object, as upstream', async () => {
  const path = await namespace('dc-preconditions');
  for (let i = 0; i < 3; i++) await create(path, `cm-${i}`);
  const r = await ts().request('DELETE', path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-a-uid' } } });
  expect(r.status).toBe(200);
  expect(await names(path)).toEqual([]);
});
