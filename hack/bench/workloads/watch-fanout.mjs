// watch-fanout: W watchers on one object, U updates at a fixed rate. Each update carries its
// issue time (the process-wide monotonic clock) in its data; an event's latency is its arrival
// time minus that. Value: p99 latency, judged against the same load on a bare Node HTTP/2 server
// measured in the same run (the floor): what the machine and the load generator allow at all.
// Every watcher must get every update, and the writer must keep up with the floor's writer.
// The watchers live in worker threads (lib/watch-worker.mjs), the writer here.
import { Agent, request } from 'node:https';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { HttpClient } from '../lib/http-client.mjs';
import { readCpuSeconds, startBareWatchServer } from '../lib/processes.mjs';
import { PAYLOAD_1K } from '../lib/objects.mjs';
import { BUCKETS, histogramQuantile, nowMs } from '../lib/watch-clock.mjs';
import { result, failed } from '../lib/report.mjs';
import { BUDGETS, CPU_BUDGETS, WRITE_RATE_SHARE_OF_FLOOR } from '../lib/budgets.mjs';

const NS = 'bench-watch';
const NAME = 'fanout';
/**
 * Updates a second. BENCH_WATCH_RATE lowers (or raises) it, e.g. to measure this server at the
 * rate another server reached (side-by-side.mjs: the same offered load as upstream's).
 */
const RATE_PER_SEC = rateFromEnvironment(200);
/** Updates sent first and not measured (200, 1 s at the default rate), so JIT warm-up is not in the p99. */
const WARM_UPDATES = 200;
const WATCH_FANOUT_BUDGET = BUDGETS['watch-fanout'];
const OPEN_CONCURRENCY = 25;
/**
 * Updates of one object are issued one at a time (each still at its scheduled time, or as soon as
 * the previous one is answered when that is later): concurrent unconditional updates of the same
 * key only conflict and retry, which measures the retry loop rather than the fan-out.
 */
const MAX_OUTSTANDING_WRITES = Number(process.env.BENCH_WATCH_WRITERS ?? 1);
const DRAIN_MS = 15_000;
/**
 * Watches go over HTTP/2 as client-go sends them (kubectl and Go controllers negotiate h2 and
 * multiplex a client's watches over one connection), `STREAMS_PER_CONNECTION` watches a
 * connection, as ten clients of a hundred watches each. `BENCH_WATCH_PROTOCOL=http1` gives every
 * watch its own HTTP/1.1 connection instead, as @kubernetes/client-node does.
 */
const PROTOCOL = process.env.BENCH_WATCH_PROTOCOL === 'http1' ? 'http1' : 'h2';
const STREAMS_PER_CONNECTION = Math.max(1, Number(process.env.BENCH_WATCH_PER_CONNECTION ?? 100));
const workerUrl = new URL('../lib/watch-worker.mjs', import.meta.url);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** BENCH_WATCH_RATE as a positive number of updates a second; `fallback` when unset. */
function rateFromEnvironment(fallback) {
  const text = process.env.BENCH_WATCH_RATE;
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`BENCH_WATCH_RATE must be a positive number of updates a second, not ${JSON.stringify(text)}`);
  return n;
}

function objectBody(seq, ts) {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: NAME, namespace: NS },
    data: { 'bench-seq': String(seq), 'bench-ts': ts.toFixed(3), payload: PAYLOAD_1K },
  });
}

/** One watch request: resolves with the status and, when not 200, the Status message. */
function probeWatch(ctx, path) {
  const agent = new Agent({ keepAlive: false, ca: ctx.replica.ca, ...ctx.replica.clientCert });
  return new Promise((resolve) => {
    const done = (v) => {
      req.destroy();
      agent.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done({ status: 0 }), 5_000);
    const req = request(
      { host: ctx.replica.host, port: ctx.replica.port, path, agent, headers: { Accept: 'application/json' } },
      (res) => {
        clearTimeout(timer);
        if (res.statusCode === 200) return done({ status: 200 });
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let message = text.slice(0, 200);
          try {
            message = JSON.parse(text).message ?? message;
          } catch {
            // not a Status: keep the start of the body
          }
          done({ status: res.statusCode, message });
        });
      },
    );
    req.on('error', (e) => {
      clearTimeout(timer);
      done({ status: -1, message: e.message });
    });
    req.end();
  });
}

