import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, newEtcdClient, startEtcd, type EtcdProcess } from '@cluster/storage';
import { startTestServer, type Reply, type TestServer } from '../support/test-server.js';

// SPEC 4.4 (get and list tables), 4.5 (chunking), 2.2 (remainingItemCount), 7 (400/410/504)
// against a replica over HTTPS and an etcd of our own, so that the test can compact it.

let etcd: EtcdProcess | undefined;
let etcdDir: string;
let kv: ReturnType<typeof newEtcdClient> | undefined;
let ts: TestServer;

beforeAll(async () => {
  etcdDir = await mkdtemp(join(tmpdir(), 'list-semantics-etcd-'));
  const [clientPort, peerPort] = await freePorts(2);
  etcd = await startEtcd({ dataDir: etcdDir, clientPort, peerPort });
  kv = newEtcdClient([etcd.endpoint]);
  ts = await startTestServer([`--etcd-servers=${etcd.endpoint}`, '--controllers=-namespace', '--etcd-compaction-interval=0']);
}, 60_000);

afterAll(async () => {
  await ts?.stop();
  kv?.close();
  await etcd?.stop();
  await rm(etcdDir, { recursive: true, force: true });
}, 30_000);

interface Item {
  metadata: { name: string; resourceVersion: string; uid?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

const base = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const names = (r: Reply) => (r.json.items as Item[]).map((i) => i.metadata.name);
const byName = (r: Reply, name: string) => (r.json.items as Item[]).find((i) => i.metadata.name === name);
const rvNum = (x: { metadata: { resourceVersion: string } }) => Number(x.metadata.resourceVersion);

async function namespace(name: string): Promise<void> {
  const r = await ts.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  expect(r.status).toBe(201);
}

async function createCm(ns: string, name: string, data: Record<string, string> = { v: '1' }, labels?: Record<string, string>): Promise<Item> {
  const r = await ts.request('POST', base(ns), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data },
  });
  expect(r.status).toBe(201);
  return r.json as Item;
}

async function updateCm(ns: string, name: string, data: Record<string, string>): Promise<Item> {
  const cur = await ts.request('GET', `${base(ns)}/${name}`);
  expect(cur.status).toBe(200);
  const r = await ts.request('PUT', `${base(ns)}/${name}`, { body: { ...cur.json, data } });
  expect(r.status).toBe(200);
  return r.json as Item;
}

async function deleteCm(ns: string, name: string): Promise<void> {
  expect((await ts.request('DELETE', `${base(ns)}/${name}`)).status).toBe(200);
}

/** Polls `fn` until it returns a truthy value (bounded); returns the last reply. */
async function eventually(fn: () => Promise<Reply>, ok: (r: Reply) => boolean, timeoutMs = 5_000): Promise<Reply> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await fn();
    if (ok(r) || Date.now() > deadline) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
}

function expectTooLarge(r: Reply, requested: number): void {
  expect(r.status).toBe(504);
  expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Timeout', code: 504 });
  expect(r.json.message).toContain(`Too large resource version: ${requested}`);
  expect(r.headers['retry-after']).toMatch(/^\d+$/);
  expect(r.json.details.causes).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'ResourceVersionTooLarge' })]));
}

