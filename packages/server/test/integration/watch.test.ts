import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { startTestServer, type Reply, type TestServer } from '../support/test-server.js';
import { openWatch, type WatchEventJson, type WatchStream } from '../support/watch-stream.js';

// SPEC 4.4 (watch table), 4.5, 6 (events, bookmarks, history), 7 (410/504) over HTTPS against a
// replica with its own etcd and no controllers (so nothing else writes).

let ts: TestServer;
const open = new Set<WatchStream>();

beforeAll(async () => {
  ts = await startTestServer(['--controllers=-namespace']);
}, 60_000);
afterEach(() => {
  for (const w of open) w.close();
  open.clear();
});
afterAll(async () => {
  await ts?.stop();
}, 30_000);

interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion: string; labels?: Record<string, string>; uid?: string };
  data?: Record<string, string>;
}

const base = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const rvOf = (e: WatchEventJson) => Number(e.object.metadata.resourceVersion);
const summary = (e: WatchEventJson) => `${e.type} ${e.object?.metadata?.name ?? ''}`;

async function watch(server: TestServer, path: string, headers?: Record<string, string>): Promise<WatchStream> {
  const w = await openWatch(server, path, headers ? { headers } : {});
  open.add(w);
  return w;
}

async function namespace(name: string, server: TestServer = ts): Promise<void> {
  const r = await server.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  expect(r.status).toBe(201);
}

async function createCm(
  ns: string,
  name: string,
  data: Record<string, string> = { v: '1' },
  labels?: Record<string, string>,
  server: TestServer = ts,
): Promise<Obj> {
  const r = await server.request('POST', base(ns), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data },
  });
  expect(r.status).toBe(201);
  return r.json as Obj;
}

async function updateCm(ns: string, name: string, change: (o: Obj) => void): Promise<Obj> {
  const cur = await ts.request('GET', `${base(ns)}/${name}`);
  expect(cur.status).toBe(200);
  change(cur.json as Obj);
  const r = await ts.request('PUT', `${base(ns)}/${name}`, { body: cur.json });
  expect(r.status).toBe(200);
  return r.json as Obj;
}

async function deleteCm(ns: string, name: string): Promise<void> {
  expect((await ts.request('DELETE', `${base(ns)}/${name}`)).status).toBe(200);
}

async function listRv(path: string): Promise<string> {
  const r = await ts.request('GET', path);
  expect(r.status).toBe(200);
  return r.json.metadata.resourceVersion as string;
}

function expectIncreasing(events: WatchEventJson[]): void {
  for (let i = 1; i < events.length; i++) expect(rvOf(events[i]!)).toBeGreaterThan(rvOf(events[i - 1]!));
}