export async function runWatchFanout(ctx) {
  const watchers = ctx.count(1_000);
  const updates = ctx.count(2_000);
  const unit = 'ms (p99)';
  await ctx.prepareNamespace(NS);
  const created = await ctx.api.request('POST', `/api/v1/namespaces/${NS}/configmaps`, objectBody(-1, 0));
  if (created.status !== 201 && created.status !== 409) {
    return { 'watch-fanout': failed(unit, WATCH_FANOUT_BUDGET, `create watched object: HTTP ${created.status}`) };
  }
  // An object left by an earlier run against the same server (side-by-side.mjs's rounds) is
  // updated first: its last resourceVersion may have left the server's watch-cache window since
  // (this server keeps five minutes; upstream's cache keeps a count), and a watch from it would
  // only get 410 Gone. The watches start from the object's fresh resourceVersion.
  if (created.status === 409) {
    const touched = await ctx.api.request('PUT', `/api/v1/namespaces/${NS}/configmaps/${NAME}`, objectBody(-1, 0));
    if (touched.status !== 200) return { 'watch-fanout': failed(unit, WATCH_FANOUT_BUDGET, `update watched object: HTTP ${touched.status}`) };
  }
  const current = await ctx.api.json('GET', `/api/v1/namespaces/${NS}/configmaps/${NAME}`);
  const rv = current.metadata.resourceVersion;
  const path = `/api/v1/namespaces/${NS}/configmaps?watch=true&fieldSelector=metadata.name%3D${NAME}&resourceVersion=${rv}`;

  const probe = await probeWatch(ctx, path);
  if (probe.status !== 200 && probe.status !== 0) {
    const why = probe.status === -1 ? `connection error: ${probe.message}` : `HTTP ${probe.status}: ${probe.message}`;
    return { 'watch-fanout': failed(unit, WATCH_FANOUT_BUDGET, `watch endpoint unavailable (${why})`) };
  }

  // The same load against a bare Node HTTP/2 server first: what this machine's runtime and load
  // generator allow at all, and what the replica is judged against (BENCH_WATCH_FLOOR=0 skips
  // it: the run then has no budget to meet and is not ok).
  let floor = '';
  let floorFigures = {};
  let floorRun;
  if (process.env.BENCH_WATCH_FLOOR !== '0') {
    const bare = await startBareWatchServer({ certFile: ctx.replica.certFile, keyFile: ctx.replica.keyFile });
    const client = new HttpClient({ host: ctx.replica.host, port: bare.port, ca: ctx.replica.ca, clientCert: ctx.replica.clientCert, maxSockets: 4 });
    try {
      const publish = (seq) => client.request('POST', '/publish', `{"type":"MODIFIED","object":${objectBody(seq, nowMs())}}\n`);
      const f = await fanout(ctx, { port: bare.port, pid: bare.pid, path, watchers, updates, write: publish, openWaitMs: 10_000 });
      floor =
        `bare h2 floor: writes at ${f.writeRate.toFixed(0)}/s, p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, ` +
        `missed ${f.missed}, cpu: server ${f.serverCpu}%${f.cpuUsPerEvent === undefined ? '' : ` (${f.cpuUsPerEvent.toFixed(1)} µs per delivered event)`}, bench ${f.benchCpu}%`;
      floorFigures = { floorP99: f.p99, floorWriteRate: Math.round(f.writeRate) };
      floorRun = f;
      ctx.log(`watch-fanout floor (bare Node HTTP/2 server, no API server): ${f.summary}`);
    } finally {
      client.close();
      await bare.stop();
    }
  }

  // Watch streams whose headers only come with the first event are kept; we just stop waiting.
  const openWaitMs = probe.status === 0 ? 100 : 10_000;
  const update = (seq) => ctx.api.request('PUT', `/api/v1/namespaces/${NS}/configmaps/${NAME}`, objectBody(seq, nowMs()));
  const r = await fanout(ctx, { port: ctx.replica.port, pid: ctx.replica.pid, path, watchers, updates, write: update, openWaitMs });
  ctx.log(`watch-fanout: ${r.summary}`);
  if (r.tenths.length > 0) ctx.log(`watch-fanout: mean latency (ms) per tenth of the run: ${r.tenths.join(' ')}`);
  const fail = [
    r.fail,
    floorRun ? '' : 'no floor measured (BENCH_WATCH_FLOOR=0)',
    floorRun?.fail ? `the floor itself: ${floorRun.fail}` : '',
    floorRun && r.writeRate < floorRun.writeRate * WRITE_RATE_SHARE_OF_FLOOR
      ? `writes fell behind the floor's: ${r.writeRate.toFixed(0)}/s < ${WRITE_RATE_SHARE_OF_FLOOR} x ${floorRun.writeRate.toFixed(0)}/s`
      : '',
  ].filter(Boolean).join('; ');
  return {
    'watch-fanout': result({
      value: r.measured > 0 ? r.p99 : null,
      unit,
      // ratio = floor p99 / p99; the budget (1 / P99_OVER_FLOOR) means p99 <= 1.25 x the floor's.
      baseline: floorRun && floorRun.measured > 0 ? floorRun.p99 : null,
      kind: 'latency',
      budget: WATCH_FANOUT_BUDGET,
      fail: fail || undefined,
      note:
        `${watchers} watchers (${PROTOCOL === 'h2' ? `HTTP/2, ${STREAMS_PER_CONNECTION} a connection` : 'HTTP/1.1'}) x ${r.okMeasured} updates at ${r.writeRate.toFixed(0)}/s after ${WARM_UPDATES} warm-up; ` +
        `p50 ${r.p50.toFixed(1)} ms, max ${r.maxLatency.toFixed(1)} ms, p99 from the due time ${r.p99FromDue.toFixed(1)} ms` +
        (r.late > 0 ? `; ${r.late} watches got no response headers within ${openWaitMs} ms` : '') +
        (r.stalls > 0 ? `; ${r.stalls} updates waited for the previous one` : '') +
        (floor ? `; ${floor}` : ''),
      extra: {
        missed: r.missed,
        writeRate: Math.round(r.writeRate),
        ratePerSec: RATE_PER_SEC,
        p99FromDue: Number(r.p99FromDue.toFixed(1)),
        ...(r.cpuUsPerEvent === undefined ? {} : { cpuUsPerEvent: Number(r.cpuUsPerEvent.toFixed(1)) }),
        ...floorFigures,
      },
      // The CPU floor: the bare HTTP/2 server's own CPU per event it delivered in the floor run.
      // Without a floor run (BENCH_WATCH_FLOOR=0, a remote run) there is no CPU check either.
      cpu: floorRun ? { server: r.cpuUsPerEvent, floor: floorRun.cpuUsPerEvent, budget: CPU_BUDGETS['watch-fanout'], key: 'cpuUsPerEvent' } : undefined,
    }),
  };
}

