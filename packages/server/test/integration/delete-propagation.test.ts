import { startTestServer, type TestServer } from '../support/test-server.js';

// DeleteOptions.propagationPolicy (and the deprecated orphanDependents) as upstream's store applies
// it with garbage collection enabled: Orphan and Foreground keep the object, marked for deletion,
// under the `orphan` / `foregroundDeletion` finalizer that a garbage collector (upstream's
// kube-controller-manager) removes once it has orphaned or deleted the dependents.

let ts: TestServer;
beforeAll(async () => {
  ts = await startTestServer(['--controllers=-namespace', '--enable-garbage-collector']);
  expect((await ts.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc' } } })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await ts?.stop();
}, 30_000);

const CMS = '/api/v1/namespaces/gc/configmaps';
async function create(name: string, finalizers?: string[]): Promise<void> {
  const r = await ts.request('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(finalizers ? { finalizers } : {}) } } });
  expect(r.status).toBe(201);
}
const del = (name: string, body?: unknown, query = '') => ts.request('DELETE', `${CMS}/${name}${query}`, body ? { body } : {});

test.each([
  ['Orphan', 'orphan'],
  ['Foreground', 'foregroundDeletion'],
])('propagationPolicy=%s keeps the object under the %s finalizer until it is removed', async (policy, finalizer) => {
  const name = `p-${policy.toLowerCase()}`;
  await create(name);
  const r = await del(name, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policy });
  expect(r.status).toBe(200);
  expect(r.json.kind).toBe('ConfigMap');
  expect(r.json.metadata.finalizers).toEqual([finalizer]);
  expect(r.json.metadata.deletionTimestamp).toBeTruthy();
  expect(r.json.metadata.deletionGracePeriodSeconds).toBe(0);
  // What the garbage collector does when the dependents are handled: drop its finalizer.
  const patched = await ts.request('PATCH', `${CMS}/${name}`, {
    body: { metadata: { finalizers: null } },
    headers: { 'Content-Type': 'application/merge-patch+json' },
  });
  expect(patched.status).toBe(200);
  expect((await ts.request('GET', `${CMS}/${name}`)).status).toBe(404);
});

test('Background and no policy delete at once; Background drops a stale orphan finalizer', async () => {
  await create('b-none');
  const none = await del('b-none');
  expect(none.json).toMatchObject({ kind: 'Status', status: 'Success' });
  await create('b-bg');
  expect((await del('b-bg', { propagationPolicy: 'Background' })).json).toMatchObject({ kind: 'Status', status: 'Success' });
  await create('b-stale', ['orphan']);
  const stale = await del('b-stale', { propagationPolicy: 'Background' });
  expect(stale.json).toMatchObject({ kind: 'Status', status: 'Success' });
  expect((await ts.request('GET', `${CMS}/b-stale`)).status).toBe(404);
});

test('another finalizer keeps holding the object after the orphan finalizer goes', async () => {
  await create('f-both', ['example.com/hold']);
  const r = await del('f-both', { propagationPolicy: 'Orphan' });
  expect(r.json.metadata.finalizers).toEqual(['example.com/hold', 'orphan']);
  const p = await ts.request('PATCH', `${CMS}/f-both`, {
    body: [{ op: 'replace', path: '/metadata/finalizers', value: ['example.com/hold'] }],
    headers: { 'Content-Type': 'application/json-patch+json' },
  });
  expect(p.status).toBe(200);
  expect(p.json.metadata.deletionTimestamp).toBeTruthy();
  // A dry-run Orphan delete changes nothing stored.
  await create('f-dry');
  const dry = await del('f-dry', { propagationPolicy: 'Orphan', dryRun: ['All'] });
  expect(dry.status).toBe(200);
  const after = await ts.request('GET', `${CMS}/f-dry`);
  expect(after.json.metadata.finalizers).toBeUndefined();
  expect(after.json.metadata.deletionTimestamp).toBeUndefined();
});

test('core/v1 ReplicationControllers orphan by default (no policy, no finalizer), as upstream keeps for v1', async () => {
  const RCS = '/api/v1/namespaces/gc/replicationcontrollers';
  const rc = (name: string) => ({
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name },
    spec: { replicas: 0, selector: { app: name }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  });
  expect((await ts.request('POST', RCS, { body: rc('rc-default') })).status).toBe(201);
  const r = await ts.request('DELETE', `${RCS}/rc-default`);
  expect(r.status).toBe(200);
  expect(r.json.metadata.finalizers).toEqual(['orphan']);
  // An explicit Background still deletes at once.
  expect((await ts.request('POST', RCS, { body: rc('rc-bg') })).status).toBe(201);
  expect((await ts.request('DELETE', `${RCS}/rc-bg`, { body: { propagationPolicy: 'Background' } })).json).toMatchObject({ kind: 'Status', status: 'Success' });
});
