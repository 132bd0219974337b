import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startEtcd, type EtcdProcess } from '../../src/etcd-process/index.js';
import { EtcdKvClient, EtcdRpcError } from '../../src/etcd3/kv-client.js';
import { translateEtcdError } from '../../src/etcd3/etcd-errors.js';
import { newEtcdClient } from '../../src/etcd3/client.js';
import { StorageError } from '../../src/errors.js';

const T = 30_000;
let dir: string;
let etcd: EtcdProcess;
let ports: { clientPort: number; peerPort: number };
let kv: EtcdKvClient;
const k = (s: string) => Buffer.from(s);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kv-client-'));
  ports = { clientPort: await freePort(), peerPort: await freePort() };
  etcd = await startEtcd({ dataDir: join(dir, 'etcd'), ...ports });
  kv = new EtcdKvClient([etcd.endpoint]);
}, T);
afterAll(async () => {
  kv?.close();
  await etcd?.stop();
  await rm(dir, { recursive: true, force: true });
}, T);

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );

describe('EtcdKvClient against etcd', () => {
  test('a create transaction succeeds once; the second sees the compare fail and gets the failure range', async () => {
    const create = () =>
      kv.txn({
        compare: [{ key: k('/t/a'), target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: k('/t/a'), value: k('one') } }],
        failure: [{ request_range: { key: k('/t/a') } }],
      });
    const first = await create();
    expect(first.succeeded).toBe(true);
    const rev = first.responses[0]!.response_put.header.revision;
    expect(Number(rev)).toBeGreaterThan(1);
    const second = await create();
    expect(second.succeeded).toBe(false);
    const kvs = second.responses[0]!.response_range.kvs;
    expect(kvs.map((x) => [x.key.toString(), x.value.toString(), x.mod_revision, x.create_revision, x.version])).toEqual([
      ['/t/a', 'one', rev, rev, '1'],
    ]);
  });

  test('ranges: prefix, limit with more and count, keys and count only, a past revision', async () => {
    const revs: string[] = [];
    for (const name of ['b', 'c', 'd']) {
      const res = await kv.txn({ success: [{ request_put: { key: k(`/r/${name}`), value: k(name) } }] });
      revs.push(res.header.revision);
    }
    const all = await kv.range({ key: k('/r/'), range_end: k('/r0') });
    expect(all.kvs.map((x) => x.value.toString())).toEqual(['b', 'c', 'd']);
    expect(all.header.revision).toBe(revs[2]);
    const page = await kv.range({ key: k('/r/'), range_end: k('/r0'), limit: 2 });
    expect([page.kvs.length, page.more, page.count]).toEqual([2, true, '3']);
    const keys = await kv.range({ key: k('/r/'), range_end: k('/r0'), keys_only: true });
    expect(keys.kvs.map((x) => [x.key.toString(), x.value.length])).toEqual([['/r/b', 0], ['/r/c', 0], ['/r/d', 0]]);
    const count = await kv.range({ key: k('/r/'), range_end: k('/r0'), count_only: true });
    expect([count.kvs.length, count.count]).toEqual([0, '3']);
    const past = await kv.range({ key: k('/r/'), range_end: k('/r0'), revision: revs[0] });
    expect(past.kvs.map((x) => x.value.toString())).toEqual(['b']);
  });

  test('a big range arrives whole (past the default HTTP/2 windows)', async () => {
    const value = Buffer.alloc(100_000, 'v');
    for (let i = 0; i < 40; i++) await kv.txn({ success: [{ request_put: { key: k(`/big/${String(i).padStart(2, '0')}`), value } }] });
    const res = await kv.range({ key: k('/big/'), range_end: k('/big0') });
    expect(res.kvs).toHaveLength(40);
    expect(res.kvs.every((x) => x.value.equals(value))).toBe(true);
  });

  test('etcd errors carry the gRPC code and etcd message, and map to storage errors', async () => {
    const { header } = await kv.txn({ success: [{ request_put: { key: k('/e/x'), value: k('1') } }] });
    const future = await failure(kv.range({ key: k('/e/x'), revision: Number(header.revision) + 1000 }));
    expect(future).toBeInstanceOf(EtcdRpcError);
    expect((future as EtcdRpcError).code).toBe(11);
    expect((translateEtcdError(future, '/e/x') as StorageError).code).toBe('TooLargeResourceVersion');

    // Compact through the etcd3 client (the lean client does ranges and transactions only).
    const admin = newEtcdClient([etcd.endpoint]);
    try {
      await admin.kv.txn({ success: [{ request_put: { key: k('/e/x'), value: k('2') } }] });
      const now = await kv.range({ key: k('/e/x') });
      await admin.kv.compact({ revision: now.header.revision });
    } finally {
      admin.close();
    }
    const compacted = await failure(kv.range({ key: k('/e/x'), revision: header.revision }));
    expect((compacted as Error).message).toMatch(/required revision has been compacted/);
    expect((translateEtcdError(compacted, '/e/x') as StorageError).code).toBe('Compacted');

    const tooBig = await failure(kv.txn({ success: [{ request_put: { key: k('/e/big'), value: Buffer.alloc(2 * 1024 * 1024) } }] }));
    expect((translateEtcdError(tooBig, '/e/big') as StorageError).code).toBe('RequestTooLarge');
    expect((await kv.range({ key: k('/e/big') })).kvs).toHaveLength(0);
  });

  test('a request it cannot encode fails alone, before anything is sent', async () => {
    await expect(kv.range({ key: k('/e/x'), revision: 'abc' })).rejects.toThrow(RangeError);
    expect((await kv.range({ key: k('/e/x') })).kvs).toHaveLength(1);
  });

  test('an endpoint that refuses is skipped for the next one; none reachable is UnreachableEtcd', async () => {
    const deadPort = await freePort();
    const failover = new EtcdKvClient([`http://127.0.0.1:${deadPort}`, etcd.endpoint]);
    try {
      expect((await failover.range({ key: k('/t/a') })).kvs).toHaveLength(1);
    } finally {
      failover.close();
    }
    const nowhere = new EtcdKvClient([`http://127.0.0.1:${deadPort}`], { connectTimeoutMs: 1_000 });
    try {
      const e = await failure(nowhere.range({ key: k('/t/a') }));
      expect((e as EtcdRpcError).code).toBe(14);
      expect((translateEtcdError(e, '/t/a') as StorageError).code).toBe('UnreachableEtcd');
    } finally {
      nowhere.close();
    }
  });

  test('after etcd restarts, the next call connects again', async () => {
    expect((await kv.range({ key: k('/t/a') })).kvs).toHaveLength(1);
    await etcd.stop();
    const down = await failure(kv.range({ key: k('/t/a') }));
    expect((translateEtcdError(down, '/t/a') as StorageError).code).toBe('UnreachableEtcd');
    etcd = await startEtcd({ dataDir: join(dir, 'etcd'), ...ports });
    expect((await kv.range({ key: k('/t/a') })).kvs).toHaveLength(1);
  }, T);

  test('a closed client fails at once', async () => {
    const c = new EtcdKvClient([etcd.endpoint]);
    await c.range({ key: k('/t/a') });
    c.close();
    const e = await failure(c.range({ key: k('/t/a') }));
    expect((e as EtcdRpcError).code).toBe(14);
  });
});
