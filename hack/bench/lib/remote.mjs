// `make bench KUBECONFIG=<file>`: the request workloads against whatever server that kubeconfig
// reaches, with no etcd and no baselines, so that two servers (or two builds) can be measured by
// one load generator. Objects go into a namespace of this run's own, deleted at the end.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { HttpClient, ensureNamespace } from './http-client.mjs';
import { runLoad, describeRun, quantile, warmOps } from './load.mjs';
import { configMapBody, objectName } from './objects.mjs';
import { round } from './report.mjs';
import { readCpuSeconds, readTotalRss } from './processes.mjs';
import { runWatchFanout } from '../workloads/watch-fanout.mjs';
import { runRemoteMemory } from './remote-memory.mjs';
import { repeatForCpu } from '../workloads/list.mjs';

const LIST_REPS = 5;
const PAGE = 500;

/** Deterministic pseudo-random indexes (mulberry32), as the local get workloads use. */
function randomIndexes(count, max, seed) {
  let s = seed >>> 0;
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) % max) >>> 0;
  }
  return out;
}

function entry(value, unit, run, note, extra = {}) {
  const problems = [];
  if (run?.errors > 0) problems.push(`${run.errors} errors (first: ${run.firstError})`);
  if (run?.capped) problems.push('time cap hit');
  const notes = [...problems, note].filter(Boolean).join('; ');
  return { value: round(value), unit, ok: problems.length === 0 && value !== null, ...extra, ...(notes ? { note: notes } : {}) };
}

const MiB = 1024 * 1024;

/**
 * The server's CPU (user + system of `pids` and their children, from /proc: this machine only)
 * from now on; the result, given the operations done since, is the CPU per operation in µs, or
 * undefined without PIDs.
 */
async function cpuProbe(pids) {
  if (pids.length === 0) return async () => undefined;
  const c0 = await readCpuSeconds(pids);
  return async (ops) => {
    const used = (await readCpuSeconds(pids)) - c0;
    return ops > 0 && Number.isFinite(used) ? (used / ops) * 1e6 : undefined;
  };
}

const cpuText = (us, perList = false) => (us === undefined ? '' : perList ? `server CPU ${(us / 1000).toFixed(1)} ms/list` : `server CPU ${us.toFixed(0)} µs/op`);

/**
 * Runs create, get, get-cached, list (cached, quorum, paged) and, when the kubeconfig user has a
 * client certificate (the watch threads authenticate by one), watch-fanout; memory only when
 * `only` names it (lib/remote-memory.mjs). Returns the results by workload name, each
 * `{value, unit, ok, note?}`.
 */
