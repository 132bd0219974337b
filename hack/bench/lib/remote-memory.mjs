// The memory workload against a remote server (`make bench KUBECONFIG=`, `BENCH_ONLY=memory`):
// N ConfigMaps of 1 KiB data created through the API, as many clients make them, then listed
// from the watch cache until it holds them all; the figure is the RSS of the server's processes
// (their children included) after it settled. The local workload puts the objects into etcd
// directly, in this server's storage form; a remote server (upstream's kube-apiserver stores
// Protobuf) gets them through its API instead, so both sides of side-by-side.mjs cache the same
// objects, managedFields included.
import { performance } from 'node:perf_hooks';
import { runLoad, describeRun } from './load.mjs';
import { configMapBody, objectName } from './objects.mjs';
import { readTotalRss } from './processes.mjs';

const SETTLE_MS = 25_000;
const MiB = 1024 * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Creates `count` ConfigMaps in `path` (a namespace's configmaps collection, which the caller
 * deletes), waits until a resourceVersion=0 list returns them all, then reads the RSS of `pids`
 * each second for SETTLE_MS. Resolves with a remote result entry (value in MiB).
 */
export async function runRemoteMemory({ api, ns, path, count, pids, concurrency, capMs, log }) {
  const unit = 'MiB';
  if (pids.length === 0) return { value: null, unit, ok: false, note: 'skipped: needs the server PIDs (BENCH_REMOTE_PIDS)' };
  const before = await readTotalRss(pids);
  const bodies = Array.from({ length: count }, (_, i) => JSON.stringify(configMapBody(ns, objectName('mem', i))));
  const jsonBytes = bodies.reduce((sum, b) => sum + Buffer.byteLength(b), 0);
  const created = await runLoad({
    total: count,
    concurrency,
    timeCapMs: capMs(600_000),
    op: async (i) => {
      const res = await api.request('POST', path, bodies[i]);
      if (res.status !== 201) throw new Error(`POST ${path}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
    },
  });
  log(`memory: created ${describeRun(created)} (${(jsonBytes / MiB).toFixed(1)} MiB of request JSON)`);
  if (created.done < count) return { value: null, unit, ok: false, note: `created only ${created.done}/${count} ConfigMaps (first error: ${created.firstError ?? 'time cap'})` };

  const deadline = performance.now() + capMs(180_000);
  let seen = 0;
  let lists = 0;
  while (performance.now() < deadline) {
    const res = await api.request('GET', `${path}?resourceVersion=0`);
    lists++;
    if (res.status !== 200) return { value: null, unit, ok: false, note: `list: HTTP ${res.status}` };
    seen = JSON.parse(res.body.toString('utf8')).items.length;
    if (seen === count) break;
    await sleep(1_000);
  }
  if (seen !== count) return { value: null, unit, ok: false, note: `the cache returned ${seen}/${count} objects after ${lists} lists` };

  // As the local workload: the list leaves garbage behind, so RSS is read as it settles.
  const trace = [];
  let after = await readTotalRss(pids);
  for (let t = 0; t < SETTLE_MS; t += 1_000) {
    await sleep(1_000);
    after = await readTotalRss(pids);
    trace.push(Math.round(after.rss / MiB));
  }
  log(`memory: server RSS (MiB) each second while settling: ${trace.join(' ')}`);
  const mib = (b) => (b / MiB).toFixed(0);
  return {
    value: Number((after.rss / MiB).toFixed(0)),
    unit,
    ok: Number.isFinite(after.rss),
    rssBeforeMiB: Number(mib(before.rss)),
    jsonMiB: Number((jsonBytes / MiB).toFixed(1)),
    note: `${count} ConfigMaps created through the API (${(jsonBytes / MiB).toFixed(1)} MiB of request JSON); server RSS ${mib(before.rss)} MiB before, ${mib(after.rss)} MiB after ${SETTLE_MS / 1000} s of settling (peak ${mib(after.hwm)} MiB), all processes of pids ${pids.join(', ')} and their children; ${lists} list(s)`,
  };
}
