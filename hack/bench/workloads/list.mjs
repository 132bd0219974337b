// list: the time for the client to receive and parse a whole list of ConfigMaps in one namespace,
// (a) resourceVersion=0 from the cache, (b) quorum, (c) pages of 500; against a raw etcd range of
// the same keys plus JSON.parse of every value in the benchmark process.
import { performance } from 'node:perf_hooks';
import { timeRepeated, quantile } from '../lib/load.mjs';
import { configMapPrefix, putStoredConfigMaps } from '../lib/objects.mjs';
import { prefixEnd } from '../lib/keys.mjs';
import { result, failed } from '../lib/report.mjs';
import { BUDGETS, CPU_BUDGETS } from '../lib/budgets.mjs';

export const LIST_NAMESPACE = 'bench-list';
const REPS = 5;
const PAGE = 500;
/**
 * CPU is read from /proc in 10 ms ticks per process: after the REPS timed lists, lists go on
 * (not timed) until the phase has lasted CPU_MIN_MS or CPU_MAX_REPS lists were made, so that a
 * small list's CPU is more than a few ticks. The same for the raw floor.
 */
export const CPU_MIN_MS = 2_000;
export const CPU_MAX_REPS = 40;

/**
 * `timed` timed runs of `fn`, then more (untimed) until CPU_MIN_MS passed or CPU_MAX_REPS runs
 * were made, all within `capMs`; returns the timed durations and the number of runs made.
 */
export async function repeatForCpu({ fn, timed, capMs }) {
  const t0 = performance.now();
  const times = await timeRepeated({ reps: timed, timeCapMs: capMs, fn });
  let runs = times.length;
  while (runs >= timed && runs < CPU_MAX_REPS && performance.now() - t0 < Math.min(CPU_MIN_MS, capMs)) {
    await fn(runs);
    runs++;
  }
  return { times, runs };
}

/** GETs a list and parses it; returns the item count and the continue token. */
async function getList(ctx, path) {
  const res = await ctx.api.request('GET', path);
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
  const list = JSON.parse(res.body.toString('utf8'));
  return { items: list.items.length, cont: list.metadata?.continue ?? '' };
}

export async function runList(ctx) {
  const n = ctx.count(10_000);
  const ns = LIST_NAMESPACE;
  await ctx.prepareNamespace(ns);
  await putStoredConfigMaps(ctx.etcd, ns, 'cm', n);
  const base = `/api/v1/namespaces/${ns}/configmaps`;

  // A watch cache learns of the raw puts asynchronously: wait until a cached list sees them all.
  const deadline = performance.now() + 60_000;
  let seen = 0;
  while (performance.now() < deadline) {
    seen = (await getList(ctx, `${base}?resourceVersion=0`)).items;
    if (seen === n) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const cacheNote = seen === n ? undefined : `resourceVersion=0 list saw ${seen}/${n} items after 60 s`;

  const rawKey = Buffer.from(configMapPrefix(ns));
  const raw = async () => {
    const res = await ctx.etcd.kv.range({ key: rawKey, range_end: prefixEnd(rawKey) });
    for (const kv of res.kvs) JSON.parse(kv.value.toString('utf8'));
    if (res.kvs.length !== n) throw new Error(`raw range returned ${res.kvs.length}/${n} keys`);
  };
  await raw();
  // The CPU floor of every list variant: etcd's own CPU per range of the n keys.
  const rawCpu = await ctx.cpuProbe();
  const rawRuns = await repeatForCpu({ fn: raw, timed: REPS, capMs: 60_000 });
  const rawCpuUse = await rawCpu(rawRuns.runs);
  const baseMs = quantile(rawRuns.times, 0.5);
  const floorMs = rawCpuUse.etcdUsPerOp === undefined ? undefined : rawCpuUse.etcdUsPerOp / 1000;
  ctx.log(`list baseline (raw etcd range + JSON.parse of ${n}): ${baseMs.toFixed(1)} ms median; etcd CPU ${floorMs?.toFixed(2) ?? '-'} ms per range over ${rawRuns.runs} ranges`);

  const variants = {
    'list-cached': async () => (await getList(ctx, `${base}?resourceVersion=0`)).items,
    'list-quorum': async () => (await getList(ctx, base)).items,
    'list-paged': async () => {
      let total = 0;
      let cont = '';
      for (let pages = 0; pages < 10_000; pages++) {
        const q = cont ? `limit=${PAGE}&continue=${encodeURIComponent(cont)}` : `limit=${PAGE}`;
        const page = await getList(ctx, `${base}?${q}`);
        total += page.items;
        cont = page.cont;
        if (!cont) break;
      }
      return total;
    },
  };
  const out = {};
  for (const [name, fn] of Object.entries(variants)) {
    try {
      const counts = [];
      counts.push(await fn());
      const capMs = ctx.capMs(90_000);
      const t0 = performance.now();
      const cpu = await ctx.cpuProbe();
      const { times, runs } = await repeatForCpu({ fn: async () => counts.push(await fn()), timed: REPS, capMs });
      const cpuUse = await cpu(runs);
      const capped = times.length < REPS || performance.now() - t0 > capMs;
      const bad = counts.filter((c) => c !== n);
      const fail = [
        bad.length > 0 ? `received ${bad[0]}/${n} items` : '',
        capped ? `time cap hit after ${times.length} reps` : '',
        name === 'list-cached' ? cacheNote : '',
      ].filter(Boolean).join('; ');
      const median = quantile(times, 0.5);
      const cpuMs = cpuUse.replicaUsPerOp === undefined ? undefined : cpuUse.replicaUsPerOp / 1000;
      ctx.log(`${name}: ${median.toFixed(1)} ms median of ${times.length} (${times.map((t) => t.toFixed(0)).join(', ')}); replica CPU ${cpuMs?.toFixed(2) ?? '-'} ms per list over ${runs} lists`);
      out[name] = result({
        value: median,
        unit: 'ms',
        baseline: baseMs,
        kind: 'latency',
        budget: BUDGETS[name],
        fail: fail || undefined,
        note:
          `${n} items${name === 'list-paged' ? `, pages of ${PAGE}` : ''}, median of ${times.length}` +
          (cpuMs === undefined ? '' : `; replica CPU ${cpuMs.toFixed(1)} ms/list over ${runs} lists`) +
          (floorMs === undefined ? '' : `, etcd (floor) ${floorMs.toFixed(1)} ms/range`),
        extra: { items: n, ...(cpuMs === undefined ? {} : { cpuMsPerList: Number(cpuMs.toFixed(2)) }) },
        cpu: { server: cpuMs, floor: floorMs, budget: CPU_BUDGETS[name], key: 'cpuMsPerList' },
      });
    } catch (e) {
      out[name] = failed('ms', BUDGETS[name], e.message);
    }
  }
  return out;
}
