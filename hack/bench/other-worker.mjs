// What a worker pays for the writes another worker makes: `node hack/bench/other-worker.mjs
// [--a=<main.js>] [--b=<main.js>] [--creates=3000] [--rounds=3] [-- <replica flags>]`.
//
// One replica per side with --workers=2, each on an etcd of its own. Creates go over ONE kept-alive
// connection, one at a time, so a single worker serves them all (the writer); the other worker
// (the non-writer) only hears of them through its etcd watch. Per batch it prints each worker's CPU
// (time on a CPU of all its threads, from /proc's schedstat) per create, less what the worker
// spent in as long a quiet interval just before (its own timers, the controllers). Sides
// alternate per round (A B, then B A). Which worker serves the in-process controllers' watches
// (the garbage collector watches every ConfigMap, and parses each event it is sent) is not chosen
// here; `--controllers=tokencleaner` after `--` leaves the non-writer no controller work at all.
// Creates one at a time arrive at the non-writer one event per wake-up, so its figure includes
// a wake-up per event (epoll, the HTTP/2 read, Node's stream machinery, cold caches) and falls as
// the rate rises; on a loaded machine the rate, and so the figure, varies 3x between batches.
// OTHER_WORKER_PROF=<dir> writes the replicas' V8 CPU profiles there.
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startBenchEtcd, startReplica, stopAll, repoRoot } from './lib/processes.mjs';
import { HttpClient, ensureNamespace } from './lib/http-client.mjs';
import { configMapBody } from './lib/objects.mjs';
import { arg, replicaArgs } from './lib/script-args.mjs';

const SIDES = [
  ['A', arg('a')],
  ['B', arg('b', join(repoRoot, 'packages', 'server', 'dist', 'src', 'main.js'))],
].filter(([, m]) => m);
const CREATES = Number(arg('creates', '3000'));
const ROUNDS = Number(arg('rounds', '3'));
const EXTRA = replicaArgs();
const log = (m) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

/** CPU seconds of every thread of `pid`, from /proc/<pid>/task/<tid>/schedstat (ns, unlike /proc's 10 ms ticks). */
async function cpuSeconds(pid) {
  let ns = 0;
  for (const t of await readdir(`/proc/${pid}/task`)) {
    try {
      ns += Number((await readFile(`/proc/${pid}/task/${t}/schedstat`, 'utf8')).split(' ')[0]);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return ns / 1e9;
}
async function workersOf(pid) {
  const out = [];
  for (const t of await readdir(`/proc/${pid}/task`)) {
    const children = (await readFile(`/proc/${pid}/task/${t}/children`, 'utf8')).trim();
    if (children) out.push(...children.split(/\s+/).map(Number));
  }
  return out;
}

const tmp = await mkdtemp(join(tmpdir(), 'bench-other-worker-'));
const sides = [];
for (const [label, main] of SIDES) {
  const etcd = await startBenchEtcd(join(tmp, `${label}-etcd`));
  const replica = await startReplica({ etcdEndpoint: etcd.endpoint, dataDir: join(tmp, `${label}-srv`), main: resolve(main), extraArgs: ['--workers=2', ...EXTRA], ...(process.env.OTHER_WORKER_PROF ? { cpuProfDir: process.env.OTHER_WORKER_PROF } : {}) });
  const client = new HttpClient({ host: replica.host, port: replica.port, ca: replica.ca, token: replica.token, maxSockets: 1 });
  await ensureNamespace(client, 'other-worker');
  const workers = await workersOf(replica.pid);
  log(`${label}: ${main} (workers ${workers.join(', ')})`);
  sides.push({ label, replica, client, workers, next: 0, results: [] });
}
// Let start-up settle (controllers' first lists, leader election).
await new Promise((r) => setTimeout(r, 10_000));

async function batch(side) {
  const read = async () => Promise.all(side.workers.map(cpuSeconds));
  // A quiet interval of about the batch's length first: each worker's background CPU.
  const q0 = await read();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, side.lastMs ?? 5_000));
  const quietMs = performance.now() - t0;
  const q1 = await read();
  const c0 = await read();
  const s0 = performance.now();
  for (let i = 0; i < CREATES; i++) {
    const name = `cm-${side.next++}`;
    const res = await side.client.request('POST', '/api/v1/namespaces/other-worker/configmaps', JSON.stringify(configMapBody('other-worker', name)));
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
  }
  const ms = performance.now() - s0;
  side.lastMs = ms;
  // The last events reach the other worker shortly after the last answer.
  await new Promise((r) => setTimeout(r, 300));
  const c1 = await read();
  const perCreate = side.workers.map((_, i) => {
    const busy = c1[i] - c0[i];
    const background = ((q1[i] - q0[i]) * (ms + 300)) / quietMs;
    return ((busy - background) * 1e6) / CREATES;
  });
  const writer = perCreate[0] > perCreate[1] ? 0 : 1;
  const r = { writer: Math.round(perCreate[writer]), other: Math.round(perCreate[1 - writer]), perSecond: Math.round((CREATES * 1000) / ms) };
  side.results.push(r);
  log(`${side.label}: writer ${r.writer} µs per create, other worker ${r.other} µs per create (${r.perSecond} creates/s)`);
}

for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? sides : [...sides].reverse();
  for (const side of order) await batch(side);
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
for (const side of sides) {
  const others = side.results.map((r) => r.other);
  console.log(`${side.label}: other worker median ${median(others)} µs per create (rounds: ${others.join(', ')}); writer median ${median(side.results.map((r) => r.writer))} µs`);
  side.client.close();
}
await stopAll();
