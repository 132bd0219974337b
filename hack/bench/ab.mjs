// Interleaved A/B of two server builds' CPU per request: `node hack/bench/ab.mjs --a=<main.js>
// [--b=<main.js>] [--rounds=5] [--batch=2000] [--only=create,get,...] [-- <replica flags>]`.
//
// On a shared machine a whole `make bench` run of one build and then one of the other see
// different machines (other processes come and go), so their CPU-per-request figures differ by
// more than most changes do. Here both builds run at once, each with an etcd of its own, and
// every round gives each workload a batch on A, then the same batch on B (then B before A in
// the next round), so both sides see the same machine within seconds. For every batch the
// replica's CPU (user + system of all its processes, from /proc) is divided by the operations.
// The report gives per workload and side the median and the minimum over the rounds (the
// minimum is what the build costs when least disturbed), B/A of both, and the median of each
// round's own B/A (paired: both sides of a round see nearly the same machine).
//
// --a-args / --b-args add replica flags to one side only (e.g. a feature off on one side);
// --a-env / --b-env environment variables (`K=V`, space-separated; e.g. GLIBC_TUNABLES=...).
// --b defaults to this tree's build (packages/server/dist/src/main.js). Needs etcd on PATH.
// --floor adds a third column to get-cached: bare-server.mjs (the get-cached baseline, one Node
// process, A's certificate) answering the body of one of A's objects to the same batches.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { newEtcdClient } from '../../packages/storage/dist/src/index.js';
import { HttpClient, prepareNamespace, replicaClients } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, startBareServer, stopAll, readCpuSeconds, repoRoot, closeSides } from './lib/processes.mjs';
import { runLoad, quantile } from './lib/load.mjs';
import { configMapBody, objectName, putStoredConfigMaps } from './lib/objects.mjs';
import { arg, replicaArgs } from './lib/script-args.mjs';

const CONCURRENCY = 64;
const NS = 'bench-ab';
const LIST_NS = 'bench-ab-list';