describe('get (SPEC 4.4 get table)', () => {
  beforeAll(async () => {
    await namespace('get-rv');
  });

  test('resourceVersion unset reads the most recent state', async () => {
    await createCm('get-rv', 'recent', { v: '1' });
    const updated = await updateCm('get-rv', 'recent', { v: '2' });
    const got = await ts.request('GET', `${base('get-rv')}/recent`);
    expect(got.status).toBe(200);
    expect(got.json.data).toEqual({ v: '2' });
    expect(got.json.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
  });

  test('resourceVersion=0 (Any) still returns the object', async () => {
    const created = await createCm('get-rv', 'any', { v: '1' });
    const got = await eventually(
      () => ts.request('GET', `${base('get-rv')}/any?resourceVersion=0`),
      (r) => r.status === 200,
    );
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'any', uid: created.metadata.uid } });
  });

  test('resourceVersion=N is "not older than": the object may be newer than N, or unchanged since before N', async () => {
    const created = await createCm('get-rv', 'nolder', { v: '1' });
    const updated = await updateCm('get-rv', 'nolder', { v: '2' });
    const fromOld = await ts.request('GET', `${base('get-rv')}/nolder?resourceVersion=${created.metadata.resourceVersion}`);
    expect(fromOld.status).toBe(200);
    expect(rvNum(fromOld.json)).toBeGreaterThanOrEqual(rvNum(created));

    const fromNew = await ts.request('GET', `${base('get-rv')}/nolder?resourceVersion=${updated.metadata.resourceVersion}`);
    expect(fromNew.status).toBe(200);
    expect(fromNew.json.data).toEqual({ v: '2' });
    expect(fromNew.json.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);

    // A later write elsewhere: the unchanged object keeps its own (older) resourceVersion.
    const other = await createCm('get-rv', 'nolder-other');
    const later = await ts.request('GET', `${base('get-rv')}/nolder?resourceVersion=${other.metadata.resourceVersion}`);
    expect(later.status).toBe(200);
    expect(later.json.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
  });

  test('a missing object is 404 at any resourceVersion', async () => {
    for (const rv of ['', '0', '1']) {
      const r = await ts.request('GET', `${base('get-rv')}/absent${rv ? `?resourceVersion=${rv}` : ''}`);
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ reason: 'NotFound', message: 'configmaps "absent" not found' });
    }
  });

  test('a malformed resourceVersion is a client error', async () => {
    await createCm('get-rv', 'badrv');
    const r = await ts.request('GET', `${base('get-rv')}/badrv?resourceVersion=abc`);
    // A client error with a Status (upstream's storage InvalidError; SPEC 7: 400).
    expect([400, 422]).toContain(r.status);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', code: r.status });
  });

  test('a resourceVersion far in the future: get and list wait, then 504 Too large resource version with Retry-After', async () => {
    await createCm('get-rv', 'future');
    const future = 1_000_000_000;
    const started = Date.now();
    const replies = await Promise.all([
      ts.request('GET', `${base('get-rv')}/future?resourceVersion=${future}`),
      ts.request('GET', `${base('get-rv')}?resourceVersion=${future}`),
      ts.request('GET', `${base('get-rv')}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan&limit=1`),
      ts.request('GET', `${base('get-rv')}?resourceVersion=${future}&resourceVersionMatch=Exact`),
      ts.request('GET', `${base('get-rv')}?resourceVersion=${future}&limit=1`),
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    for (const r of replies) expectTooLarge(r, future);
  }, 20_000);
});

