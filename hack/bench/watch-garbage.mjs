// Young garbage per delivered watch event: `node hack/bench/watch-garbage.mjs [--main=<main.js>]
// [--rounds=2] [--scale=0.3] [--interval=4096] [--top=25] [-- <replica flags>]`.
//
// Starts etcd and a one-process replica (`--workers=1`) of the build `--main` (default: this
// tree's) through lib/alloc-profile-main.mjs, and runs the watch-fanout workload (without its
// floor) on it: one unmeasured round, then `--rounds` rounds, each with V8's sampling heap
// profiler on from the moment every watch is open until the round's last event is read. The
// profiler keeps the allocations the scavenger collected too (so it counts garbage, not what
// stayed alive). Reported per round: bytes allocated per delivered event (an update written to
// one watcher), scavenges and their pauses, CPU per delivered event; then where the bytes were
// allocated, in three views: by the path of the work (the flusher's writes, the etcd watch feed,
// the PUT requests, Node's own callbacks after a write), by the innermost frame of this
// repository's code on the stack, by the allocating frame itself and with its three callers.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replicaClients, workloadContext } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, stopAll, repoRoot } from './lib/processes.mjs';
import { runWatchFanout } from './workloads/watch-fanout.mjs';

import { arg, mainArg, replicaArgs } from './lib/script-args.mjs';
import { printTop, summarizeAllocations } from './lib/alloc-summary.mjs';

const MAIN = mainArg();
const ROUNDS = Number(arg('rounds', '2'));
const SCALE = Number(arg('scale', '0.3'));
const INTERVAL = Number(arg('interval', '4096'));
const TOP = Number(arg('top', '25'));
const REPLICA_ARGS = replicaArgs();
const log = (m) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const WARM_UPDATES = 200;

/** Which part of the server's work a sampled stack belongs to (outermost match wins). */
function pathOf(stack) {
  const names = stack.map((f) => f.functionName);
  const urls = stack.map((f) => f.url);
  if (names.includes('runSlice')) return 'flusher round (stream writes)';
  if (urls.some((u) => u.includes('watch-client') || u.includes('raw-watch') || u.includes('/cacher/'))) return 'etcd watch feed and watch cache';
  if (urls.some((u) => u.includes('@grpc') || u.includes('protobufjs'))) return 'grpc / protobuf (etcd calls)';
  if (urls.some((u) => u.includes('/koa') || u.includes('/filters/') || u.includes('/server/') || u.includes('/handlers/'))) return 'requests (PUTs, GETs)';
  if (names.some((n) => n === 'onWriteComplete' || n === 'afterWrite' || n === 'afterWriteTick' || n === 'onwrite')) return 'write completions (Node)';
  if (urls.some((u) => u.includes('node:internal/http2') || u.includes('node:http2'))) return 'http2 other (Node)';
  if (urls.some((u) => u.startsWith('node:'))) return 'other Node internals';
  return 'other (V8, no JS frame)';
}

async function main() {
  process.env.BENCH_WATCH_FLOOR = '0';
  const tmp = await mkdtemp(join(tmpdir(), 'cluster-wg-'));
  const profDir = join(tmp, 'prof');
  await (await import('node:fs/promises')).mkdir(profDir);
  try {
    const etcdProc = await startBenchEtcd(join(tmp, 'etcd'));
    process.env.BENCH_ALLOC_DIR = profDir;
    process.env.BENCH_ALLOC_MAIN = MAIN;
    process.env.BENCH_ALLOC_INTERVAL = String(INTERVAL);
    const replica = await startReplica({
      etcdEndpoint: etcdProc.endpoint,
      dataDir: join(tmp, 'server'),
      main: join(repoRoot, 'hack', 'bench', 'lib', 'alloc-profile-main.mjs'),
      extraArgs: ['--workers=1', ...REPLICA_ARGS],
    });
    const { admin, api } = await replicaClients(replica, 64);
    let profiling = false;
    let lines = [];
    const log = (m) => {
      lines.push(m);
      // Every watch is open: the bench waits a second before its first update.
      if (profiling && /watches answered 200/.test(m)) process.kill(replica.pid, 'SIGUSR2');
    };
    const ctx = workloadContext({ scale: SCALE, concurrency: 64, admin, api, replica, etcdEndpoint: etcdProc.endpoint, tmpDir: tmp, log });
    log(`replica ${MAIN} (pid ${replica.pid}), scale ${SCALE}, sampling every ${INTERVAL} bytes`);
    await runWatchFanout(ctx);
    log('warm-up round done');
    const totals = { byPath: new Map(), byOurs: new Map(), bySelf: new Map(), byChain: new Map(), total: 0, delivered: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      lines = [];
      profiling = true;
      const res = (await runWatchFanout(ctx))['watch-fanout'];
      process.kill(replica.pid, 'SIGUSR2');
      profiling = false;
      let file;
      for (let i = 0; i < 100 && !file; i++) {
        await sleep(200);
        file = (await readdir(profDir)).find((f) => f.endsWith(`-${r}.json`));
      }
      if (!file) throw new Error('no profile written');
      await sleep(500);
      const data = JSON.parse(await readFile(join(profDir, file), 'utf8'));
      const summary = lines.find((l) => l.startsWith('watch-fanout: ') && l.includes('measured writes')) ?? '';
      const m = summary.match(/^watch-fanout: (\d+)\/(\d+) measured writes/);
      const watchers = Math.max(1, Math.round(1000 * SCALE));
      const updates = m ? Number(m[1]) + WARM_UPDATES : NaN;
      const delivered = updates * watchers - (res.missed ?? 0);
      const s = summarizeAllocations(data.profile, pathOf);
      totals.total += s.total;
      totals.delivered += delivered;
      for (const k of ['byPath', 'byOurs', 'bySelf', 'byChain']) for (const [key, v] of s[k]) totals[k].set(key, (totals[k].get(key) ?? 0) + v);
      log(
        `round ${r + 1}: ${updates} updates x ${watchers} watchers, p99 ${res.value?.toFixed(1)} ms, missed ${res.missed}; ` +
          `${(s.total / delivered).toFixed(0)} B allocated per delivered event (${(s.total / updates / 1024).toFixed(0)} KiB per update), ` +
          `${data.gc.minor} scavenges (${data.gc.minorMs.toFixed(0)} ms), ${data.gc.major} mark-compacts (${data.gc.majorMs.toFixed(0)} ms), ` +
          `${(data.cpuUs / delivered).toFixed(1)} µs CPU per delivered event (profiler on)`,
      );
    }
    const show = (title, map, n) => printTop(`${title} (bytes per delivered event, share)`, map, n, totals.delivered, totals.total, 1);
    process.stdout.write(`\ntotal: ${(totals.total / totals.delivered).toFixed(0)} B per delivered event over ${totals.delivered} deliveries\n`);
    show('by path of the work', totals.byPath, 20);
    show('by innermost frame of ours', totals.byOurs, TOP);
    show('by allocating frame', totals.bySelf, TOP);
    show('by allocating frame and its three callers', totals.byChain, TOP);
  } finally {
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