const A = arg('a');
const B = arg('b', join(repoRoot, 'packages', 'server', 'dist', 'src', 'main.js'));
const ROUNDS = Number(arg('rounds', '5'));
const BATCH = Number(arg('batch', '2000'));
const LIST_ITEMS = Number(arg('list-items', '2000'));
const ONLY = arg('only', 'create,get,get-cached,list-cached,list-paged').split(',');
const FLOOR = process.argv.includes('--floor');
const REPLICA_ARGS = replicaArgs();
// Flags for one side only (split at spaces), e.g. --b-args=--enable-priority-and-fairness=false.
const SIDE_ARGS = { A: (arg('a-args', '') ?? '').split(' ').filter(Boolean), B: (arg('b-args', '') ?? '').split(' ').filter(Boolean) };
const sideEnv = (text) => Object.fromEntries(text.split(' ').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const SIDE_ENV = { A: sideEnv(arg('a-env', '') ?? ''), B: sideEnv(arg('b-env', '') ?? '') };
if (!A) {
  process.stderr.write('usage: node hack/bench/ab.mjs --a=<server main.js> [--b=<main.js>] [--rounds=5] [--batch=2000] [--only=...] [-- replica flags]\n');
  process.exit(2);
}
const log = (m) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

async function startSide(label, main, tmp) {
  const etcdProc = await startBenchEtcd(join(tmp, `${label}-etcd`));
  const etcd = newEtcdClient([etcdProc.endpoint]);
  const replica = await startReplica({ etcdEndpoint: etcdProc.endpoint, dataDir: join(tmp, `${label}-server`), main: resolve(main), extraArgs: [...REPLICA_ARGS, ...SIDE_ARGS[label]], env: SIDE_ENV[label] });
  const { admin, api } = await replicaClients(replica, CONCURRENCY);
  await prepareNamespace(admin, api, NS, replica.workloadUser);
  await prepareNamespace(admin, api, LIST_NS, replica.workloadUser);
  await putStoredConfigMaps(etcd, LIST_NS, 'cm', LIST_ITEMS);
  for (let i = 0; i < 120; i++) {
    const res = await api.request('GET', `/api/v1/namespaces/${LIST_NS}/configmaps?resourceVersion=0`);
    if (res.status === 200 && JSON.parse(res.body.toString('utf8')).items.length === LIST_ITEMS) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  log(`${label}: ${main} ${SIDE_ARGS[label].join(' ')} ${Object.entries(SIDE_ENV[label]).map(([k, v]) => `${k}=${v}`).join(' ')} at ${replica.url} (pid ${replica.pid})`);
  return { label, etcd, replica, admin, api, created: 0, readable: 0 };
}

/** Deterministic pseudo-random index (mulberry32 step). */
function rnd(seed) {
  let t = (seed + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

async function expect200(api, method, path, body) {
  const res = await api.request(method, path, body);
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
  return res;
}

/** One batch of a workload on one side; returns the operations done. */
async function batch(side, workload, round) {
  const { api } = side;
  const path = `/api/v1/namespaces/${NS}/configmaps`;
  if (workload === 'create') {
    const first = side.created;
    // Reads pick among objects of earlier batches: a resourceVersion=0 read may not see an object
    // created a moment ago (the watch cache learns of it through its etcd watch).
    side.readable = side.created || BATCH;
    side.created += BATCH;
    const bodies = Array.from({ length: BATCH }, (_, i) => JSON.stringify(configMapBody(NS, objectName('cm', first + i))));
    const run = await runLoad({ total: BATCH, concurrency: CONCURRENCY, timeCapMs: 120_000, op: (i) => expect200(api, 'POST', path, bodies[i]) });
    if (run.errors) throw new Error(`create: ${run.firstError}`);
    return run.done;
  }
  if (workload === 'get' || workload === 'get-cached') {
    const q = workload === 'get' ? '' : '?resourceVersion=0';
    const n = side.readable;
    const run = await runLoad({
      total: BATCH,
      concurrency: CONCURRENCY,
      timeCapMs: 120_000,
      op: async (i) => JSON.parse((await expect200(api, 'GET', `${path}/${objectName('cm', rnd(round * BATCH + i) % n)}${q}`)).body.toString('utf8')),
    });
    if (run.errors) throw new Error(`${workload}: ${run.firstError}`);
    return run.done;
  }
  const lists = Math.max(5, Math.round(BATCH / 100));
  const listPath = `/api/v1/namespaces/${LIST_NS}/configmaps`;
  for (let l = 0; l < lists; l++) {
    if (workload === 'list-cached') JSON.parse((await expect200(api, 'GET', `${listPath}?resourceVersion=0`)).body.toString('utf8'));
    else if (workload === 'list-quorum') JSON.parse((await expect200(api, 'GET', listPath)).body.toString('utf8'));
    else {
      let cont = '';
      for (let p = 0; p < 1000; p++) {
        const q = cont ? `limit=500&continue=${encodeURIComponent(cont)}` : 'limit=500';
        cont = JSON.parse((await expect200(api, 'GET', `${listPath}?${q}`)).body.toString('utf8')).metadata?.continue ?? '';
        if (!cont) break;
      }
    }
  }
  return lists;
}

async function main() {
  const tmp = await mkdtemp(join(tmpdir(), 'cluster-ab-'));
  const sides = [];
  const figures = {};
  let floor;
  try {
    sides.push(await startSide('A', A, tmp));
    sides.push(await startSide('B', B, tmp));
    // Objects for the reads, and a warm-up of every workload (unmeasured).
    for (const s of sides) {
      // Two batches, so that the reads start from the first one: a resourceVersion=0 GET of an
      // object created a moment before may get a 404 (its worker's cache has not seen it yet).
      await batch(s, 'create', 0);
      await batch(s, 'create', 0);
      for (const w of ONLY) if (w !== 'create') await batch(s, w, 0);
    }
    if (FLOOR && ONLY.includes('get-cached')) {
      const a = sides[0];
      const bodyFile = join(tmp, 'floor-body.json');
      await writeFile(bodyFile, (await expect200(a.api, 'GET', `/api/v1/namespaces/${NS}/configmaps/${objectName('cm', 0)}`)).body);
      const bare = await startBareServer({ certFile: a.replica.certFile, keyFile: a.replica.keyFile, bodyFile });
      const api = new HttpClient({ host: '127.0.0.1', port: bare.port, ca: a.replica.ca, clientCert: a.replica.clientCert, maxSockets: CONCURRENCY });
      floor = { label: 'floor', api, replica: { pid: bare.pid }, readable: a.readable, close: () => api.close() };
      await batch(floor, 'get-cached', 0);
    }
    for (let r = 1; r <= ROUNDS; r++) {
      for (const w of ONLY) {
        const order = r % 2 ? [...sides] : [...sides].reverse();
        if (floor && w === 'get-cached') order.push(floor);
        for (const s of order) {
          const c0 = await readCpuSeconds(s.replica.pid);
          const t0 = performance.now();
          const ops = await batch(s, w, r);
          const secs = (performance.now() - t0) / 1000;
          const cpu = (await readCpuSeconds(s.replica.pid)) - c0;
          ((figures[w] ??= { A: [], B: [], floor: [] })[s.label]).push({ us: (cpu / ops) * 1e6, rate: ops / secs });
        }
      }
      log(`round ${r}/${ROUNDS} done`);
    }
  } finally {
    floor?.close();
    await closeSides(sides, tmp);
  }
  const fmt = (us) => (us >= 10_000 ? `${(us / 1000).toFixed(1)} ms` : `${us.toFixed(0)} µs`);
  const envText = (label) => Object.entries(SIDE_ENV[label]).map(([k, v]) => ` ${k}=${v}`).join('');
  const out = [`A = ${A} ${SIDE_ARGS.A.join(' ')}${envText('A')}`, `B = ${B} ${SIDE_ARGS.B.join(' ')}${envText('B')}`, `${ROUNDS} rounds of ${BATCH} requests (lists: ${Math.max(5, Math.round(BATCH / 100))} of ${LIST_ITEMS} items); replica flags: ${REPLICA_ARGS.join(' ') || '(default)'}`, ''];
  out.push('workload      A median   A min   B median   B min   B/A median   B/A min   B/A paired   per-round A | B');
  const json = {};
  for (const [w, f] of Object.entries(figures)) {
    const med = (xs) => quantile(xs.map((x) => x.us), 0.5);
    const min = (xs) => Math.min(...xs.map((x) => x.us));
    const [am, an, bm, bn] = [med(f.A), min(f.A), med(f.B), min(f.B)];
    // Each round's B/A on its own (both sides ran within seconds of each other): the machine's
    // slower drifts cancel out, which the medians of each side do not.
    const paired = quantile(f.A.map((x, i) => (f.B[i]?.us ?? NaN) / x.us).filter(Number.isFinite), 0.5);
    json[w] = { aMedianUs: Math.round(am), aMinUs: Math.round(an), bMedianUs: Math.round(bm), bMinUs: Math.round(bn), pairedBA: Number(paired.toFixed(3)) };
    if (f.floor.length) json[w].floorMedianUs = Math.round(med(f.floor));
    out.push(
      `${w.padEnd(12)} ${fmt(am).padStart(9)} ${fmt(an).padStart(7)} ${fmt(bm).padStart(10)} ${fmt(bn).padStart(7)} ${(bm / am).toFixed(2).padStart(12)} ${(bn / an).toFixed(2).padStart(9)} ${paired.toFixed(2).padStart(12)}   ` +
        `${f.A.map((x) => fmt(x.us)).join(' ')} | ${f.B.map((x) => fmt(x.us)).join(' ')}`,
    );
    if (f.floor.length) out.push(`${'  floor'.padEnd(12)} ${fmt(med(f.floor)).padStart(9)} ${fmt(min(f.floor)).padStart(7)}   (bare-server.mjs, one process)   ${f.floor.map((x) => fmt(x.us)).join(' ')}`);
  }
  out.push('', JSON.stringify(json));
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch(async (e) => {
  process.stderr.write(`ab: ${e.stack ?? e}\n`);
  await stopAll();
  process.exit(1);
});