/**
 * Opens `watchers` watches of `path` on the server at `port` (process `pid`), sends `updates`
 * writes (after the warm-up) through `write(seq)` at RATE_PER_SEC, and collects what the
 * watchers received: latency quantiles, missed events, the write rate reached, CPU use.
 */
async function fanout(ctx, { port, pid, path, watchers, updates, write, openWaitMs }) {
  const total = WARM_UPDATES + updates;
  const threads = Math.max(1, Math.min(Number(process.env.BENCH_WATCH_THREADS ?? 2), cpus().length, watchers));
  const workers = [];
  const t0 = performance.now();
  for (let i = 0; i < threads; i++) {
    const share = Math.floor(watchers / threads) + (i < watchers % threads ? 1 : 0);
    const worker = new Worker(workerUrl, {
      workerData: {
        host: ctx.replica.host,
        port,
        ca: ctx.replica.ca,
        clientCert: ctx.replica.clientCert,
        path,
        watchers: share,
        total,
        warm: WARM_UPDATES,
        openConcurrency: OPEN_CONCURRENCY,
        openWaitMs,
        protocol: PROTOCOL,
        streamsPerConnection: STREAMS_PER_CONNECTION,
      },
    });
    const messages = [];
    let wake;
    worker.on('message', (m) => {
      messages.push(m);
      wake?.();
    });
    const errored = new Promise((_, reject) => worker.once('error', reject));
    const next = async (type, capMs) => {
      const deadline = performance.now() + capMs;
      for (;;) {
        const m = messages.find((x) => x.type === type);
        if (m) return m;
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`watch worker ${i}: no '${type}' within ${capMs} ms`);
        await Promise.race([new Promise((r) => ((wake = r), setTimeout(r, Math.min(left, 500)))), errored]);
      }
    };
    workers.push({ worker, next });
  }

  try {
    let opened = 0;
    let late = 0;
    for (const w of workers) {
      const m = await w.next('opened', ctx.capMs(120_000));
      opened += m.opened;
      late += m.late;
    }
    const over = PROTOCOL === 'h2' ? `HTTP/2, ${Math.ceil(watchers / STREAMS_PER_CONNECTION)} connections` : `HTTP/1.1, one connection each`;
    ctx.log(`watch-fanout: ${opened}/${watchers} watches answered 200 (${late} without headers yet) in ${((performance.now() - t0) / 1000).toFixed(1)} s over ${threads} threads, ${over}`);
    await sleep(1_000);

    // Update i is due at start + i/rate; it waits only while the previous one is unanswered.
    const cpu0 = await readCpuSeconds(pid);
    const bench0 = process.cpuUsage();
    const cpuT0 = performance.now();
    const writeOk = new Uint8Array(total);
    let writeErrors = 0;
    let firstWriteError;
    let outstanding = 0;
    let stalls = 0;
    let issued = 0;
    const inflight = new Set();
    /** Round-trip time of each update (issued to answered): what limits a sequential writer. */
    const updateMs = [];
    const start = performance.now() + 100;
    // The schedule on the clock the watchers stamp arrivals with: a latency measured from an
    // update's due time also counts the time the writer was held up by slow answers (a server
    // that takes writes more slowly is offered less load, and its issue-time latency hides it).
    const schedule = { type: 'schedule', startMs: nowMs() + (start - performance.now()), ratePerSec: RATE_PER_SEC };
    for (const w of workers) w.worker.postMessage(schedule);
    const writeDeadline = start + (total / RATE_PER_SEC) * 1000 + ctx.capMs(60_000);
    let measuredStart = start;
    for (let seq = 0; seq < total && performance.now() < writeDeadline; seq++) {
      const due = start + (seq * 1000) / RATE_PER_SEC;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      if (seq === WARM_UPDATES) measuredStart = performance.now();
      while (outstanding >= MAX_OUTSTANDING_WRITES) {
        stalls++;
        await Promise.race(inflight);
      }
      outstanding++;
      issued++;
      const issuedAt = performance.now();
      const p = write(seq)
        .then(
          (res) => {
            if (res.status === 200) writeOk[seq] = 1;
            else {
              writeErrors++;
              firstWriteError ??= `HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 160)}`;
            }
          },
          (e) => {
            writeErrors++;
            firstWriteError ??= e.message;
          },
        )
        .finally(() => {
          updateMs.push(performance.now() - issuedAt);
          outstanding--;
          inflight.delete(p);
        });
      inflight.add(p);
    }
    await Promise.all(inflight);
    const writesDone = performance.now();
    for (const w of workers) w.worker.postMessage({ type: 'finish', writeOk, drainMs: DRAIN_MS });
    const results = [];
    for (const w of workers) results.push(await w.next('result', DRAIN_MS + 30_000));
    const cpuSeconds = (performance.now() - cpuT0) / 1000;
    const serverCpuSeconds = (await readCpuSeconds(pid)) - cpu0;
    const serverCpu = Math.round((serverCpuSeconds / cpuSeconds) * 100);
    const benchUsage = process.cpuUsage(bench0);
    const benchCpu = Math.round(((benchUsage.user + benchUsage.system) / 1e6 / cpuSeconds) * 100);

    const histogram = new Uint32Array(BUCKETS);
    const fromDue = new Uint32Array(BUCKETS);
    const seqLatencySum = new Float64Array(total);
    let measured = 0;
    let maxLatency = 0;
    let missed = 0;
    let duplicates = 0;
    let unparsable = 0;
    let ended = 0;
    for (const r of results) {
      for (let b = 0; b < BUCKETS; b++) {
        histogram[b] += r.histogram[b];
        fromDue[b] += r.fromDue[b];
      }
      for (let s = 0; s < total; s++) seqLatencySum[s] += r.seqLatencySum[s];
      measured += r.measured;
      maxLatency = Math.max(maxLatency, r.maxLatency);
      missed += r.missed;
      duplicates += r.duplicates;
      unparsable += r.unparsable;
      ended += r.ended;
      // Duplicates and misses are rare and only seen under load: say which, where and at which rv.
      for (const line of r.anomalies) ctx.log(`watch-fanout: thread ${results.indexOf(r)}, ${line}`);
    }
    const okMeasured = writeOk.subarray(WARM_UPDATES).reduce((a, b) => a + b, 0);
    // The server's CPU over the writes (warm-up included) and the drain, per event it delivered
    // to one watcher: what a delivery costs, writes and their etcd round trips included.
    const delivered = writeOk.reduce((a, b) => a + b, 0) * watchers - missed;
    const cpuUsPerEvent = delivered > 0 && Number.isFinite(serverCpuSeconds) ? (serverCpuSeconds * 1e6) / delivered : undefined;
    // Mean latency per tenth of the measured updates: does a backlog build up, or is it spread?
    const tenths = [];
    for (let t = 0; t < 10 && updates >= 10; t++) {
      let sum = 0;
      let n = 0;
      for (let s = WARM_UPDATES + Math.floor((t * updates) / 10); s < WARM_UPDATES + Math.floor(((t + 1) * updates) / 10); s++) {
        sum += seqLatencySum[s];
        n += writeOk[s] * watchers;
      }
      tenths.push(n > 0 ? (sum / n).toFixed(1) : '-');
    }
    const p50 = histogramQuantile(histogram, measured, 0.5);
    const p99 = histogramQuantile(histogram, measured, 0.99);
    const p99FromDue = histogramQuantile(fromDue, measured, 0.99);
    const writeRate = okMeasured / ((writesDone - measuredStart) / 1000);
    updateMs.sort((a, b) => a - b);
    const updateMean = updateMs.reduce((a, b) => a + b, 0) / Math.max(1, updateMs.length);
    const updateP99 = updateMs[Math.min(updateMs.length - 1, Math.floor(updateMs.length * 0.99))] ?? 0;
    const summary =
      `${okMeasured}/${updates} measured writes ok at ${writeRate.toFixed(0)}/s (+${WARM_UPDATES} warm-up), ` +
      `${measured}/${okMeasured * watchers} measured events, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ` +
      `max ${maxLatency.toFixed(1)} ms, p99 from the due time ${p99FromDue.toFixed(1)} ms, missed ${missed}, duplicates ${duplicates}, streams ended ${ended}; ` +
      `update round trip mean ${updateMean.toFixed(2)} ms, p99 ${updateP99.toFixed(2)} ms; ` +
      `cpu: server ${serverCpu}%${cpuUsPerEvent === undefined ? '' : ` (${cpuUsPerEvent.toFixed(1)} µs per delivered event)`}, bench ${benchCpu}%`;
    const fail = [
      missed > 0 ? `${missed} events missed` : '',
      opened + late < watchers ? `only ${opened + late}/${watchers} watches opened` : '',
      writeErrors > 0 ? `${writeErrors} writes failed (first: ${firstWriteError})` : '',
      issued < total ? `time cap hit after ${issued}/${total} writes` : '',
      unparsable > 0 ? `${unparsable} unparsable lines` : '',
      measured === 0 ? 'no events received' : '',
    ].filter(Boolean).join('; ');
    return { opened, late, okMeasured, writeRate, measured, p50, p99, p99FromDue, maxLatency, missed, stalls, tenths, summary, fail, serverCpu, benchCpu, cpuUsPerEvent };
  } finally {
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}
