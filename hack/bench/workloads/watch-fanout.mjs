// watch-fanout: W watchers on one object, U updates at a fixed rate. Each update carries its
// issue time in its data; the latency of an event is its receive time minus that issue time,
// both read from the same clock in this process. Value: p99 latency; every watcher must get
// every update (missed events make ok=false).
import { Agent, request } from 'node:https';
import { performance } from 'node:perf_hooks';
import { ensureNamespace } from '../lib/http-client.mjs';
import { PAYLOAD_1K } from '../lib/objects.mjs';
import { result, failed } from '../lib/report.mjs';

const NS = 'bench-watch';
const NAME = 'fanout';
const RATE_PER_SEC = 200;
const TARGET_P99_MS = 40;
const OPEN_CONCURRENCY = 50;
const MAX_OUTSTANDING_WRITES = 256;
const DRAIN_CAP_MS = 15_000;
const SEQ_KEY = '"bench-seq":"';
const TS_KEY = '"bench-ts":"';
/** Latency histogram: 0.1 ms buckets up to 60 s (later ones go to the last bucket). */
const BUCKET_MS = 0.1;
const BUCKETS = 600_000;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function objectBody(seq, ts) {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: NAME, namespace: NS },
    data: { 'bench-seq': String(seq), 'bench-ts': ts.toFixed(3), payload: PAYLOAD_1K },
  });
}

/** Reads a quoted string value following `key` inside line [from, to); undefined when absent. */
function field(text, key, from, to) {
  const at = text.indexOf(key, from);
  if (at === -1 || at >= to) return undefined;
  const start = at + key.length;
  return text.slice(start, text.indexOf('"', start));
}

