import { KubeconfigClient } from './support/http-client.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { until } from './support/worker-replica.js';

// Label and field selectors on a replica of two worker threads, whose watch caches keep their
// objects in the shared store by default (each handle keeps its version's labels and fields once
// a selector looked at it): lists from the cache ("Any", most recent, pages) and watches answer
// exactly as upstream's, and a watcher sees an object entering its selection as ADDED and leaving
// it as DELETED. workers-selectors-decoded.test.ts runs the same with the store off
// (E2E_WATCH_CACHE_SHARED_STORE=false).

const NS = 'selectors';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const SECRETS = `/api/v1/namespaces/${NS}/secrets`;

let server: ServerProcess;
const clients: KubeconfigClient[] = [];
/** A client of its own per request group: connections land on either thread. */
const client = (): KubeconfigClient => {
  const c = new KubeconfigClient(server.kubeconfig, 1);
  clients.push(c);
  return c;
};
let admin: KubeconfigClient;

/** The items' names but the CA bundle ConfigMap a controller publishes in every namespace (when it did). */
const names = (r: { json: { items: { metadata: { name: string } }[] } }) =>
  r.json.items.map((o) => o.metadata.name).filter((n) => n !== 'kube-root-ca.crt');

beforeAll(async () => {
  const sharedStore = process.env.E2E_WATCH_CACHE_SHARED_STORE;
  server = await startServerProcess(['--workers', '2', ...(sharedStore ? [`--watch-cache-shared-store=${sharedStore}`] : [])]);
  admin = client();
  expect((await admin.call('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  const cm = (name: string, labels?: Record<string, string>) => ({ metadata: { name, ...(labels ? { labels } : {}) }, data: { k: name } });
  for (const body of [cm('a', { app: 'web', tier: 'front' }), cm('b', { app: 'db' }), cm('c'), cm('d', { app: 'web' })]) {
    expect((await admin.call('POST', CM, body)).status).toBe(201);
  }
  for (const [name, type] of [['s1', 'example.com/one'], ['s2', 'example.com/two']]) {
    expect((await admin.call('POST', SECRETS, { metadata: { name }, type, data: {} })).status).toBe(201);
  }
  // Every thread's cache has them (a resourceVersion=0 list is served by whichever thread took the connection).
  await until('both caches to hold the objects', async () => {
    for (let i = 0; i < 6; i++) {
      const r = await client().call('GET', `${CM}?resourceVersion=0`);
      if (r.status !== 200 || names(r).length !== 4) return false;
    }
    return true;
  });
}, 90_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await server?.stop();
}, 60_000);

describe.each([
  ['resourceVersion=0', 'resourceVersion=0'],
  ['most recent', ''],
])('selector lists from the cache (%s) on either thread', (_label, rv) => {
  test.each([
    ['labelSelector=app%3Dweb', ['a', 'd']],
    ['labelSelector=app!%3Dweb', ['b', 'c']],
    ['labelSelector=app%20in%20(web,db)', ['a', 'b', 'd']],
    ['labelSelector=app%20notin%20(web)', ['b', 'c']],
    ['labelSelector=app', ['a', 'b', 'd']],
    ['labelSelector=!app', ['c']],
    ['labelSelector=app%3Dweb,tier%3Dfront', ['a']],
    ['labelSelector=app%3Dnone', []],
    ['fieldSelector=metadata.name%3Db', ['b']],
    ['fieldSelector=metadata.name!%3Db', ['a', 'c', 'd']],
    [`fieldSelector=metadata.namespace%3D${NS}`, ['a', 'b', 'c', 'd']],
    ['fieldSelector=metadata.namespace%3Dother', []],
    ['labelSelector=app%3Dweb&fieldSelector=metadata.name!%3Da', ['d']],
  ])('%s', async (query, want) => {
    for (let i = 0; i < 4; i++) {
      const r = await client().call('GET', `${CM}?${rv ? `${rv}&` : ''}${query}`);
      expect(r.status).toBe(200);
      expect(names(r)).toEqual(want);
    }
  });

  test('a kind-specific field: secrets by type', async () => {
    for (let i = 0; i < 4; i++) {
      const r = await client().call('GET', `${SECRETS}?${rv ? `${rv}&` : ''}fieldSelector=type%3Dexample.com%2Fone`);
      expect(names(r)).toEqual(['s1']);
    }
  });
});

test('pages of a selector list (limit) follow the selection without remainingItemCount', async () => {
  const c = client();
  const first = await c.call('GET', `${CM}?limit=1&labelSelector=app%3Dweb`);
  expect(names(first)).toEqual(['a']);
  expect(first.json.metadata.remainingItemCount).toBeUndefined();
  const next = await c.call('GET', `${CM}?limit=1&labelSelector=app%3Dweb&continue=${encodeURIComponent(first.json.metadata.continue)}`);
  expect(names(next)).toEqual(['d']);
});

test('a selector watch sees objects enter (ADDED), change (MODIFIED) and leave (DELETED) its selection', async () => {
  const list = await client().call('GET', `${CM}?labelSelector=app%3Dweb`);
  const from = list.json.metadata.resourceVersion as string;
  // Several watchers on connections of their own, so both threads serve some.
  const seen: string[][] = [];
  const watches = Array.from({ length: 4 }, (_, i) => {
    seen.push([]);
    return client().watch(`${CM}?watch=true&labelSelector=app%3Dweb&resourceVersion=${from}`, (e) =>
      seen[i]!.push(`${e.type} ${e.object.metadata.name} ${e.object.metadata.labels?.app ?? ''}`),
    );
  });
  const byName: string[] = [];
  const named = client().watch(`${CM}?watch=true&fieldSelector=metadata.name%3Dc&resourceVersion=${from}`, (e) =>
    byName.push(`${e.type} ${e.object.metadata.name} ${e.object.metadata.labels?.app ?? ''}`),
  );
  try {
    const patch = async (name: string, body: unknown, type = 'application/merge-patch+json') =>
      expect((await admin.call('PATCH', `${CM}/${name}`, body, type)).status).toBe(200);
    await patch('b', { metadata: { labels: { app: 'web' } } }); // enters
    await patch('a', { metadata: { labels: { app: 'db' } } }); // leaves
    await patch('d', { data: { k: 'changed' } }); // stays
    await patch('c', { metadata: { labels: { app: 'web' } } }); // enters; c's own watch sees MODIFIED
    await patch('c', { metadata: { labels: { app: null } } }); // leaves
    expect((await admin.call('DELETE', `${CM}/b`)).status).toBe(200); // gone while selected
    const want = ['ADDED b web', 'DELETED a web', 'MODIFIED d web', 'ADDED c web', 'DELETED c web', 'DELETED b web'];
    await until('every watcher to see the six changes', () => seen.every((s) => s.length >= want.length) && byName.length >= 2, 30_000);
    for (const s of seen) expect(s).toEqual(want);
    expect(byName).toEqual(['MODIFIED c web', 'MODIFIED c ']);
  } finally {
    for (const w of watches) w.stop();
    named.stop();
  }
});
