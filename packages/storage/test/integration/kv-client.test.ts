import type { ClientHttp2Session } from 'node:http2';
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

  const sessionOf = (c: EtcdKvClient) => (c as unknown as { session: ClientHttp2Session | undefined }).session;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  test('an idle connection is not pinged, so etcd does not close it (GOAWAY too_many_pings)', async () => {
    // etcd counts a PING on a connection without an open call as a strike and closes the
    // connection at the third; a call sent at that moment failed with UNAVAILABLE.
    const c = new EtcdKvClient([etcd.endpoint], { keepAliveMs: 100, keepAliveTimeoutMs: 1_000 });
    try {
      await c.range({ key: k('/t/a') });
      const session = sessionOf(c)!;
      const goaways: string[] = [];
      session.on('goaway', (code: number, _last: number, data?: Buffer) => goaways.push(`${code} ${data?.toString() ?? ''}`));
      await sleep(1_500); // fifteen keep-alive periods
      expect(goaways).toEqual([]);
      expect(sessionOf(c)).toBe(session);
      expect((await c.range({ key: k('/t/a') })).kvs).toHaveLength(1);
    } finally {
      c.close();
    }
  }, T);

  test('a held-up event loop does not drop a connection whose PING etcd answered', async () => {
    // PINGs with a call open but less than 5 s apart are strikes too (etcd's minimum interval):
    // one PING in this test, as with the default 30 s.
    const c = new EtcdKvClient([etcd.endpoint], { keepAliveMs: 5_100, keepAliveTimeoutMs: 300 });
    try {
      await c.range({ key: k('/t/a') });
      const session = sessionOf(c)!;
      const stream = await c.openStream('/etcdserverpb.Watch/Watch'); // an open call: PINGs go out
      const closed: number[] = [];
      stream.on('close', () => closed.push(stream.rstCode ?? -1));
      stream.on('error', () => {});
      // The first PING sent, the loop is held up past the timeout before etcd's answer is read.
      const ping = session.ping.bind(session);
      let held = false;
      session.ping = ((cb: (err: Error | null, duration: number, payload: Buffer) => void) => {
        const sent = ping(cb);
        if (!held) {
          held = true;
          const until = Date.now() + 1_000;
          while (Date.now() < until);
        }
        return sent;
      }) as typeof session.ping;
      for (let i = 0; i < 200 && !held; i++) await sleep(50);
      expect(held).toBe(true);
      await sleep(50);
      expect(session.destroyed).toBe(false);
      expect(closed).toEqual([]);
      expect((await c.range({ key: k('/t/a') })).kvs).toHaveLength(1);
      expect(sessionOf(c)).toBe(session);
      stream.close();
    } finally {
      c.close();
    }
  }, T);

  test('an etcd that stops answering is noticed through an open stream', async () => {
    const c = new EtcdKvClient([etcd.endpoint], { keepAliveMs: 100, keepAliveTimeoutMs: 300 });
    try {
      await c.range({ key: k('/t/a') });
      const stream = await c.openStream('/etcdserverpb.Watch/Watch');
      stream.on('error', () => {});
      const closedAt = new Promise<number>((resolve) => stream.on('close', () => resolve(Date.now())));
      const stoppedAt = Date.now();
      process.kill(etcd.pid, 'SIGSTOP');
      try {
        let timer: NodeJS.Timeout | undefined;
        const at = await Promise.race([closedAt, new Promise<number>((r) => (timer = setTimeout(() => r(-1), 5_000)))]);
        clearTimeout(timer);
        expect(at).toBeGreaterThan(0);
        expect(at - stoppedAt).toBeLessThan(3_000);
      } finally {
        process.kill(etcd.pid, 'SIGCONT');
      }
    } finally {
      c.close();
    }
  }, T);

  test('the etcd3 client does not ping an idle connection either (no "excess pings" GOAWAY)', async () => {
    const logged: string[] = [];
    const consoleError = console.error; // grpc-js logs through console.error
    console.error = (...args: unknown[]) => void logged.push(args.map(String).join(' '));
    const admin = newEtcdClient([etcd.endpoint], { keepAliveMs: 100 });
    try {
      await admin.get('/t/a').string();
      await sleep(1_500);
      expect(logged.filter((l) => /excess pings/.test(l))).toEqual([]);
      expect(await admin.get('/t/a').string()).toBe('one');
    } finally {
      admin.close();
      console.error = consoleError;
    }
  }, T);

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