describe('list (SPEC 4.4 list table)', () => {
  beforeAll(async () => {
    await namespace('list-rv');
  });

  test('resourceVersion unset: most recent, includes what was just written', async () => {
    const created = await createCm('list-rv', 'mr');
    const list = await ts.request('GET', base('list-rv'));
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(names(list)).toContain('mr');
    expect(Number(list.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(rvNum(created));
    expect(list.json.metadata.continue ?? '').toBe('');
    expect(list.json.metadata.remainingItemCount).toBeUndefined();
  });

  test('resourceVersion=0 (Any), with and without limit and NotOlderThan, contains a just-created object after a short wait', async () => {
    await createCm('list-rv', 'any0');
    for (const q of ['resourceVersion=0', 'resourceVersion=0&limit=1', 'resourceVersion=0&resourceVersionMatch=NotOlderThan']) {
      const r = await eventually(
        () => ts.request('GET', `${base('list-rv')}?${q}`),
        (x) => x.status === 200 && (!!x.json.metadata.continue || names(x).includes('any0')),
      );
      expect(r.status).toBe(200);
      expect(r.json.metadata.resourceVersion).toMatch(/^[1-9][0-9]*$/);
      if (!r.json.metadata.continue) expect(names(r)).toContain('any0');
    }
  });

  test.each([
    ['resourceVersion=N', ''],
    ['resourceVersionMatch=NotOlderThan', '&resourceVersionMatch=NotOlderThan'],
  ])('%s is not older than N', async (_name, extra) => {
    const created = await createCm('list-rv', `nolder-${extra ? 'm' : 'p'}`);
    const rv = created.metadata.resourceVersion;
    const r = await ts.request('GET', `${base('list-rv')}?resourceVersion=${rv}${extra}`);
    expect(r.status).toBe(200);
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rv));
    expect(names(r)).toContain(created.metadata.name);
  });

  test('NotOlderThan with limit pages from a version not older than N', async () => {
    await namespace('list-nolder-paged');
    const a = await createCm('list-nolder-paged', 'a');
    await createCm('list-nolder-paged', 'b');
    const first = await ts.request('GET', `${base('list-nolder-paged')}?resourceVersion=${a.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan&limit=1`);
    expect(first.status).toBe(200);
    expect(names(first)).toEqual(['a']);
    expect(Number(first.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(rvNum(a));
    expect(first.json.metadata.continue).toBeTruthy();
    const second = await ts.request('GET', `${base('list-nolder-paged')}?limit=1&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    expect(second.status).toBe(200);
    expect(names(second)).toEqual(['b']);
    expect(second.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
  });

  describe('Exact at an older revision returns the old state', () => {
    let oldRv: string;
    beforeAll(async () => {
      await namespace('list-exact');
      await createCm('list-exact', 'a', { v: 'old' });
      const b = await createCm('list-exact', 'b', { v: 'old' });
      oldRv = b.metadata.resourceVersion;
      await updateCm('list-exact', 'a', { v: 'new' });
      await createCm('list-exact', 'c', { v: 'new' });
      await deleteCm('list-exact', 'b');
    });

    test('the current list differs', async () => {
      const now = await ts.request('GET', base('list-exact'));
      expect(names(now)).toEqual(['a', 'c']);
      expect(byName(now, 'a')?.data).toEqual({ v: 'new' });
    });

    test('resourceVersionMatch=Exact without limit', async () => {
      const r = await ts.request('GET', `${base('list-exact')}?resourceVersionMatch=Exact&resourceVersion=${oldRv}`);
      expect(r.status).toBe(200);
      expect(r.json.metadata.resourceVersion).toBe(oldRv);
      expect(names(r)).toEqual(['a', 'b']);
      expect(byName(r, 'a')?.data).toEqual({ v: 'old' });
    });

    test.each([
      ['limit=N with resourceVersion=old (legacy Exact)', ''],
      ['resourceVersionMatch=Exact with limit', '&resourceVersionMatch=Exact'],
    ])('%s pages through the old state', async (_name, extra) => {
      const first = await ts.request('GET', `${base('list-exact')}?limit=1&resourceVersion=${oldRv}${extra}`);
      expect(first.status).toBe(200);
      expect(first.json.metadata.resourceVersion).toBe(oldRv);
      expect(names(first)).toEqual(['a']);
      expect(byName(first, 'a')?.data).toEqual({ v: 'old' });
      expect(first.json.metadata.continue).toBeTruthy();
      expect(first.json.metadata.remainingItemCount).toBe(1);
      const second = await ts.request('GET', `${base('list-exact')}?limit=1&continue=${encodeURIComponent(first.json.metadata.continue)}`);
      expect(second.status).toBe(200);
      expect(second.json.metadata.resourceVersion).toBe(oldRv);
      expect(names(second)).toEqual(['b']);
      expect(second.json.metadata.continue ?? '').toBe('');
      expect(second.json.metadata.remainingItemCount).toBeUndefined();
    });

    test('continue with resourceVersion=0 is treated as the continue token (Exact)', async () => {
      const first = await ts.request('GET', `${base('list-exact')}?limit=1&resourceVersion=${oldRv}`);
      const second = await ts.request(
        'GET',
        `${base('list-exact')}?limit=1&resourceVersion=0&continue=${encodeURIComponent(first.json.metadata.continue)}`,
      );
      expect(second.status).toBe(200);
      expect(second.json.metadata.resourceVersion).toBe(oldRv);
      expect(names(second)).toEqual(['b']);
    });
  });

  describe('paged lists (SPEC 4.5 chunking, 2.2 remainingItemCount)', () => {
    beforeAll(async () => {
      await namespace('list-paged');
      for (let i = 0; i < 5; i++) await createCm('list-paged', `p${i}`, { v: 'old' }, { tier: i % 2 === 0 ? 'even' : 'odd' });
    });

    test('every page has the first page\'s resourceVersion and stays consistent while writes happen between pages', async () => {
      const first = await ts.request('GET', `${base('list-paged')}?limit=2`);
      expect(first.status).toBe(200);
      const rv = first.json.metadata.resourceVersion;
      expect(names(first)).toEqual(['p0', 'p1']);
      expect(first.json.metadata.remainingItemCount).toBe(3);

      await createCm('list-paged', 'p5');
      await deleteCm('list-paged', 'p3');
      await updateCm('list-paged', 'p2', { v: 'new' });

      const second = await ts.request('GET', `${base('list-paged')}?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`);
      expect(second.status).toBe(200);
      expect(second.json.metadata.resourceVersion).toBe(rv);
      expect(names(second)).toEqual(['p2', 'p3']);
      expect(byName(second, 'p2')?.data).toEqual({ v: 'old' });
      expect(second.json.metadata.remainingItemCount).toBe(1);
      expect(second.json.metadata.continue).toBeTruthy();

      const third = await ts.request('GET', `${base('list-paged')}?limit=2&continue=${encodeURIComponent(second.json.metadata.continue)}`);
      expect(third.status).toBe(200);
      expect(third.json.metadata.resourceVersion).toBe(rv);
      expect(names(third)).toEqual(['p4']);
      expect(third.json.metadata.continue ?? '').toBe('');
      expect(third.json.metadata.remainingItemCount).toBeUndefined();

      // A fresh list sees the writes.
      const now = await ts.request('GET', base('list-paged'));
      expect(names(now)).toEqual(['p0', 'p1', 'p2', 'p4', 'p5']);
    });

    test('a limit covering everything is one complete page without continue or remainingItemCount', async () => {
      const r = await ts.request('GET', `${base('list-paged')}?limit=100`);
      expect(r.status).toBe(200);
      expect(r.json.items.length).toBeGreaterThan(0);
      expect(r.json.metadata.continue ?? '').toBe('');
      expect(r.json.metadata.remainingItemCount).toBeUndefined();
    });

    test.each([
      ['labelSelector', 'labelSelector=tier%3Deven'],
      ['fieldSelector', 'fieldSelector=metadata.name!%3Dnone'],
    ])('with a %s, non-last pages carry continue but no remainingItemCount', async (_name, sel) => {
      const pages: Reply[] = [];
      let cont = '';
      for (let i = 0; i < 10; i++) {
        const r = await ts.request('GET', `${base('list-paged')}?limit=1&${sel}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
        expect(r.status).toBe(200);
        pages.push(r);
        cont = r.json.metadata.continue ?? '';
        if (!cont) break;
      }
      expect(pages.length).toBeGreaterThan(1);
      for (const p of pages) {
        expect(p.json.metadata.remainingItemCount).toBeUndefined();
        expect(p.json.metadata.resourceVersion).toBe(pages[0]!.json.metadata.resourceVersion);
      }
      const all = pages.flatMap(names);
      if (sel.startsWith('label')) expect(all).toEqual(['p0', 'p2', 'p4']);
      else expect(all).toEqual(['p0', 'p1', 'p2', 'p4', 'p5']);
    });
  });

  describe('invalid combinations are 400 (SPEC 4.4 "Invalid" cells, SPEC 7)', () => {
    let token: string;
    let rv: string;
    beforeAll(async () => {
      await namespace('list-invalid');
      await createCm('list-invalid', 'a');
      await createCm('list-invalid', 'b');
      const first = await ts.request('GET', `${base('list-invalid')}?limit=1`);
      token = first.json.metadata.continue;
      rv = first.json.metadata.resourceVersion;
      expect(token).toBeTruthy();
    });

    test('limit + continue + a non-zero resourceVersion', async () => {
      const r = await ts.request('GET', `${base('list-invalid')}?limit=1&resourceVersion=${rv}&continue=${encodeURIComponent(token)}`);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: 'specifying resource version is not allowed when using continue' });
    });

    test.each([
      ['resourceVersionMatch=Exact without resourceVersion', 'resourceVersionMatch=Exact', 'resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['resourceVersionMatch=NotOlderThan without resourceVersion', 'resourceVersionMatch=NotOlderThan', 'resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['resourceVersionMatch=Exact with limit, without resourceVersion', 'resourceVersionMatch=Exact&limit=1', 'resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['resourceVersionMatch=Exact with resourceVersion=0', 'resourceVersionMatch=Exact&resourceVersion=0', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
      ['resourceVersionMatch=Exact with resourceVersion=0 and limit', 'resourceVersionMatch=Exact&resourceVersion=0&limit=1', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
      ['an unknown resourceVersionMatch', 'resourceVersionMatch=Newest&resourceVersion=5', 'Unsupported value: "Newest"'],
    ])('%s', async (_name, q, message) => {
      const r = await ts.request('GET', `${base('list-invalid')}?${q}`);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', code: 400 });
      expect(r.json.message).toContain(message);
    });

    test('resourceVersionMatch together with continue', async () => {
      const r = await ts.request('GET', `${base('list-invalid')}?limit=1&resourceVersionMatch=NotOlderThan&resourceVersion=0&continue=${encodeURIComponent(token)}`);
      expect(r.status).toBe(400);
      expect(r.json.message).toContain('resourceVersionMatch is forbidden when continue is provided');
    });

    test('a malformed resourceVersion is a client error', async () => {
      const r = await ts.request('GET', `${base('list-invalid')}?resourceVersion=12abc`);
      expect([400, 422]).toContain(r.status);
      expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', code: r.status });
      expect(r.json.message).toContain('12abc');
    });

    test.each([
      ['not base64', '!!!not-a-token!!!'],
      ['base64 of non-JSON', Buffer.from('hello').toString('base64url')],
      ['wrong version', Buffer.from(JSON.stringify({ v: 'other/v9', rv: 5, start: 'a' })).toString('base64url')],
      ['empty start key', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 5, start: '' })).toString('base64url')],
      ['a start key escaping the collection', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 5, start: '../../secrets/x' })).toString('base64url')],
    ])('a malformed continue token (%s) is 400', async (_name, bad) => {
      const r = await ts.request('GET', `${base('list-invalid')}?limit=1&continue=${encodeURIComponent(bad)}`);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
      // Upstream: apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err)).
      expect(r.json.message).toMatch(/^invalid continue token: /);
    });
  });

  // Last: compaction makes every older revision of this etcd unreadable.
  describe('after etcd compaction', () => {
    let token: string;
    let tokenRv: string;
    let compactedTo: number;
    beforeAll(async () => {
      await namespace('list-compact');
      for (const n of ['a', 'b', 'c']) await createCm('list-compact', n);
      const first = await ts.request('GET', `${base('list-compact')}?limit=1`);
      token = first.json.metadata.continue;
      tokenRv = first.json.metadata.resourceVersion;
      expect(token).toBeTruthy();
      await updateCm('list-compact', 'b', { v: '2' });
      const last = await createCm('list-compact', 'd');
      compactedTo = rvNum(last);
      await kv!.kv.compact({ revision: compactedTo, physical: true });
    }, 30_000);

    test('a continue token whose revision was compacted is 410 Expired, with a token to go on inconsistently', async () => {
      const r = await ts.request('GET', `${base('list-compact')}?limit=1&continue=${encodeURIComponent(token)}`);
      expect(r.status).toBe(410);
      expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
      expect(r.json.message).toContain('The provided continue parameter is too old to display a consistent list result');
      // Upstream (handleCompactedErrorForPaging) hands back a token that continues at the latest
      // revision; the message itself tells the client to "use the continue token in this response".
      expect(typeof r.json.metadata?.continue).toBe('string');
      expect(r.json.metadata.continue).not.toBe('');
      const rest = await ts.request('GET', `${base('list-compact')}?limit=10&continue=${encodeURIComponent(r.json.metadata.continue)}`);
      expect(rest.status).toBe(200);
      expect(names(rest)).toEqual(['b', 'c', 'd']);
      expect(byName(rest, 'b')?.data).toEqual({ v: '2' });
    });

    test.each([
      ['resourceVersionMatch=Exact', ''],
      ['resourceVersionMatch=Exact with limit', '&limit=1'],
    ])('%s at a compacted revision is 410 Expired', async (_name, extra) => {
      const r = await ts.request('GET', `${base('list-compact')}?resourceVersionMatch=Exact&resourceVersion=${tokenRv}${extra}`);
      expect(r.status).toBe(410);
      expect(r.json).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410, message: 'The resourceVersion for the provided list is too old.' });
    });

    test('limit=N with a compacted resourceVersion (legacy Exact) is 410 Expired', async () => {
      const r = await ts.request('GET', `${base('list-compact')}?limit=1&resourceVersion=${tokenRv}`);
      expect(r.status).toBe(410);
      expect(r.json).toMatchObject({ reason: 'Expired', code: 410 });
    });

    test('most-recent, Any and not-older-than reads still work', async () => {
      const recent = await ts.request('GET', base('list-compact'));
      expect(recent.status).toBe(200);
      expect(names(recent)).toEqual(['a', 'b', 'c', 'd']);
      const notOlder = await ts.request('GET', `${base('list-compact')}?resourceVersion=${tokenRv}`);
      expect(notOlder.status).toBe(200);
      expect(Number(notOlder.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(compactedTo);
      const any = await eventually(
        () => ts.request('GET', `${base('list-compact')}?resourceVersion=0`),
        (x) => x.status === 200 && names(x).length === 4,
      );
      expect(names(any)).toEqual(['a', 'b', 'c', 'd']);
      const got = await ts.request('GET', `${base('list-compact')}/a?resourceVersion=${tokenRv}`);
      expect(got.status).toBe(200);
    });
  });
});
