import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { performance } from 'node:perf_hooks';
import { parse } from 'yaml';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

// Issue 33: with --workers every worker holds its own watch caches, so a request must see the
// same cache state whichever worker serves it: no worker may serve a read older than one another
// worker already served. A new connection goes to one worker (processes: the primary hands them
// out in turn; threads: whichever thread accepts it first), and a kept-alive connection stays
// with its worker. The sharpest case is a write acknowledged by one
// worker and read back at once, over a connection already open, from the other, whose cache
// hears of the write only through its own etcd watch (a fresh connection's TLS handshake alone
// gives that watch time to catch up). Quorum reads (GET and LIST without resourceVersion, served
// from the cache once a linearizable etcd read shows it current: ConsistentGetFromCache /
// ConsistentListFromCache) must show every write acknowledged before they started and never go
// back in resourceVersion. resourceVersion=0 ("Any") reads may be stale, upstream's too; what holds
// for them is that one worker's cache never goes back, so reads over one connection never do.

const NS = 'worker-reads';
const NAME = 'mono';
const MAX_WRITES = 120;
const READERS = 3;
const RUN_MS = 12_000;
const BUSY_NS = 'worker-reads-busy';
const BUSY_WRITERS = 8;

interface Reply {
  status: number;
  /** The client side's port of the connection that carried it: one connection, one worker. */
  localPort: number;
  // Replies are arbitrary JSON; the test narrows them.
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

interface ConfigMap {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}

interface Read {
  kind: 'get' | 'list';
  /** The worker that answered, when the read went over a pinned connection. */
  worker?: number;
  startedAt: number;
  endedAt: number;
  /** The list's resourceVersion (lists only). */
  listRv?: number;
  /** The object's resourceVersion and the writer's sequence number it carries. */
  rv: number;
  seq: number;
}

interface Write {
  seq: number;
  rv: number;
  ackedAt: number;
}

let server: ServerProcess;
let ca = '';
let token = '';

/** One request; `agent: false` opens a connection of its own (closed after the answer). */
function call(method: string, path: string, body?: unknown, agent: Agent | false = false): Promise<Reply> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  if (payload) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { method, headers, ca, agent, timeout: 20_000 }, (res) => {
      const localPort = res.socket?.localPort ?? 0;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = text;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON: kept as text for the failure message
        }
        resolve({ status: res.statusCode ?? 0, localPort, json });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

interface LogLine {
  msg?: string;
  worker?: number;
  path?: string;
}

/** How many requests for `path` each worker logged. */
function servedByWorker(path: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const line of server.output().split('\n')) {
    if (!line.startsWith('{')) continue;
    const l = JSON.parse(line) as LogLine;
    if (l.msg === 'request' && l.path === path && l.worker !== undefined) counts.set(l.worker, (counts.get(l.worker) ?? 0) + 1);
  }
  return counts;
}

const objectPath = `/api/v1/namespaces/${NS}/configmaps/${NAME}`;
const listPath = `/api/v1/namespaces/${NS}/configmaps`;
const body = (seq: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: NAME, namespace: NS }, data: { seq: String(seq) } });

/** A kept-alive connection known to be served by `worker` (its client port never changes). */
interface Pinned {
  worker: number;
  agent: Agent;
  localPort: number;
}

/** A request over a pinned connection; throws if it went over another connection. */
async function callPinned(pin: Pinned, method: string, path: string, body?: unknown): Promise<Reply> {
  const r = await call(method, path, body, pin.agent);
  if (r.localPort !== pin.localPort) throw new Error(`the connection pinned to worker ${pin.worker} was replaced (port ${pin.localPort} -> ${r.localPort})`);
  return r;
}

/**
 * `perWorker` kept-alive connections to each of the two workers: new connections, each probed with
 * a request for a path of its own whose log line names the worker that served it. The replica
 * hands a new connection to its least loaded thread (connection-balance.ts), and the load counts
 * long-lived connections such as the in-process controllers' watches, which may sit unevenly
 * while they start. So the surplus connections stay open until both workers have their share:
 * each one adds to the lighter thread's load until new connections go to the other.
 */
