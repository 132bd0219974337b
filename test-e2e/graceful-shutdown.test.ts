import { connect, constants } from 'node:http2';
import { request } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, startEtcd, type EtcdProcess } from '@cluster/storage';
import { KubeconfigClient } from './support/http-client.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

// SPEC 4.9 under load, through two replicas on one etcd: a client that sends only to replicas
// whose /readyz passes (as a load balancer does) sees no failed request while one replica is
// SIGTERMed; that replica's /readyz fails before it stops accepting; its watches (HTTP/1.1 and
// HTTP/2) end cleanly rather than by a reset; and it exits 0.
const CMS = '/api/v1/namespaces/default/configmaps';
let etcd: EtcdProcess | undefined;
let dir = '';
const replicas: ServerProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutdown-'));
  const [client, peer] = await freePorts(2);
  etcd = await startEtcd({ dataDir: join(dir, 'etcd'), clientPort: client!, peerPort: peer! });
  const shared = ['--etcd-servers', `http://127.0.0.1:${client}`, '--cert-dir', join(dir, 'certs'), '--shutdown-delay-duration=2s'];
  for (let i = 0; i < 2; i++) replicas.push(await startServerProcess(shared));
}, 90_000);

afterAll(async () => {
  for (const r of replicas) await r.stop();
  await etcd?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

type WatchEnd = 'clean' | 'reset' | 'open';

/** An HTTP/1.1 watch; resolves how it ended once it has. */
function watchHttp1(client: KubeconfigClient): { ended: () => WatchEnd } {
  let how: WatchEnd = 'open';
  const req = request(new URL(`${CMS}?watch=1`, client.server), { headers: { Authorization: `Bearer ${client.token}` }, ca: client.ca }, (res) => {
    res.on('data', () => {});
    res.on('end', () => (how = how === 'open' ? 'clean' : how));
    res.on('aborted', () => (how = 'reset'));
    res.on('error', () => (how = 'reset'));
  });
  req.on('error', () => (how = how === 'open' ? 'reset' : how));
  req.end();
  return { ended: () => how };
}

/** An HTTP/2 watch (as kubectl and Go clients run them). */
function watchHttp2(client: KubeconfigClient): { ended: () => WatchEnd; close: () => void } {
  let how: WatchEnd = 'open';
  const session = connect(client.server, { ca: client.ca });
  session.on('error', () => (how = how === 'open' ? 'reset' : how));
  const stream = session.request({ ':path': `${CMS}?watch=1`, authorization: `Bearer ${client.token}` });
  stream.on('data', () => {});
  stream.on('end', () => (how = how === 'open' ? 'clean' : how));
  stream.on('close', () => {
    if (stream.rstCode !== constants.NGHTTP2_NO_ERROR) how = 'reset';
  });
  stream.on('error', () => (how = 'reset'));
  return { ended: () => how, close: () => session.destroy() };
}

test('a SIGTERMed replica fails readyz first, drops nothing, ends its watches cleanly and exits 0', async () => {
  const clients = replicas.map((r) => new KubeconfigClient(r.kubeconfig, 8));
  const ready = [true, true];
  const readyLog: string[] = [];
  let running = true;

  const pollers = clients.map(async (c, i) => {
    while (running) {
      const r = await c.call('GET', '/readyz').catch(() => ({ status: 0, json: null }));
      const now = r.status === 200;
      if (now !== ready[i]) readyLog.push(`${i}:${r.status}`);
      ready[i] = now;
      await new Promise((res) => setTimeout(res, 50));
    }
  });

  let sent = 0;
  const failures: string[] = [];
  const workers = Array.from({ length: 4 }, async (_, w) => {
    let n = 0;
    while (running) {
      const choices = [0, 1].filter((i) => ready[i]);
      if (choices.length === 0) {
        await new Promise((res) => setTimeout(res, 10));
        continue;
      }
      const c = clients[choices[n % choices.length]!]!;
      const op =
        n % 3 === 0
          ? c.call('POST', CMS, { metadata: { name: `w${w}-${n}` }, data: { n: String(n) } })
          : c.call('GET', `${CMS}?limit=50`);
      n++;
      sent++;
      const r = await op.catch((e: Error) => ({ status: -1, json: e.message }));
      if (r.status < 200 || r.status >= 300) failures.push(`${r.status} ${JSON.stringify(r.json).slice(0, 120)}`);
    }
  });

  const h1 = [watchHttp1(clients[0]!), watchHttp1(clients[0]!)];
  const h2 = [watchHttp2(clients[0]!), watchHttp2(clients[0]!)];
  await new Promise((res) => setTimeout(res, 1000));

  const exit = replicas[0]!.stop();
  const code = await exit;
  await new Promise((res) => setTimeout(res, 500));
  running = false;
  await Promise.all([...workers, ...pollers]);

  expect(code).toBe(0);
  expect(sent).toBeGreaterThan(50);
  expect(failures).toEqual([]);
  // Readiness went 200 -> 500 (the shutdown check) before the replica refused connections (0).
  expect(readyLog[0]).toBe('0:500');
  expect([...h1, ...h2].map((w) => w.ended())).toEqual(['clean', 'clean', 'clean', 'clean']);
  for (const w of h2) w.close();
  for (const c of clients) c.close();
}, 90_000);
