// memory: RSS of the replica per worker after it has cached N ConfigMaps (1 KiB data each),
// against the total bytes of their JSON: ratio = JSON bytes / RSS, budget 1 / 2.5. Each worker
// holds its own watch caches, so the budget is per worker: the largest worker process, or, for
// worker threads (one process), the process's RSS divided by the threads; the replica's total
// (every process) is reported beside it (see readReplicaMemory).
import { performance } from 'node:perf_hooks';
import { configMapPrefix, deletePrefix, putStoredConfigMaps } from '../lib/objects.mjs';
import { readReplicaMemory } from '../lib/processes.mjs';
import { result, failed } from '../lib/report.mjs';
import { BUDGETS, RSS_OVER_JSON } from '../lib/budgets.mjs';

const NS = 'bench-memory';
const SETTLE_MS = 25_000;
const MiB = 1024 * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function runMemory(ctx) {
  const n = ctx.count(100_000);
  // Only this workload's objects should be in the cache: drop the earlier workloads' ones.
  let dropped = 0;
  for (const ns of ['bench-create', 'bench-get', 'bench-list', 'bench-watch']) {
    dropped += await deletePrefix(ctx.etcd, configMapPrefix(ns));
  }
  await sleep(2_000);
  await ctx.prepareNamespace(NS);
  const before = await readReplicaMemory(ctx.replica);

  const t0 = performance.now();
  // BENCH_MEMORY_MANAGED_FIELDS=1: each object also carries the managedFields entry of a create.
  const managedFields = process.env.BENCH_MEMORY_MANAGED_FIELDS === '1';
  const bytes = await putStoredConfigMaps(ctx.etcd, NS, 'cm', n, { managedFields });
  const putS = (performance.now() - t0) / 1000;
  ctx.log(`memory: put ${n} ConfigMaps${managedFields ? ' with managedFields' : ''} (${(bytes / MiB).toFixed(1)} MiB of JSON) into etcd in ${putS.toFixed(1)} s`);

  // A resourceVersion=0 list is served from (and so fills) the watch cache; repeat until it
  // sees every object, since a cache learns of raw etcd writes through its watch.
  const deadline = performance.now() + ctx.capMs(180_000);
  let seen = 0;
  let lists = 0;
  while (performance.now() < deadline) {
    const res = await ctx.api.request('GET', `/api/v1/namespaces/${NS}/configmaps?resourceVersion=0`);
    lists++;
    if (res.status !== 200) return { memory: failed('MiB', BUDGETS.memory, `list: HTTP ${res.status}`) };
    seen = JSON.parse(res.body.toString('utf8')).items.length;
    if (seen === n) break;
    await sleep(1_000);
  }
  const listS = (performance.now() - t0) / 1000 - putS;
  // The list itself leaves garbage behind; V8 gives memory back only after its allocation rate
  // drops for a while, so watch RSS settle before taking the figure.
  const trace = [];
  let after = await readReplicaMemory(ctx.replica);
  for (let t = 0; t < SETTLE_MS; t += 1_000) {
    await sleep(1_000);
    after = await readReplicaMemory(ctx.replica);
    trace.push(Math.round(after.worker.rss / MiB));
  }
  const mib = (b) => (b / MiB).toFixed(0);
  const { isolation, count } = after;
  const kind = isolation === 'single' ? 'one process' : `${count} worker ${isolation === 'thread' ? 'threads' : 'processes'}`;
  // Per worker: each worker process's own figure; threads have none of their own.
  const workers =
    isolation === 'process'
      ? `workers ${after.perWorker.map((w) => mib(w.rss)).join(' / ')} MiB (peaks ${after.perWorker.map((w) => mib(w.hwm)).join(' / ')})`
      : isolation === 'thread'
        ? `${mib(after.total.rss)} MiB / ${count} threads`
        : 'the one process';
  const peak = after.peakIsProcess ? `process peak ${mib(after.worker.hwm)} MiB` : `peak ${mib(after.worker.hwm)} MiB`;
  ctx.log(`memory: RSS per worker (MiB) each second while settling: ${trace.join(' ')}`);
  ctx.log(
    `memory (${kind}): RSS per worker ${mib(before.worker.rss)} MiB before, ${mib(after.worker.rss)} MiB after (${workers}; ${peak}), ` +
      `replica total ${mib(before.total.rss)} MiB before, ${mib(after.total.rss)} MiB after; ${lists} list(s) in ${listS.toFixed(1)} s`,
  );
  return {
    memory: result({
      value: after.worker.rss / MiB,
      unit: 'MiB',
      baseline: bytes / MiB,
      kind: 'memory',
      budget: BUDGETS.memory,
      fail: seen === n ? undefined : `resourceVersion=0 list saw ${seen}/${n} objects`,
      note:
        `${n} ConfigMaps, ${kind}; RSS per worker ${(after.worker.rss / bytes).toFixed(2)}x their JSON (budget <= ${RSS_OVER_JSON}x; ${workers}); ` +
        `before ${mib(before.worker.rss)} MiB, ${peak}; replica total (all processes) ${mib(after.total.rss)} MiB, ${(after.total.rss / bytes).toFixed(2)}x; ` +
        `${dropped} earlier bench objects deleted first`,
      extra: {
        totalRssMiB: Math.round(after.total.rss / MiB),
        workers: count,
        isolation,
        ...(after.perWorker ? { workerRssMiB: after.perWorker.map((w) => Math.round(w.rss / MiB)) } : {}),
      },
    }),
  };
}
