import { startTestServer, type TestServer } from '../support/test-server.js';
import { openWatch, type WatchEventJson, type WatchStream } from '../support/watch-stream.js';

// Metadata-only views (`as=PartialObjectMetadata[List]`), as client-go's metadata client asks for
// them: the garbage collector and quota controllers of upstream's kube-controller-manager list and
// watch every resource this way, and decode nothing but PartialObjectMetadata(List).

let ts: TestServer;
const open = new Set<WatchStream>();
beforeAll(async () => {
  ts = await startTestServer(['--controllers=-namespace']);
  expect((await ts.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pom' } } })).status).toBe(201);
}, 60_000);
afterEach(() => {
  for (const w of open) w.close();
  open.clear();
});
afterAll(async () => {
  await ts?.stop();
}, 30_000);

// client-go metadata client's Accept headers (Protobuf first, then JSON).
const ONE = 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const LIST = 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const CMS = '/api/v1/namespaces/pom/configmaps';

async function createCm(name: string): Promise<{ metadata: { uid: string; resourceVersion: string } }> {
  const r = await ts.request('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { a: 'b' } }, data: { key: 'hidden-value' } } });
  expect(r.status).toBe(201);
  return r.json;
}

test('get answers PartialObjectMetadata: the metadata alone, in meta/v1 (or v1beta1)', async () => {
  const cm = await createCm('one');
  const r = await ts.request('GET', `${CMS}/one`, { headers: { Accept: ONE } });
  expect(r.status).toBe(200);
  expect(r.json).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'one', namespace: 'pom', uid: cm.metadata.uid, labels: { a: 'b' } }) });
  expect(r.text).not.toContain('hidden-value');
  const beta = await ts.request('GET', `${CMS}/one`, { headers: { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1' } });
  expect(beta.json.apiVersion).toBe('meta.k8s.io/v1beta1');
});

test('list answers PartialObjectMetadataList with the list resourceVersion and continue token', async () => {
  await createCm('two');
  await createCm('three');
  const r = await ts.request('GET', `${CMS}?limit=1`, { headers: { Accept: LIST } });
  expect(r.status).toBe(200);
  expect(r.json.kind).toBe('PartialObjectMetadataList');
  expect(r.json.apiVersion).toBe('meta.k8s.io/v1');
  expect(r.json.metadata.resourceVersion).toMatch(/^\d+$/);
  expect(r.json.metadata.continue).toBeTruthy();
  expect(r.json.items).toHaveLength(1);
  expect(r.json.items[0]).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ namespace: 'pom' }) });
  expect(r.text).not.toContain('hidden-value');
  // Cluster-wide, and a kind with a status (CustomResourceDefinitions, Namespaces...).
  const ns = await ts.request('GET', '/api/v1/namespaces', { headers: { Accept: LIST } });
  expect(ns.json.kind).toBe('PartialObjectMetadataList');
  expect(ns.json.items.every((i: { kind: string; status?: unknown }) => i.kind === 'PartialObjectMetadata' && i.status === undefined)).toBe(true);
});

test('a view that does not fit the result is 406 NotAcceptable, as upstream', async () => {
  await createCm('four');
  const single = await ts.request('GET', `${CMS}/four`, { headers: { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' } });
  expect(single.status).toBe(406);
  expect(single.json).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406, message: expect.stringContaining('not a list') });
  const list = await ts.request('GET', CMS, { headers: { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' } });
  expect(list.status).toBe(406);
  expect(list.json.message).toContain('is a list');
  // A missing object is still 404, not 406.
  expect((await ts.request('GET', `${CMS}/absent`, { headers: { Accept: ONE } })).status).toBe(404);
});

test('watch events and bookmarks carry PartialObjectMetadata', async () => {
  const list = await ts.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { headers: { Accept: LIST } });
  expect(list.json.kind).toBe('PartialObjectMetadataList');
  const from = (await ts.request('GET', CMS, { headers: { Accept: LIST } })).json.metadata.resourceVersion as string;
  const w = await openWatch(ts, `${CMS}?watch=true&resourceVersion=${from}&allowWatchBookmarks=true`, { headers: { Accept: ONE } });
  open.add(w);
  const plain = await openWatch(ts, `${CMS}?watch=true&resourceVersion=${from}`);
  open.add(plain);
  expect(w.status).toBe(200);
  const cm = await createCm('five');
  const ev = await w.nextMatching((e: WatchEventJson) => e.type === 'ADDED');
  expect(ev.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'five', uid: cm.metadata.uid }) });
  // Another watcher of the same event still gets the whole object (encodings are kept per view).
  const full = await plain.nextMatching((e: WatchEventJson) => e.type === 'ADDED');
  expect(full.object.kind).toBe('ConfigMap');
  expect(full.object.data).toEqual({ key: 'hidden-value' });
  expect(ev.object.metadata).toEqual(full.object.metadata);
  // A change: the metadata as it is now, whole (the view copies the stored metadata's JSON when it can).
  const changed = await ts.request('PUT', `${CMS}/five`, { body: { ...full.object, metadata: { ...full.object.metadata, labels: { a: 'c', 'x/y': 'q' }, annotations: { n: 'ü "}{ \\' } } } });
  expect(changed.status).toBe(200);
  const mod = await w.nextMatching((e: WatchEventJson) => e.type === 'MODIFIED');
  expect(mod.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: changed.json.metadata });
  expect((await plain.nextMatching((e: WatchEventJson) => e.type === 'MODIFIED')).object.metadata).toEqual(changed.json.metadata);
  // Bookmarks: writes elsewhere move the revision on; client-go decodes a bookmark's object too.
  const deadline = Date.now() + 10_000;
  let bookmark: WatchEventJson | undefined;
  for (let i = 0; !bookmark && Date.now() < deadline; i++) {
    const r = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `tick-${i}` } } });
    expect(r.status).toBe(201);
    bookmark = await w.nextMatching((e: WatchEventJson) => e.type === 'BOOKMARK', 1_000).catch(() => undefined);
  }
  expect(bookmark?.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
}, 30_000);