async function pinConnections(perWorker: number): Promise<Map<number, Pinned[]>> {
  const pins = new Map<number, Pinned[]>([[1, []], [2, []]]);
  const surplus: Agent[] = [];
  const seen: string[] = [];
  const deadline = performance.now() + 45_000;
  try {
    for (let i = 0; i < 100 * perWorker && performance.now() < deadline && [...pins.values()].some((p) => p.length < perWorker); i++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
      const probe = `/api/v1/namespaces/pin-${i}/configmaps`;
      const r = await call('GET', probe, undefined, agent);
      if (r.status !== 200) throw new Error(`${probe}: HTTP ${r.status}`);
      if (!(r.localPort > 0)) throw new Error(`${probe}: the connection's port is unknown`);
      let worker: number | undefined;
      for (let t = 0; t < 100 && worker === undefined; t++) {
        worker = [...servedByWorker(probe).keys()][0];
        if (worker === undefined) await new Promise((res) => setTimeout(res, 50));
      }
      seen.push(String(worker ?? '?'));
      const list = worker === undefined ? undefined : pins.get(worker);
      if (list && list.length < perWorker) list.push({ worker: worker!, agent, localPort: r.localPort });
      else surplus.push(agent);
    }
  } finally {
    for (const agent of surplus) agent.destroy();
  }
  for (const [w, list] of pins) {
    if (list.length < perWorker) throw new Error(`only ${list.length} connections reached worker ${w} (workers that served the probes, in order: ${seen.join(' ')})`);
  }
  return pins;
}

/** One read of the object, recorded; throws on an unexpected answer. */
async function readOnce(kind: 'get' | 'list', query = '', pin?: Pinned): Promise<Read> {
  const startedAt = performance.now();
  const path = `${kind === 'get' ? objectPath : listPath}${query}`;
  const r = pin ? await callPinned(pin, 'GET', path) : await call('GET', path);
  const endedAt = performance.now();
  if (r.status !== 200) throw new Error(`${kind}${query}: HTTP ${r.status}: ${JSON.stringify(r.json).slice(0, 200)}`);
  const obj = (kind === 'get' ? r.json : (r.json.items as ConfigMap[]).find((o) => o.metadata.name === NAME)) as ConfigMap | undefined;
  if (!obj) throw new Error(`${kind}${query}: the object is missing`);
  return {
    kind,
    ...(pin ? { worker: pin.worker } : {}),
    startedAt,
    endedAt,
    ...(kind === 'list' ? { listRv: Number(r.json.metadata.resourceVersion) } : {}),
    rv: Number(obj.metadata.resourceVersion),
    seq: Number(obj.data?.['seq']),
  };
}

/**
 * Every read that shows an older state than a read which had ended before it started (the
 * object's resourceVersion, and for lists the list's), by a sweep over the reads by start time.
 */
export function wentBack(reads: Read[]): string[] {
  const byEnd = [...reads].sort((a, b) => a.endedAt - b.endedAt);
  const out: string[] = [];
  let i = 0;
  let maxRv = 0;
  let maxListRv = 0;
  for (const read of [...reads].sort((a, b) => a.startedAt - b.startedAt)) {
    while (i < byEnd.length && byEnd[i]!.endedAt < read.startedAt) {
      maxRv = Math.max(maxRv, byEnd[i]!.rv);
      maxListRv = Math.max(maxListRv, byEnd[i]!.listRv ?? 0);
      i++;
    }
    const by = read.worker === undefined ? '' : ` (worker ${read.worker})`;
    if (read.rv < maxRv) out.push(`${read.kind}${by} showed the object at rv ${read.rv} after a read that had ended showed rv ${maxRv}`);
    if (read.listRv !== undefined && read.listRv < maxListRv) out.push(`list${by} at rv ${read.listRv} after a list that had ended was at rv ${maxListRv}`);
  }
  return out;
}

