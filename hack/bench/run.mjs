// The benchmark suite (`make bench`): starts its own etcd and one server replica on loopback,
// runs each workload against a same-run baseline, prints a human table and, as the last line,
// one JSON object {"workloads": {...}}. Exits 0 even when a budget is missed.
//
// Environment: BENCH_SCALE (default 1) multiplies every object/operation count for quick runs;
// BENCH_ONLY=create,list,... runs a subset; BENCH_CPU_PROF=1 profiles the replica (V8 CPU
// profile, summarized at the end); BENCH_TIME_CAP_S (default 570) bounds the whole run.
// `--kubeconfig=<file>` (what `make bench KUBECONFIG=<file>` passes) measures the server that
// kubeconfig reaches instead, API figures only (lib/remote.mjs).
import { mkdtemp, rm, readdir } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { newEtcdClient } from '../../packages/storage/dist/src/index.js';
import { replicaClients, workloadContext } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, stopAll, readCpuSeconds } from './lib/processes.mjs';
import { failed, formatTable } from './lib/report.mjs';
import { BUDGETS } from './lib/budgets.mjs';
import { summarizeProfile } from './lib/cpu-profile.mjs';
import { loadKubeconfig } from './lib/kubeconfig.mjs';
import { formatRemoteTable, runRemote } from './lib/remote.mjs';
import { runCreate } from './workloads/create.mjs';
import { runGet, runGetCached } from './workloads/get.mjs';
import { runList } from './workloads/list.mjs';
import { runWatchFanout } from './workloads/watch-fanout.mjs';
import { runMemory } from './workloads/memory.mjs';
import { runNoisyNeighbour } from './workloads/noisy-neighbour.mjs';
import { setUpNoopWebhook } from './lib/webhook.mjs';

const CONCURRENCY = 64;

/** Workloads in run order: key (for BENCH_ONLY), runner, and the result names with unit and budget. */
const WORKLOADS = [
  ['create', runCreate, [['create', 'ops/s', BUDGETS.create]]],
  ['get', runGet, [['get', 'ops/s', BUDGETS.get]]],
  ['get-cached', runGetCached, [['get-cached', 'ops/s', BUDGETS['get-cached']]]],
  ['list', runList, [['list-cached', 'ms', BUDGETS['list-cached']], ['list-quorum', 'ms', BUDGETS['list-quorum']], ['list-paged', 'ms', BUDGETS['list-paged']]]],
  ['watch-fanout', runWatchFanout, [['watch-fanout', 'ms (p99)', BUDGETS['watch-fanout']]]],
  ['noisy-neighbour', runNoisyNeighbour, [['noisy-neighbour', 'ms (p99)', BUDGETS['noisy-neighbour']]]],
  ['memory', runMemory, [['memory', 'MiB', BUDGETS.memory]]],
];