async function metric(name: string): Promise<number> {
  const r: Reply = await ts.request('GET', '/metrics');
  expect(r.status).toBe(200);
  const line = r.text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  if (!line) throw new Error(`metric ${name} not exported`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Polls a gauge until it is at most `limit` (bounded, 10 s); returns the last value. */
async function gaugeAtMost(name: string, limit: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  let v = await metric(name);
  while (v > limit && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    v = await metric(name);
  }
  return v;
}

describe('watch start semantics (SPEC 4.4 watch table)', () => {
  test.each([
    ['unset (Get State and Start at Most Recent)', 'w-unset', ''],
    ['0 (Get State and Start at Any)', 'w-zero', '&resourceVersion=0'],
  ])('resourceVersion %s: synthetic ADDED for each object, then ADDED, MODIFIED and DELETED live', async (_name, ns, q) => {
    await namespace(ns);
    const a = await createCm(ns, 'a');
    const b = await createCm(ns, 'b', { keep: 'last' });
    const w = await watch(ts, `${base(ns)}?watch=true${q}`);
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toMatch(/^application\/json/);
    expect(w.headers['transfer-encoding']).toBe('chunked');

    const initial = await w.take(2);
    expect(initial.map(summary).sort()).toEqual(['ADDED a', 'ADDED b']);
    for (const e of initial) {
      expect(e.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
      const src = e.object.metadata.name === 'a' ? a : b;
      expect(e.object.metadata.resourceVersion).toBe(src.metadata.resourceVersion);
      expect(e.object.metadata.uid).toBe(src.metadata.uid);
    }

    const c = await createCm(ns, 'c');
    const modified = await updateCm(ns, 'a', (o) => (o.data = { v: '2' }));
    await deleteCm(ns, 'b');
    const live = await w.take(3);
    expect(live.map(summary)).toEqual(['ADDED c', 'MODIFIED a', 'DELETED b']);
    expect(live[0]!.object.metadata.resourceVersion).toBe(c.metadata.resourceVersion);
    expect(live[1]!.object.data).toEqual({ v: '2' });
    expect(live[1]!.object.metadata.resourceVersion).toBe(modified.metadata.resourceVersion);
    // DELETED carries the last state, at the revision of the deletion.
    expect(live[2]!.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'b', uid: b.metadata.uid }, data: { keep: 'last' } });
    expectIncreasing(live);
    for (const e of live) for (const i of initial) expect(rvOf(e)).toBeGreaterThan(rvOf(i));
    expect(await w.drain(300)).toEqual([]);
  }, 15_000);

  test('resourceVersion=N: only the changes after N, without synthetic ADDED', async () => {
    const ns = 'w-from-n';
    await namespace(ns);
    await createCm(ns, 'a');
    await createCm(ns, 'b');
    const n = await listRv(base(ns));
    await createCm(ns, 'c');
    await updateCm(ns, 'a', (o) => (o.data = { v: '2' }));
    const w = await watch(ts, `${base(ns)}?watch=true&resourceVersion=${n}`);
    const replay = await w.take(2);
    expect(replay.map(summary)).toEqual(['ADDED c', 'MODIFIED a']);
    for (const e of replay) expect(rvOf(e)).toBeGreaterThan(Number(n));
    await deleteCm(ns, 'c');
    const del = await w.nextEvent();
    expect(summary(del)).toBe('DELETED c');
    expectIncreasing([...replay, del]);
    expect(await w.drain(300)).toEqual([]);
  }, 15_000);

  test('resourceVersion=current: nothing until the next change', async () => {
    const ns = 'w-from-now';
    await namespace(ns);
    await createCm(ns, 'a');
    const n = await listRv(base(ns));
    const w = await watch(ts, `${base(ns)}?watch=true&resourceVersion=${n}`);
    expect(await w.drain(300)).toEqual([]);
    await createCm(ns, 'b');
    expect(summary(await w.nextEvent())).toBe('ADDED b');
  }, 15_000);

  test('a malformed resourceVersion is refused before the stream starts', async () => {
    const w = await watch(ts, `${base('default')}?watch=true&resourceVersion=abc`);
    // Upstream answers 422 (storage InvalidError through InterpretWatchError); SPEC 7 says 400.
    expect([400, 422]).toContain(w.status);
    expect(w.json).toMatchObject({ kind: 'Status', status: 'Failure', code: w.status });
    expect(w.json.message).toContain('abc');
  }, 15_000);

  test.each([
    ['a malformed label selector', 'labelSelector=a%20b%20c', ''],
    ['an unsupported field selector', 'fieldSelector=spec.x%3Dy', 'field label not supported: spec.x'],
  ])('%s is 400 before the stream starts', async (_name, q, message) => {
    const w = await watch(ts, `${base('default')}?watch=true&${q}`);
    expect(w.status).toBe(400);
    expect(w.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    expect(w.json.message).toContain(message);
  }, 15_000);

  test('a future resourceVersion is refused with "Too large resource version" (504, or an ERROR event)', async () => {
    const now = Number(await listRv(base('default')));
    const future = now + 1_000_000;
    const w = await watch(ts, `${base('default')}?watch=true&resourceVersion=${future}`);
    let status: { code: number; message: string; reason: string };
    if (w.status === 200) {
      const ev = await w.nextEvent(10_000);
      expect(ev.type).toBe('ERROR');
      status = ev.object;
    } else {
      expect(w.status).toBe(504);
      expect(w.headers['retry-after']).toMatch(/^\d+$/);
      status = w.json;
    }
    expect(status).toMatchObject({ kind: 'Status', code: 504, reason: 'Timeout' });
    expect(status.message).toContain(`Too large resource version: ${future}`);
  }, 20_000);
});

describe('what a watch sees', () => {
  test('label selector: leaving the selection is DELETED (old state), entering it is ADDED', async () => {
    const ns = 'w-labels';
    await namespace(ns);
    await createCm(ns, 'other', { v: '1' }, { app: 'other' });
    const w = await watch(ts, `${base(ns)}?watch=true&labelSelector=app%3Dweb`);
    await createCm(ns, 'm', { v: '1' }, { app: 'web' });
    await createCm(ns, 'noise', { v: '1' }, { app: 'other' });
    expect(summary(await w.nextEvent())).toBe('ADDED m');

    const left = await updateCm(ns, 'm', (o) => (o.metadata.labels = { app: 'db' }));
    const gone = await w.nextEvent();
    expect(summary(gone)).toBe('DELETED m');
    expect(gone.object.metadata.labels).toEqual({ app: 'web' });
    expect(gone.object.metadata.resourceVersion).toBe(left.metadata.resourceVersion);

    const back = await updateCm(ns, 'm', (o) => (o.metadata.labels = { app: 'web' }));
    const added = await w.nextEvent();
    expect(summary(added)).toBe('ADDED m');
    expect(added.object.metadata.labels).toEqual({ app: 'web' });
    expect(added.object.metadata.resourceVersion).toBe(back.metadata.resourceVersion);

    await updateCm(ns, 'm', (o) => (o.data = { v: '2' }));
    expect(summary(await w.nextEvent())).toBe('MODIFIED m');
    await deleteCm(ns, 'm');
    expect(summary(await w.nextEvent())).toBe('DELETED m');
    expect(await w.drain(300)).toEqual([]);
  }, 15_000);

  test('a namespace watch sees only its namespace; an all-namespaces watch sees both', async () => {
    await namespace('w-ns1');
    await namespace('w-ns2');
    const from = await listRv('/api/v1/configmaps');
    const one = await watch(ts, `${base('w-ns1')}?watch=true&resourceVersion=${from}`);
    const all = await watch(ts, `/api/v1/configmaps?watch=true&resourceVersion=${from}`);
    await createCm('w-ns2', 'x');
    await createCm('w-ns1', 'y');
    const seen = await one.nextEvent();
    expect(seen.object.metadata).toMatchObject({ name: 'y', namespace: 'w-ns1' });
    expect(await one.drain(300)).toEqual([]);
    const both = await all.take(2);
    expect(both.map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`)).toEqual(['ADDED w-ns2/x', 'ADDED w-ns1/y']);
  }, 15_000);

  test('single-object watches (fieldSelector=metadata.name, legacy /watch/ path) see only that object', async () => {
    const ns = 'w-single';
    await namespace(ns);
    await createCm(ns, 'x');
    await createCm(ns, 'y');
    const from = await listRv(base(ns));
    const byField = await watch(ts, `${base(ns)}?watch=true&fieldSelector=metadata.name%3Dx&resourceVersion=${from}`);
    const legacy = await watch(ts, `/api/v1/watch/namespaces/${ns}/configmaps/x?resourceVersion=${from}`);
    expect(legacy.status).toBe(200);
    await updateCm(ns, 'y', (o) => (o.data = { v: 'y2' }));
    await updateCm(ns, 'x', (o) => (o.data = { v: 'x2' }));
    await deleteCm(ns, 'y');
    await deleteCm(ns, 'x');
    for (const w of [byField, legacy]) {
      const evs = await w.take(2);
      expect(evs.map(summary)).toEqual(['MODIFIED x', 'DELETED x']);
      expect(evs[0]!.object.data).toEqual({ v: 'x2' });
      expect(await w.drain(200)).toEqual([]);
    }
  }, 15_000);

  test('single-object watches without resourceVersion start with ADDED of that object only', async () => {
    const ns = 'w-single-state';
    await namespace(ns);
    await createCm(ns, 'x');
    await createCm(ns, 'y');
    const byField = await watch(ts, `${base(ns)}?watch=true&fieldSelector=metadata.name%3Dx`);
    const legacy = await watch(ts, `/api/v1/watch/namespaces/${ns}/configmaps/x`);
    for (const w of [byField, legacy]) {
      expect(summary(await w.nextEvent())).toBe('ADDED x');
      expect(await w.drain(200)).toEqual([]);
    }
  }, 15_000);

  test('legacy /watch/ collection path and watch=1 stream like ?watch=true', async () => {
    const ns = 'w-legacy-list';
    await namespace(ns);
    const from = await listRv(base(ns));
    const w = await watch(ts, `/api/v1/watch/namespaces/${ns}/configmaps?resourceVersion=${from}`);
    const w1 = await watch(ts, `${base(ns)}?watch=1&resourceVersion=${from}`);
    await createCm(ns, 'a');
    for (const x of [w, w1]) expect(summary(await x.nextEvent())).toBe('ADDED a');
    await createCm(ns, 'b');
    for (const x of [w, w1]) expect(summary(await x.nextEvent())).toBe('ADDED b');
  }, 15_000);

  test('allowWatchBookmarks=true gets BOOKMARK events of the requested kind with only resourceVersion; without it none', async () => {
    const ns = 'w-bookmarks';
    await namespace(ns);
    await namespace('w-bookmarks-elsewhere');
    const from = await listRv(base(ns));
    const withBm = await watch(ts, `${base(ns)}?watch=true&resourceVersion=${from}&allowWatchBookmarks=true`);
    const without = await watch(ts, `${base(ns)}?watch=true&resourceVersion=${from}`);
    // Writes elsewhere move the resource's revision on without giving these watches an event.
    const deadline = Date.now() + 10_000;
    let bookmark: WatchEventJson | undefined;
    for (let i = 0; !bookmark && Date.now() < deadline; i++) {
      await createCm('w-bookmarks-elsewhere', `tick-${i}`);
      bookmark = await withBm.nextMatching((e) => e.type === 'BOOKMARK', 1_000).catch(() => undefined);
    }
    expect(bookmark).toBeDefined();
    expect(bookmark!.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
    expect(Number(bookmark!.object.metadata.resourceVersion)).toBeGreaterThan(Number(from));
    expect(withBm.received.filter((e) => e.type !== 'BOOKMARK')).toEqual([]);
    // A change after a bookmark has a newer resourceVersion.
    const c = await createCm(ns, 'after-bookmark');
    const ev = await withBm.nextMatching((e) => e.type !== 'BOOKMARK');
    expect(summary(ev)).toBe('ADDED after-bookmark');
    expect(rvOf(ev)).toBeGreaterThan(Number(bookmark!.object.metadata.resourceVersion));
    expect(ev.object.metadata.resourceVersion).toBe(c.metadata.resourceVersion);

    expect((await without.nextEvent()).type).toBe('ADDED');
    expect(without.received.map((e) => e.type)).not.toContain('BOOKMARK');
  }, 20_000);

  test('timeoutSeconds=2 ends the stream with 200 and no error', async () => {
    const started = Date.now();
    const w = await watch(ts, `${base('default')}?watch=true&timeoutSeconds=2`);
    expect(w.status).toBe(200);
    await w.waitEnd(8_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(w.received.map((e) => e.type)).not.toContain('ERROR');
  }, 15_000);

  test('Accept: as=Table streams Table objects with one row per event', async () => {
    const ns = 'w-table';
    await namespace(ns);
    const from = await listRv(base(ns));
    const w = await watch(ts, `${base(ns)}?watch=true&resourceVersion=${from}`, { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
    expect(w.status).toBe(200);
    await createCm(ns, 'a');
    const first = await w.nextEvent();
    expect(first.type).toBe('ADDED');
    expect(first.object).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(first.object.rows).toHaveLength(1);
    expect(first.object.rows[0].cells[0]).toBe('a');
    expect(first.object.rows[0].object.metadata.name).toBe('a');
    await updateCm(ns, 'a', (o) => (o.data = { v: '2' }));
    const second = await w.nextEvent();
    expect(second.type).toBe('MODIFIED');
    expect(second.object.kind).toBe('Table');
    expect(second.object.rows[0].cells[0]).toBe('a');
  }, 15_000);
});

describe('history window (SPEC 6 rule 4, SPEC 7)', () => {
  let hs: TestServer;
  beforeAll(async () => {
    hs = await startTestServer(['--controllers=-namespace', '--watch-cache-history=2s']);
  }, 60_000);
  afterAll(async () => {
    await hs?.stop();
  }, 30_000);

  test('a watch from a revision older than the history is 200 with one ERROR event carrying a 410 Status', async () => {
    await namespace('hist', hs);
    const a = await createCm('hist', 'a', { v: '1' }, undefined, hs);
    // Start the cache for the resource and keep it fed, then let the window pass a.
    const feed = await watch(hs, `${base('hist')}?watch=true&resourceVersion=${a.metadata.resourceVersion}`);
    await createCm('hist', 'b', { v: '1' }, undefined, hs);
    expect(summary(await feed.nextEvent())).toBe('ADDED b');
    await new Promise((r) => setTimeout(r, 3_500));
    await createCm('hist', 'c', { v: '1' }, undefined, hs);
    await new Promise((r) => setTimeout(r, 1_200));
    const w = await watch(hs, `${base('hist')}?watch=true&resourceVersion=${a.metadata.resourceVersion}`);
    expect(w.status).toBe(200);
    const ev = await w.nextEvent();
    expect(ev.type).toBe('ERROR');
    expect(ev.object).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' });
    // Upstream's watch cache: "too old resource version: <requested> (<oldest kept>)".
    expect(ev.object.message).toMatch(new RegExp(`^too old resource version: ${a.metadata.resourceVersion} \\(\\d+\\)$`));
    await w.waitEnd(5_000);
    expect(w.received).toHaveLength(1);
    // The recovery SPEC 6 rule 4 describes works: list again and watch from the returned version.
    const list = await hs.request('GET', base('hist'));
    const again = await watch(hs, `${base('hist')}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    await createCm('hist', 'd', { v: '1' }, undefined, hs);
    expect(summary(await again.nextEvent())).toBe('ADDED d');
  }, 30_000);
});

describe('fan-out: one etcd watch for many client watchers', () => {
  const N = 1000;
  test(`${N} concurrent watchers on separate connections all get one write; etcd watches do not grow`, async () => {
    const ns = 'w-fanout';
    await namespace(ns);
    const from = await listRv(base(ns));
    const path = `${base(ns)}?watch=true&resourceVersion=${from}`;
    // Watches of earlier tests were closed by the client; wait until the server has let them go.
    // What stays are the replica's own watches: the RBAC index watches its four kinds, the CRD
    // controller watches CRDs, the admission webhook index the two webhook configuration kinds,
    // the aggregator's index the APIServices, priority and fairness the flow schemas and priority levels.
    const own = 10;
    expect(await gaugeAtMost('apiserver_watch_cache_watchers', own)).toBe(own);
    const first = await watch(ts, path);
    const etcdWatchesWithOne = await metric('apiserver_storage_etcd_watches');
    const clientWatchersWithOne = await metric('apiserver_watch_cache_watchers');
    expect(etcdWatchesWithOne).toBeGreaterThanOrEqual(1);
    expect(clientWatchersWithOne).toBe(own + 1);

    const watchers: WatchStream[] = [first];
    for (let i = 1; i < N; i += 100) {
      const batch = await Promise.all(Array.from({ length: Math.min(100, N - i) }, () => watch(ts, path)));
      watchers.push(...batch);
    }
    expect(watchers.every((w) => w.status === 200)).toBe(true);
    expect(await metric('apiserver_storage_etcd_watches')).toBe(etcdWatchesWithOne);
    expect(await metric('apiserver_watch_cache_watchers')).toBe(clientWatchersWithOne + N - 1);

    const created = await createCm(ns, 'hello');
    const events = await Promise.all(watchers.map((w) => w.nextEvent(30_000)));
    for (const e of events) {
      expect(e.type).toBe('ADDED');
      expect(e.object.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    }
    expect(await metric('apiserver_storage_etcd_watches')).toBe(etcdWatchesWithOne);

    for (const w of watchers) w.close();
    // Disconnected clients are unregistered.
    expect(await gaugeAtMost('apiserver_watch_cache_watchers', own)).toBe(own);
  }, 60_000);

  test('an HTTP/1.1 watch whose reader stops reading waits for drain, then gets every event in order', async () => {
    const ns = 'w-paused';
    await namespace(ns);
    const rv = await listRv(base(ns));
    const url = new URL(`${base(ns)}?watch=true&resourceVersion=${rv}`, ts.server.url);
    const req = httpsRequest(url, { headers: { Authorization: `Bearer ${ts.server.adminToken}` }, ca: ts.server.caPem, agent: false });
    try {
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        req.once('response', resolve);
        req.once('error', reject);
        req.end();
      });
      expect(res.statusCode).toBe(200);
      res.pause();
      // ~256 KiB an event, 8 MiB in all: over the loopback socket buffers while nobody reads, so
      // the server's writes block again and again.
      const names = Array.from({ length: 32 }, (_, i) => `big-${i}`);
      for (const name of names) await createCm(ns, name, { payload: 'x'.repeat(256 * 1024) });
      await new Promise((r) => setTimeout(r, 300));
      const seen: string[] = [];
      let buffered = '';
      const all = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${seen.length} events in time`)), 20_000);
        res.on('data', (c: Buffer) => {
          buffered += c.toString('utf8');
          for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
            const e = JSON.parse(buffered.slice(0, nl)) as WatchEventJson;
            buffered = buffered.slice(nl + 1);
            seen.push(summary(e));
          }
          if (seen.length >= names.length) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      res.resume();
      await all;
      expect(seen).toEqual(names.map((n) => `ADDED ${n}`));
    } finally {
      req.destroy();
    }
  }, 60_000);
});