let pins: Map<number, Pinned[]>;

beforeAll(async () => {
  // info: every request is logged with the worker that served it.
  // workers-read-consistency-processes.test.ts runs these tests again with worker processes,
  // workers-read-consistency-decoded-caches.test.ts with the threads' shared store off (on by default).
  const isolation = process.env.E2E_WORKER_ISOLATION;
  const sharedStore = process.env.E2E_WATCH_CACHE_SHARED_STORE;
  server = await startServerProcess([
    '--workers',
    '2',
    '--log-level',
    'info',
    ...(isolation ? ['--worker-isolation', isolation] : []),
    ...(sharedStore ? [`--watch-cache-shared-store=${sharedStore}`] : []),
  ]);
  const kc = parse(readFileSync(server.kubeconfig, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { token: string } }[];
  };
  ca = Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString('utf8');
  token = kc.users[0]!.user.token;
  expect((await call('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  expect((await call('POST', listPath, body(0))).status).toBe(201);
  expect((await call('POST', '/api/v1/namespaces', { metadata: { name: BUSY_NS } })).status).toBe(201);
  // Per worker: one connection for writes, one for reading back what the other worker wrote.
  pins = await pinConnections(2);
}, 90_000);

afterAll(async () => {
  for (const list of pins?.values() ?? []) for (const p of list) p.agent.destroy();
  await server?.stop();
}, 60_000);

/**
 * Writes the object over each worker's write connection in turn and reads it back at once over
 * the other worker's read connection (`query` appended), while `freshReaders` loops read over new
 * connections; bounded by MAX_WRITES and `runMs`. Returns the acknowledged writes, the
 * read-backs and the fresh reads.
 */
async function writeAndReadBack(query: string, firstSeq: number, runMs: number, freshReaders: number): Promise<{ writes: Write[]; readBacks: Read[]; fresh: Read[]; errors: string[] }> {
  const writes: Write[] = [];
  const readBacks: Read[] = [];
  const fresh: Read[] = [];
  const errors: string[] = [];
  const deadline = performance.now() + runMs;
  let writing = true;
  const writer = async (): Promise<void> => {
    try {
      for (let seq = firstSeq; seq < firstSeq + MAX_WRITES && performance.now() < deadline; seq++) {
        const by = seq % 2 === 0 ? 1 : 2;
        const r = await callPinned(pins.get(by)![0]!, 'PUT', objectPath, body(seq));
        if (r.status !== 200) throw new Error(`PUT seq ${seq}: HTTP ${r.status}`);
        writes.push({ seq, rv: Number(r.json.metadata.resourceVersion), ackedAt: performance.now() });
        readBacks.push(await readOnce(seq % 4 < 2 ? 'get' : 'list', query, pins.get(3 - by)![1]!));
      }
    } catch (e) {
      errors.push(`writer: ${(e as Error).message}`);
    } finally {
      writing = false;
    }
  };
  const reader = async (n: number): Promise<void> => {
    try {
      for (let i = 0; writing && i < 2_000; i++) fresh.push(await readOnce((i + n) % 2 === 0 ? 'get' : 'list', query));
    } catch (e) {
      errors.push(`reader ${n}: ${(e as Error).message}`);
    }
  };
  // Other writes of the same resource keep both workers' etcd watches busy, so that a worker's
  // cache may lag behind what etcd has acknowledged to the other worker: the window a read that
  // trusted its cache without a proof would fall into.
  const busy = new Agent({ keepAlive: true, maxSockets: BUSY_WRITERS, ca });
  let made = 0;
  const busyWriter = async (): Promise<void> => {
    try {
      while (writing && made < 20_000) {
        const name = `busy-${firstSeq}-${made++}`;
        const r = await call('POST', `/api/v1/namespaces/${BUSY_NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { pad: 'x'.repeat(512) } }, busy);
        if (r.status !== 201) throw new Error(`POST ${name}: HTTP ${r.status}`);
      }
    } catch (e) {
      errors.push(`busy writer: ${(e as Error).message}`);
    }
  };
  try {
    await Promise.all([writer(), ...Array.from({ length: freshReaders }, (_, n) => reader(n)), ...Array.from({ length: BUSY_WRITERS }, busyWriter)]);
  } finally {
    busy.destroy();
  }
  return { writes, readBacks, fresh, errors };
}

/** Reads that miss a write acknowledged before they started. */
function staleReads(reads: Read[], writes: Write[]): string[] {
  const out: string[] = [];
  for (const read of reads) {
    const must = writes.filter((w) => w.ackedAt < read.startedAt).pop();
    if (must && (read.seq < must.seq || read.rv < must.rv || (read.listRv !== undefined && read.listRv < must.rv))) {
      out.push(`${read.kind}${read.worker === undefined ? '' : ` on worker ${read.worker}`} started after seq ${must.seq} (rv ${must.rv}) was acknowledged but showed seq ${read.seq} (rv ${read.rv})`);
    }
  }
  return out;
}

test('quorum GET and LIST on either worker show every acknowledged write and never go back in resourceVersion', async () => {
  const { writes, readBacks, fresh, errors } = await writeAndReadBack('', 1, RUN_MS, READERS);
  expect(errors).toEqual([]);
  const reads = [...readBacks, ...fresh];
  expect(staleReads(reads, writes).slice(0, 10)).toEqual([]);
  expect(wentBack(reads).slice(0, 10)).toEqual([]);

  // Not vacuous: many writes read back by the other worker, both kinds, both workers, and fresh
  // connections that reached both workers.
  expect(writes.length).toBeGreaterThanOrEqual(20);
  for (const worker of [1, 2]) {
    for (const kind of ['get', 'list'] as const) expect(readBacks.filter((r) => r.worker === worker && r.kind === kind).length).toBeGreaterThanOrEqual(5);
  }
  expect(fresh.filter((r) => r.kind === 'get').length).toBeGreaterThanOrEqual(20);
  expect(fresh.filter((r) => r.kind === 'list').length).toBeGreaterThanOrEqual(20);
  for (const path of [objectPath, listPath]) {
    const counts = servedByWorker(path);
    expect(counts.get(1) ?? 0).toBeGreaterThan(10);
    expect(counts.get(2) ?? 0).toBeGreaterThan(10);
  }
}, 90_000);

test('resourceVersion=0 reads over one connection (one worker) never go back', async () => {
  // Read-backs on the other worker may be stale here ("Any": whatever that worker's cache holds);
  // each worker's own sequence of answers may not go back.
  const { writes, readBacks, errors } = await writeAndReadBack('?resourceVersion=0', 1_000, RUN_MS / 2, 0);
  expect(errors).toEqual([]);
  expect(writes.length).toBeGreaterThanOrEqual(10);
  for (const worker of [1, 2]) {
    const own = readBacks.filter((r) => r.worker === worker);
    expect(own.length).toBeGreaterThanOrEqual(5);
    expect(wentBack(own).slice(0, 10)).toEqual([]);
  }
}, 60_000);

describe('wentBack', () => {
  const r = (kind: 'get' | 'list', startedAt: number, endedAt: number, rv: number, listRv?: number): Read => ({ kind, startedAt, endedAt, rv, seq: 0, ...(listRv === undefined ? {} : { listRv }) });
  test.each<[string, Read[], number]>([
    ['reads in order', [r('get', 0, 1, 5), r('get', 2, 3, 6), r('list', 4, 5, 6, 9)], 0],
    ['an older read concurrent with a newer one is allowed', [r('get', 0, 3, 6), r('get', 1, 2, 5)], 0],
    ['an older object after a newer read had ended', [r('get', 0, 1, 6), r('get', 2, 3, 5)], 1],
    ['an older list after a newer list had ended', [r('list', 0, 1, 6, 9), r('list', 2, 3, 6, 8)], 1],
  ])('%s', (_, reads, count) => {
    expect(wentBack(reads)).toHaveLength(count);
  });
});
