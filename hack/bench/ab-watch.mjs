// Interleaved A/B of two server builds' watch fan-out latency: `node hack/bench/ab-watch.mjs
// --a=<main.js> [--b=<main.js>] [--rounds=8] [--scale=0.3] [--a-env=K=V,...] [--b-env=K=V,...]
// [-- <replica flags>]`.
//
// One `run.mjs` run of each build after the other sees two different machines when other
// processes share it: the watch-fanout p99 of one build moved by more than the difference looked
// for. Here both builds run at once, each with an etcd of its own, and every round runs the
// watch-fanout workload (lib: workloads/watch-fanout.mjs, without its floor run) on A and then on
// B (B first in every other round), so both sides of a round see the machine within seconds.
// Reported per round and side: writes/s, p50, p99, max, missed, server CPU per delivered event;
// then per side the median and minimum p99 and the median of the rounds' own B/A.
//
// A side waiting for its turn gets a GET every 100 ms: without requests the memory reclaimer's
// quiet look (every 10 s) would run between rounds, which it does not in a run.mjs run
// (`--idle` leaves the waiting side idle instead).
// --a-env / --b-env set environment variables of one side's replica only (comma-separated
// K=V; e.g. --b-env=NODE_OPTIONS=--parallel-scavenge). --b defaults to this tree's build.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { replicaClients, workloadContext } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, stopAll, repoRoot } from './lib/processes.mjs';
import { runWatchFanout } from './workloads/watch-fanout.mjs';
import { arg, replicaArgs } from './lib/script-args.mjs';

const A = arg('a');
const B = arg('b', join(repoRoot, 'packages', 'server', 'dist', 'src', 'main.js'));
const ROUNDS = Number(arg('rounds', '8'));
const SCALE = Number(arg('scale', '0.3'));
const IDLE = process.argv.includes('--idle');
const REPLICA_ARGS = replicaArgs();
const SIDE_ENV = { A: parseEnv(arg('a-env', '')), B: parseEnv(arg('b-env', '')) };
if (!A) {
  process.stderr.write('usage: node hack/bench/ab-watch.mjs --a=<server main.js> [--b=<main.js>] [--rounds=8] [--scale=0.3] [--a-env=K=V] [--b-env=K=V] [--idle] [-- replica flags]\n');
  process.exit(2);
}
const log = (m) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

function parseEnv(text) {
  const out = {};
  for (const kv of text.split(',').filter(Boolean)) {
    const at = kv.indexOf('=');
    if (at <= 0) throw new Error(`--a-env/--b-env: not K=V: ${kv}`);
    out[kv.slice(0, at)] = kv.slice(at + 1);
  }
  return out;
}

/** Runs `fn` with the process environment extended by `env` (startReplica passes it on). */
async function withEnv(env, fn) {
  const saved = {};
  for (const k of Object.keys(env)) {
    saved[k] = process.env[k];
    process.env[k] = env[k];
  }
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(env)) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}

async function startSide(label, main, tmp) {
  const etcdProc = await startBenchEtcd(join(tmp, `${label}-etcd`));
  const replica = await withEnv(SIDE_ENV[label], () =>
    startReplica({ etcdEndpoint: etcdProc.endpoint, dataDir: join(tmp, `${label}-server`), main: resolve(main), extraArgs: REPLICA_ARGS }),
  );
  const { admin, api } = await replicaClients(replica, 64);
  const lines = [];
  const ctx = workloadContext({ scale: SCALE, concurrency: 64, admin, api, replica, etcdEndpoint: etcdProc.endpoint, tmpDir: tmp, log: (m) => lines.push(m) });
  log(`${label}: ${main} ${JSON.stringify(SIDE_ENV[label])} at ${replica.url} (pid ${replica.pid})`);
  return { label, replica, admin, ctx, lines, busy: undefined };
}