export async function runRemote({ server, scale, concurrency, only, log, capMs, pids = [] }) {
  const count = (n) => Math.max(1, Math.round(n * scale));
  const api = new HttpClient({ host: server.host, port: server.port, ca: server.ca, token: server.token, clientCert: server.clientCert, maxSockets: concurrency, insecure: server.insecure });
  const results = {};
  const selected = (key) => !only || only.has(key);
  const ns = `bench-remote-${randomBytes(3).toString('hex')}`;
  const total = count(20_000);
  const names = Array.from({ length: total }, (_, i) => objectName('cm', i));
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  try {
    await ensureNamespace(api, ns);
    log(`namespace ${ns} on ${server.url} as ${server.user || 'the kubeconfig user'}`);
    // get and list read the objects create makes, so they are created whenever one of the three
    // runs; watch-fanout and memory need none.
    const needsObjects = ['create', 'get', 'get-cached', 'list'].some(selected);
    const warm = needsObjects ? warmOps(total) : 0;
    const toCreate = needsObjects ? total : 0;
    const bodies = Array.from({ length: toCreate + warm }, (_, i) => JSON.stringify(configMapBody(ns, i < total ? names[i] : objectName('warm', i - total))));
    const create = async (i) => {
      const res = await api.request('POST', path, bodies[i]);
      if (res.status !== 201) throw new Error(`POST ${path}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
    };
    let cpu = await cpuProbe(pids);
    const warmed = await runLoad({ total: warm, concurrency, timeCapMs: capMs(90_000), op: (i) => create(total + i) });
    const warmUs = await cpu(warmed.done);
    if (needsObjects) log(`create warm-up (not measured): ${describeRun(warmed)} ${cpuText(warmUs)}`);
    cpu = await cpuProbe(pids);
    const created = await runLoad({ total: toCreate, concurrency, timeCapMs: capMs(180_000), op: create });
    let us = await cpu(created.done);
    if (needsObjects) log(`create: ${describeRun(created)} ${cpuText(us)}`);
    if (selected('create')) {
      const warmText = `after ${warmed.done} warm-up creates${warmUs === undefined ? '' : ` (server CPU ${warmUs.toFixed(0)} µs each)`}`;
      const figures = us === undefined ? {} : { cpuUsPerOp: Math.round(us), ...(warmUs === undefined ? {} : { warmCpuUsPerOp: Math.round(warmUs) }) };
      results.create = entry(created.opsPerSec, 'ops/s', created, [`${created.done}/${total} created ${warmText}`, cpuText(us)].filter(Boolean).join('; '), figures);
    }

    for (const [key, query, seed] of [['get', '', 42], ['get-cached', '?resourceVersion=0', 7]]) {
      if (!selected(key)) continue;
      const idx = randomIndexes(total * 2 + 200, total, seed);
      const get = async (i) => {
        const p = `${path}/${names[idx[i]]}${query}`;
        const res = await api.request('GET', p);
        if (res.status !== 200) throw new Error(`GET ${p}: HTTP ${res.status}`);
        JSON.parse(res.body.toString('utf8'));
      };
      await runLoad({ total: Math.max(100, Math.round(total / 20)), concurrency, timeCapMs: 30_000, op: (i) => get(i + total) });
      cpu = await cpuProbe(pids);
      const run = await runLoad({ total, concurrency, timeCapMs: capMs(60_000), op: get });
      us = await cpu(run.done);
      log(`${key}: ${describeRun(run)} ${cpuText(us)}`);
      results[key] = entry(run.opsPerSec, 'ops/s', run, cpuText(us), us === undefined ? {} : { cpuUsPerOp: Math.round(us) });
    }

    if (selected('list')) {
      const getList = async (p) => {
        const res = await api.request('GET', p);
        if (res.status !== 200) throw new Error(`GET ${p}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
        const list = JSON.parse(res.body.toString('utf8'));
        return { items: list.items.length, cont: list.metadata?.continue ?? '' };
      };
      const variants = {
        'list-cached': async () => (await getList(`${path}?resourceVersion=0`)).items,
        'list-quorum': async () => (await getList(path)).items,
        'list-paged': async () => {
          let items = 0;
          let cont = '';
          for (let pages = 0; pages < 10_000; pages++) {
            const page = await getList(`${path}?limit=${PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
            items += page.items;
            cont = page.cont;
            if (!cont) break;
          }
          return items;
        },
      };
      const expected = created.done + warmed.done;
      for (const [name, fn] of Object.entries(variants)) {
        try {
          const counts = [await fn()];
          const t0 = performance.now();
          const listCpu = await cpuProbe(pids);
          // More (untimed) lists after the timed ones while the phase is short: /proc counts 10 ms ticks.
          const { times, runs } = await repeatForCpu({ fn: async () => counts.push(await fn()), timed: LIST_REPS, capMs: capMs(90_000) });
          const listUs = await listCpu(runs);
          const median = quantile(times, 0.5);
          log(`${name}: ${median.toFixed(1)} ms median of ${times.length} in ${((performance.now() - t0) / 1000).toFixed(1)} s ${cpuText(listUs, true)}${listUs === undefined ? '' : ` over ${runs} lists`}`);
          const bad = counts.find((c) => c !== expected);
          const e = entry(
            median,
            'ms',
            undefined,
            [`${expected} items${name === 'list-paged' ? `, pages of ${PAGE}` : ''}, median of ${times.length}`, cpuText(listUs, true)].filter(Boolean).join('; '),
            { items: expected, ...(listUs === undefined ? {} : { cpuMsPerList: Number((listUs / 1000).toFixed(2)) }) },
          );
          if (bad !== undefined) Object.assign(e, { ok: false, note: `received ${bad}/${expected} items; ${e.note}` });
          results[name] = e;
        } catch (err) {
          results[name] = { value: null, unit: 'ms', ok: false, note: err.message };
        }
      }
    }

    if (selected('watch-fanout')) {
      if (!server.clientCert) {
        results['watch-fanout'] = { value: null, unit: 'ms (p99)', ok: false, note: 'skipped: the watch threads authenticate by client certificate, and the kubeconfig user has none' };
      } else {
        // No floor: it needs the server's own certificate and key, which only a local run has.
        process.env.BENCH_WATCH_FLOOR = '0';
        const ctx = {
          scale,
          concurrency,
          api,
          log,
          capMs,
          count,
          state: {},
          prepareNamespace: (name) => ensureNamespace(api, name),
          replica: { host: server.host, port: server.port, ca: server.ca, clientCert: server.clientCert, pid: pids.length > 0 ? pids : NaN },
        };
        const r = (await runWatchFanout(ctx))['watch-fanout'];
        results['watch-fanout'] = {
          value: r.value,
          unit: r.unit,
          // No floor here, so the local result is never ok; what makes a remote run not ok is the
          // fan-out's own failure (misses, failed or capped writes, watches that did not open).
          ok: r.value !== null && !(r.missed > 0) && !/time cap hit|writes failed|watches opened|unparsable|no events/.test(r.note ?? ''),
          missed: r.missed,
          ratePerSec: r.ratePerSec,
          writeRate: r.writeRate,
          p99FromDue: r.p99FromDue,
          ...(pids.length > 0 && r.cpuUsPerEvent !== undefined ? { cpuUsPerEvent: r.cpuUsPerEvent } : {}),
          ...(r.note ? { note: r.note } : {}),
        };
      }
    }
    // Only when asked for by name (BENCH_ONLY): its 100,000 creates take minutes on a server.
    if (only?.has('memory')) {
      results.memory = await runRemoteMemory({ api, ns, path, count: count(100_000), pids, concurrency, capMs, log });
    }
    if (pids.length > 0) {
      // What the server holds after the workloads: every process given and its children.
      const rss = await readTotalRss(pids);
      log(`rss: ${(rss.rss / MiB).toFixed(0)} MiB total, peak ${(rss.hwm / MiB).toFixed(0)} MiB (pids ${pids.join(', ')} and their children)`);
      results.rss = entry(Number.isFinite(rss.rss) ? rss.rss / MiB : null, 'MiB', undefined, `after the workloads, all server processes (pids ${pids.join(', ')} and children); peak ${(rss.hwm / MiB).toFixed(0)} MiB`);
    }
  } finally {
    // The ConfigMaps first: a server without a namespace controller (upstream's kube-apiserver
    // alone) would otherwise keep them, and their memory, in a namespace left terminating.
    const cleared = await api.request('DELETE', path).catch((e) => ({ status: e.message }));
    log(`delete the ConfigMaps of ${ns}: ${cleared.status}`);
    const res = await api.request('DELETE', `/api/v1/namespaces/${ns}`).catch((e) => ({ status: e.message }));
    log(`delete namespace ${ns}: ${res.status}`);
    // Until its ConfigMaps are gone (bounded): a deletion still running in the server would be
    // measured as part of the next run against it (side-by-side.mjs's next round). The namespace
    // itself stays terminating on a server without a namespace controller.
    const t0 = performance.now();
    let gone = false;
    let reissued = t0;
    while (!gone && performance.now() - t0 < 300_000) {
      // A collection delete that timed out (upstream answers 504 and stops) is asked for again.
      if (performance.now() - reissued > 15_000 && cleared.status !== 200) {
        reissued = performance.now();
        await api.request('DELETE', path).catch(() => undefined);
      }
      const probe = await api.request('GET', `${path}?limit=1`).catch(() => ({ status: 0, body: Buffer.alloc(0) }));
      gone = probe.status === 404 || (probe.status === 200 && JSON.parse(probe.body.toString('utf8')).items.length === 0);
      if (!gone) await new Promise((r) => setTimeout(r, 1_000));
    }
    log(`the ConfigMaps of ${ns} ${gone ? 'are gone' : 'are still there'} after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    api.close();
  }
  return results;
}

/** The table of a remote run: one row per workload, no baselines. */
export function formatRemoteTable(workloads) {
  const header = ['workload', 'value', 'unit', 'server CPU', 'ok'];
  const cpu = (r) => (r.cpuUsPerOp !== undefined ? `${r.cpuUsPerOp} µs/op` : r.cpuMsPerList !== undefined ? `${r.cpuMsPerList} ms/list` : r.cpuUsPerEvent !== undefined ? `${r.cpuUsPerEvent} µs/event` : '-');
  const rows = Object.entries(workloads).map(([name, r]) => [name, r.value === null ? '-' : String(r.value), r.unit, cpu(r), r.ok ? 'ok' : 'FAILED']);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 || i === 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  const notes = Object.entries(workloads).filter(([, r]) => r.note);
  if (notes.length > 0) out.push('', 'notes:', ...notes.map(([name, r]) => `  ${name}: ${r.note}`));
  return out.join('\n');
}
