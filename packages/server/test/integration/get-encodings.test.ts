import { startTestServer, type TestServer } from '../support/test-server.js';

// A GET's JSON is kept by object identity (shared with list items): every answer must still be
// the object's current state, in every form a client may ask for.

let ts: TestServer;
const path = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  ts = await startTestServer(['--controllers=-namespace']);
}, 60_000);

afterAll(async () => {
  await ts?.stop();
}, 30_000);

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await read();
    if (ok(v) || i >= 100) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a GET answered again, after a list and after an update, is the current object', async () => {
  const created = await ts.request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'enc' }, data: { v: '1' } } });
  expect(created.status).toBe(201);
  const cached = () => ts.request('GET', `${path}/enc?resourceVersion=0`);
  const first = await until(cached, (r) => r.status === 200);
  expect(first.json.data).toEqual({ v: '1' });
  // The same bytes again, and after a list encoded the same object.
  expect((await cached()).body).toEqual(first.body);
  expect((await ts.request('GET', path)).json.items.some((i: { metadata: { name: string } }) => i.metadata.name === 'enc')).toBe(true);
  expect((await ts.request('GET', `${path}/enc`)).body).toEqual(first.body);

  const updated = await ts.request('PUT', `${path}/enc`, { body: { ...first.json, data: { v: '2' } } });
  expect(updated.status).toBe(200);
  // Quorum: the new state at once; cached: the new state once the watch cache has it, never the old one after.
  const quorum = await ts.request('GET', `${path}/enc`);
  expect(quorum.json.data).toEqual({ v: '2' });
  expect(quorum.json.metadata.resourceVersion).toBe(updated.json.metadata.resourceVersion);
  const after = await until(cached, (r) => r.json.data?.v === '2');
  expect(after.json.data).toEqual({ v: '2' });
  expect((await cached()).json.metadata.resourceVersion).toBe(updated.json.metadata.resourceVersion);
  // Other forms of the same object are not the kept JSON.
  const table = await ts.request('GET', `${path}/enc`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  expect(table.json.kind).toBe('Table');
  const pretty = await ts.request('GET', `${path}/enc?pretty=true`);
  expect(pretty.body.toString('utf8')).toContain('\n  "kind": "ConfigMap"');

  const gone = await ts.request('DELETE', `${path}/enc`);
  expect(gone.status).toBe(200);
  expect((await ts.request('GET', `${path}/enc`)).status).toBe(404);
});