/** A GET every 100 ms while the side waits for its turn (see the header). */
function keepBusy(side) {
  if (IDLE) return;
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      await side.admin.request('GET', '/api/v1/namespaces/default').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  side.busy = async () => {
    stop = true;
    await loop;
  };
}

async function round(side) {
  await side.busy?.();
  side.busy = undefined;
  side.lines.length = 0;
  const t0 = Date.now();
  const res = (await runWatchFanout(side.ctx))['watch-fanout'];
  const t1 = Date.now();
  keepBusy(side);
  const summary = side.lines.find((l) => l.startsWith('watch-fanout: ') && l.includes('measured writes')) ?? '';
  const num = (re) => {
    const m = summary.match(re);
    return m ? Number(m[1]) : NaN;
  };
  return {
    t0,
    t1,
    p99: res.value ?? NaN,
    p50: num(/p50 ([\d.]+) ms/),
    max: num(/max ([\d.]+) ms/),
    rate: num(/ok at (\d+)\/s/),
    missed: res.missed ?? NaN,
    cpu: res.cpuUsPerEvent ?? NaN,
    fail: /missed [1-9]|writes failed|time cap|no events/.test(summary) ? summary : '',
  };
}

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (r) => `${r.rate}/s p50 ${r.p50.toFixed(1)} p99 ${r.p99.toFixed(1)} max ${r.max.toFixed(0)} missed ${r.missed} cpu ${r.cpu} µs`;

async function main() {
  // The fan-out's own floor (a bare HTTP/2 server) is not run: both sides are judged against each other.
  process.env.BENCH_WATCH_FLOOR = '0';
  const tmp = await mkdtemp(join(tmpdir(), 'cluster-abw-'));
  const sides = [];
  const results = { A: [], B: [] };
  try {
    sides.push(await startSide('A', A, tmp));
    sides.push(await startSide('B', B, tmp));
    for (const s of sides) keepBusy(s);
    // One unmeasured round each: JIT warm-up and the watch cache's first events.
    for (const s of sides) await round(s);
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? sides : [...sides].reverse();
      const load = (await import('node:os')).loadavg()[0].toFixed(1);
      for (const s of order) {
        const res = await round(s);
        results[s.label].push(res);
        log(`round ${r + 1} ${s.label} (load ${load}): ${fmt(res)}${res.fail ? ` FAIL ${res.fail}` : ''}`);
      }
    }
    const ratios = results.A.map((a, i) => results.B[i].p99 / a.p99);
    const out = {};
    for (const label of ['A', 'B']) {
      const rs = results[label];
      out[label] = {
        p99Median: median(rs.map((r) => r.p99)),
        p99Min: Math.min(...rs.map((r) => r.p99)),
        p50Median: median(rs.map((r) => r.p50)),
        cpuMedian: median(rs.map((r) => r.cpu)),
        rateMedian: median(rs.map((r) => r.rate)),
        missed: rs.reduce((a, r) => a + (Number.isFinite(r.missed) ? r.missed : 0), 0),
        p99s: rs.map((r) => r.p99),
        rounds: rs,
      };
    }
    out.pairedP99BoverA = median(ratios);
    log(`A: p99 median ${out.A.p99Median.toFixed(1)} (min ${out.A.p99Min.toFixed(1)}), p50 ${out.A.p50Median.toFixed(1)}, cpu ${out.A.cpuMedian} µs/event, missed ${out.A.missed}`);
    log(`B: p99 median ${out.B.p99Median.toFixed(1)} (min ${out.B.p99Min.toFixed(1)}), p50 ${out.B.p50Median.toFixed(1)}, cpu ${out.B.cpuMedian} µs/event, missed ${out.B.missed}`);
    log(`paired B/A of p99: median ${out.pairedP99BoverA.toFixed(2)} (${ratios.map((x) => x.toFixed(2)).join(' ')})`);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    for (const s of sides) await s.busy?.();
    await stopAll();
    await rm(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    log(`failed: ${e.stack ?? e}`);
    process.exit(1);
  },
);