function parseScale() {
  const raw = process.env.BENCH_SCALE ?? '1';
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 10) {
    process.stderr.write(`bench: BENCH_SCALE must be a number in (0, 10], got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return scale;
}

async function main() {
  const scale = parseScale();
  const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : undefined;
  const unknown = only ? [...only].filter((k) => !WORKLOADS.some(([key]) => key === k)) : [];
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown BENCH_ONLY workload(s): ${unknown.join(', ')}\n`);
    process.exit(2);
  }
  const started = performance.now();
  const deadline = started + Number(process.env.BENCH_TIME_CAP_S ?? '570') * 1000;
  const log = (msg) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}\n`);
  const kubeconfig = process.argv.slice(2).find((a) => a.startsWith('--kubeconfig='))?.slice('--kubeconfig='.length);
  if (kubeconfig) return benchRemote({ kubeconfig, scale, only, started, deadline, log });
  const tmpDir = await mkdtemp(join(tmpdir(), 'cluster-bench-'));
  const profDir = process.env.BENCH_CPU_PROF === '1' ? await mkdtemp(join(tmpdir(), 'cluster-bench-prof-')) : undefined;
  const results = {};
  const cpuLines = [];
  /** [start, end] of each measured phase in µs of the monotonic clock (BENCH_CPU_PROF: the profile's second view). */
  const measuredWindows = [];
  let etcd;
  let api;
  let admin;
  try {
    log(`scale ${scale}, concurrency ${CONCURRENCY}, node ${process.version}, ${cpus().length} cpus, temp dir ${tmpDir}`);
    const etcdProc = await startBenchEtcd(join(tmpDir, 'etcd'));
    etcd = newEtcdClient([etcdProc.endpoint]);
    const replica = await startReplica({ etcdEndpoint: etcdProc.endpoint, dataDir: join(tmpDir, 'server'), cpuProfDir: profDir });
    log(`etcd ${etcdProc.endpoint} (pid ${etcdProc.pid}), replica ${replica.url} (pid ${replica.pid})`);
    let replicaGone;
    void replica.exited.then(({ code, signal }) => (replicaGone = `replica exited (code ${code}, signal ${signal})`));
    // Setup (namespaces, bindings) as the admin; every workload request as the non-admin
    // workload user (x509 client certificate), so that authentication and RBAC are measured.
    ({ admin, api } = await replicaClients(replica, CONCURRENCY));
    if (process.env.BENCH_WEBHOOK === '1') await setUpNoopWebhook({ admin, replica, log });
    const ctx = {
      ...workloadContext({ scale, concurrency: CONCURRENCY, admin, api, replica, etcdEndpoint: etcdProc.endpoint, tmpDir, log }),
      etcd,
      /**
       * Starts a CPU probe; calling the result with the operations done since gives each process's
       * CPU use since then as `text`, and per operation in µs (user + system time, /proc): the
       * replica's (all its processes) as `replicaUsPerOp`, etcd's as `etcdUsPerOp` (the floor of
       * the raw-etcd baselines) and, given `floorPid`, that process's as `floorUsPerOp` (a bare
       * floor server's).
       */
      cpuProbe: async (floorPid) => {
        const t0 = performance.now();
        const h0 = process.hrtime.bigint();
        const r0 = await readCpuSeconds(replica.pid);
        const e0 = await readCpuSeconds(etcdProc.pid);
        const f0 = floorPid === undefined ? undefined : await readCpuSeconds(floorPid);
        const b0 = process.cpuUsage();
        return async (ops) => {
          const s = (performance.now() - t0) / 1000;
          // The measured phase on the monotonic clock a V8 CPU profile's timestamps use.
          measuredWindows.push([Number(h0 / 1000n), Number(process.hrtime.bigint() / 1000n)]);
          const b = process.cpuUsage(b0);
          const r = (await readCpuSeconds(replica.pid)) - r0;
          const e = (await readCpuSeconds(etcdProc.pid)) - e0;
          const f = f0 === undefined ? undefined : (await readCpuSeconds(floorPid)) - f0;
          const pct = (x) => `${((x / s) * 100).toFixed(0)}%`;
          const perOp = (x) => (ops > 0 && Number.isFinite(x) ? (x / ops) * 1e6 : undefined);
          const replicaUsPerOp = perOp(r);
          const etcdUsPerOp = perOp(e);
          const floorUsPerOp = f === undefined ? undefined : perOp(f);
          const per = replicaUsPerOp === undefined ? '' : `, replica ${replicaUsPerOp.toFixed(0)} µs CPU/op, etcd ${etcdUsPerOp?.toFixed(0) ?? '-'} µs CPU/op`;
          const floorText = f === undefined ? '' : `, floor server ${pct(f)}${floorUsPerOp === undefined ? '' : ` (${floorUsPerOp.toFixed(0)} µs CPU/op)`}`;
          const text = `cpu: replica ${pct(r)}, etcd ${pct(e)}${floorText}, bench ${pct((b.user + b.system) / 1e6)}${per}`;
          return { text, replicaUsPerOp, etcdUsPerOp, floorUsPerOp };
        };
      },
      /** A workload's own cap, shortened to what is left of the whole run. */
      capMs: (ms) => Math.max(1_000, Math.min(ms, deadline - performance.now())),
    };
    for (const [key, run, names] of WORKLOADS) {
      if (only && !only.has(key)) continue;
      const skip = replicaGone ?? (performance.now() > deadline ? 'skipped: the whole run hit its time cap' : undefined);
      if (skip) {
        for (const [name, unit, budget] of names) results[name] = failed(unit, budget, skip);
        continue;
      }
      log(`${key}: start`);
      const t0 = performance.now();
      const cpu0 = [await readCpuSeconds(replica.pid), await readCpuSeconds(etcdProc.pid), process.cpuUsage()];
      try {
        Object.assign(results, await run(ctx));
      } catch (e) {
        log(`${key}: failed: ${e.stack ?? e}`);
        for (const [name, unit, budget] of names) results[name] = failed(unit, budget, `error: ${e.message}`);
      }
      const s = (performance.now() - t0) / 1000;
      const own = process.cpuUsage(cpu0[2]);
      const pct = (x) => `${((x / s) * 100).toFixed(0)}%`;
      cpuLines.push(
        `  ${key.padEnd(13)} ${s.toFixed(1).padStart(6)} s   replica ${pct((await readCpuSeconds(replica.pid)) - cpu0[0]).padStart(5)}` +
          `   etcd ${pct((await readCpuSeconds(etcdProc.pid)) - cpu0[1]).padStart(5)}   bench ${pct((own.user + own.system) / 1e6).padStart(5)}`,
      );
      log(`${key}: done in ${s.toFixed(1)} s`);
    }
  } catch (e) {
    log(`setup failed: ${e.stack ?? e}`);
    for (const [key, , names] of WORKLOADS) {
      if (only && !only.has(key)) continue;
      for (const [name, unit, budget] of names) results[name] ??= failed(unit, budget, `setup failed: ${e.message}`);
    }
  } finally {
    api?.close();
    admin?.close();
    etcd?.close();
    await stopAll();
    await rm(tmpDir, { recursive: true, force: true }).catch(() => {});
  }

  const out = [];
  if (profDir) {
    const files = (await readdir(profDir)).filter((f) => f.endsWith('.cpuprofile'));
    for (const f of files) {
      out.push(...(await summarizeProfile(join(profDir, f))), '');
      // The same profile in the measured phases only (no start-up, baselines or shutdown).
      if (measuredWindows.length > 0) out.push(...(await summarizeProfile(join(profDir, f), 20, measuredWindows)), '');
    }
    if (files.length === 0) out.push(`no CPU profile was written to ${profDir}`, '');
  }
  if (cpuLines.length > 0) out.push('CPU use during each workload (100% = one core):', ...cpuLines, '');
  out.push(
    `cluster-apiserver benchmark: scale ${scale}, ${CONCURRENCY} clients, ${cpus().length} cpus, ` +
      `${((performance.now() - started) / 1000).toFixed(0)} s`,
    '',
    formatTable(results),
    '',
    JSON.stringify({ workloads: results }),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

/** The request workloads against the server a kubeconfig reaches: no etcd, no baselines. */
async function benchRemote({ kubeconfig, scale, only, started, deadline, log }) {
  const server = await loadKubeconfig(kubeconfig);
  log(`scale ${scale}, concurrency ${CONCURRENCY}, node ${process.version}, ${cpus().length} cpus, server ${server.url} (kubeconfig ${kubeconfig})`);
  const capMs = (ms) => Math.max(1_000, Math.min(ms, deadline - performance.now()));
  // BENCH_REMOTE_PIDS=pid1,pid2: the server's processes on this machine (their children count
  // too), read from /proc for its CPU per operation and its RSS, as the local replica's are.
  const pids = (process.env.BENCH_REMOTE_PIDS ?? '').split(',').map((p) => p.trim()).filter(Boolean).map(Number);
  if (pids.some((p) => !Number.isInteger(p) || p <= 0)) {
    process.stderr.write(`bench: BENCH_REMOTE_PIDS must be comma-separated process ids, got ${JSON.stringify(process.env.BENCH_REMOTE_PIDS)}\n`);
    process.exit(2);
  }
  if (pids.length > 0) log(`server CPU and RSS from /proc for pids ${pids.join(', ')} and their children`);
  const results = await runRemote({ server, scale, concurrency: CONCURRENCY, only, log, capMs, pids });
  const out = [
    `cluster-apiserver benchmark against ${server.url}: scale ${scale}, ${CONCURRENCY} clients, ` +
      `${cpus().length} cpus here, ${((performance.now() - started) / 1000).toFixed(0)} s`,
    '',
    formatRemoteTable(results),
    '',
    JSON.stringify({ server: server.url, workloads: results }),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch(async (e) => {
  process.stderr.write(`bench: ${e.stack ?? e}\n`);
  await stopAll();
  process.exit(1);
});