export async function runWatchFanout(ctx) {
  const watchers = ctx.count(1_000);
  const updates = ctx.count(2_000);
  const unit = 'ms (p99)';
  await ensureNamespace(ctx.api, NS);
  const created = await ctx.api.request('POST', `/api/v1/namespaces/${NS}/configmaps`, objectBody(-1, 0));
  if (created.status !== 201 && created.status !== 409) {
    return { 'watch-fanout': failed(unit, 1, `create watched object: HTTP ${created.status}`) };
  }
  const current = await ctx.api.json('GET', `/api/v1/namespaces/${NS}/configmaps/${NAME}`);
  const rv = current.metadata.resourceVersion;
  const path = `/api/v1/namespaces/${NS}/configmaps?watch=true&fieldSelector=metadata.name%3D${NAME}&resourceVersion=${rv}`;
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity, ca: ctx.replica.ca });
  const headers = { Accept: 'application/json', Authorization: `Bearer ${ctx.replica.token}` };

  const received = new Uint32Array(watchers);
  const seen = new Uint8Array(watchers * updates);
  const histogram = new Uint32Array(BUCKETS);
  let samples = 0;
  let maxLatency = 0;
  let duplicates = 0;
  let unparsable = 0;
  let ended = 0;
  const requests = [];

  const onLine = (w, text, from, to, at) => {
    if (to - from < 2) return;
    let seqText = field(text, SEQ_KEY, from, to);
    let tsText = field(text, TS_KEY, from, to);
    if (seqText === undefined) {
      // Not our compact JSON (or not a MODIFIED event of ours): parse it properly.
      try {
        const ev = JSON.parse(text.slice(from, to));
        if (ev.type !== 'MODIFIED') return;
        seqText = ev.object?.data?.['bench-seq'];
        tsText = ev.object?.data?.['bench-ts'];
      } catch {
        unparsable++;
        return;
      }
    }
    const seq = Number(seqText);
    if (!Number.isInteger(seq) || seq < 0 || seq >= updates) return;
    const slot = w * updates + seq;
    if (seen[slot]) {
      duplicates++;
      return;
    }
    seen[slot] = 1;
    received[w]++;
    const latency = at - Number(tsText);
    samples++;
    if (latency > maxLatency) maxLatency = latency;
    histogram[Math.min(BUCKETS - 1, Math.max(0, Math.floor(latency / BUCKET_MS)))]++;
  };

  /** How long an open waits for response headers; short once the probe showed they come late. */
  let openWaitMs = 10_000;
  /** Opens watcher w; resolves with its HTTP status once headers arrive (0 after openWaitMs). */
  const open = (w) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ status: 0 }), openWaitMs);
      const req = request({ host: ctx.replica.host, port: ctx.replica.port, path, headers, agent }, (res) => {
        clearTimeout(timer);
        if (res.statusCode !== 200) {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let message = text.slice(0, 200);
            try {
              message = JSON.parse(text).message ?? message;
            } catch {
              // not a Status: keep the raw start of the body
            }
            resolve({ status: res.statusCode, body: message });
          });
          return;
        }
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk) => {
          const at = now();
          buf += chunk;
          let from = 0;
          for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n', from)) {
            onLine(w, buf, from, nl, at);
            from = nl + 1;
          }
          if (from > 0) buf = buf.slice(from);
        });
        res.on('end', () => ended++);
        res.on('error', () => {});
        resolve({ status: 200 });
      });
      req.on('error', () => resolve({ status: -1 }));
      req.end();
      requests.push(req);
    });

  try {
    const probe = await open(0);
    // Headers that only come with the first event: keep those watchers, stop waiting for them.
    if (probe.status === 0) openWaitMs = 100;
    if (probe.status !== 200 && probe.status !== 0) {
      const why = probe.status === -1 ? 'connection error' : `HTTP ${probe.status}: ${probe.body}`;
      return { 'watch-fanout': failed(unit, 1, `watch endpoint unavailable (${why})`) };
    }
    // Open the rest a batch at a time so the TLS handshakes do not all land at once.
    const openDeadline = performance.now() + ctx.capMs(60_000);
    let opened = probe.status === 200 ? 1 : 0;
    let lateHeaders = probe.status === 0 ? 1 : 0;
    let nextW = 1;
    const opener = async () => {
      while (nextW < watchers && performance.now() < openDeadline) {
        const w = nextW++;
        const { status } = await open(w);
        if (status === 200) opened++;
        else if (status === 0) lateHeaders++;
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: OPEN_CONCURRENCY }, opener));
    ctx.log(`watch-fanout: ${opened}/${watchers} watches answered 200 (${lateHeaders} without headers yet) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await sleep(1_000);

    // Open loop: update i is issued at start + i/rate whatever the previous ones did.
    const cpu0 = process.cpuUsage();
    const writeOk = new Uint8Array(updates);
    let writeErrors = 0;
    let firstWriteError;
    let outstanding = 0;
    let behind = 0;
    let issued = 0;
    const inflight = new Set();
    const start = performance.now() + 100;
    const writeDeadline = start + (updates / RATE_PER_SEC) * 1000 + ctx.capMs(60_000);
    for (let seq = 0; seq < updates && performance.now() < writeDeadline; seq++) {
      const due = start + (seq * 1000) / RATE_PER_SEC;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      while (outstanding >= MAX_OUTSTANDING_WRITES) {
        behind++;
        await Promise.race(inflight);
      }
      outstanding++;
      issued++;
      const p = ctx.api
        .request('PUT', `/api/v1/namespaces/${NS}/configmaps/${NAME}`, objectBody(seq, now()))
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
          outstanding--;
          inflight.delete(p);
        });
      inflight.add(p);
    }
    await Promise.all(inflight);
    const writesDone = performance.now();
    const writtenOk = writeOk.reduce((a, b) => a + b, 0);
    const expected = writtenOk * watchers;
    const drainDeadline = writesDone + DRAIN_CAP_MS;
    while (samples < expected && performance.now() < drainDeadline) await sleep(50);
    const cpu = process.cpuUsage(cpu0);
    const windowS = (performance.now() - start) / 1000;

    let missed = 0;
    for (let w = 0; w < watchers; w++) {
      for (let seq = 0; seq < updates; seq++) if (writeOk[seq] && !seen[w * updates + seq]) missed++;
    }
    const q = (p) => {
      if (samples === 0) return NaN;
      const rank = Math.ceil(p * samples);
      let acc = 0;
      for (let b = 0; b < BUCKETS; b++) {
        acc += histogram[b];
        if (acc >= rank) return (b + 1) * BUCKET_MS;
      }
      return maxLatency;
    };
    const p50 = q(0.5);
    const p99 = q(0.99);
    const writeRate = writtenOk / ((writesDone - start) / 1000);
    const benchCpu = ((cpu.user + cpu.system) / 1e6 / windowS) * 100;
    ctx.log(
      `watch-fanout: ${writtenOk}/${updates} writes ok at ${writeRate.toFixed(0)}/s, ${samples}/${expected} events, ` +
        `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${maxLatency.toFixed(1)} ms, missed ${missed}, ` +
        `duplicates ${duplicates}, streams ended ${ended}, load generator cpu ${benchCpu.toFixed(0)}% of a core`,
    );
    const fail = [
      missed > 0 ? `${missed} events missed` : '',
      opened + lateHeaders < watchers ? `only ${opened + lateHeaders}/${watchers} watches opened` : '',
      writeErrors > 0 ? `${writeErrors} writes failed (first: ${firstWriteError})` : '',
      issued < updates ? `time cap hit after ${issued}/${updates} writes` : '',
      unparsable > 0 ? `${unparsable} unparsable lines` : '',
    ].filter(Boolean).join('; ');
    return {
      'watch-fanout': result({
        value: samples > 0 ? p99 : null,
        unit,
        baseline: TARGET_P99_MS,
        kind: 'latency',
        budget: 1,
        fail: fail || (samples === 0 ? 'no events received' : undefined),
        note:
          `${watchers} watchers x ${writtenOk} updates at ${writeRate.toFixed(0)}/s; p50 ${p50.toFixed(1)} ms, ` +
          `max ${maxLatency.toFixed(1)} ms; load generator ${benchCpu.toFixed(0)}% of a core` +
          (lateHeaders > 0 ? `; ${lateHeaders} watches got no response headers within ${openWaitMs} ms` : '') +
          (behind > 0 ? `; writer stalled ${behind} times on ${MAX_OUTSTANDING_WRITES} outstanding writes` : ''),
        extra: { missed },
      }),
    };
  } finally {
    for (const req of requests) req.destroy();
    agent.destroy();
  }
}
