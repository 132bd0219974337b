// A worker thread of the watch-fanout load generator: opens its share of the watch streams,
// timestamps every event on arrival and keeps a latency histogram. Spreading the watchers over
// threads keeps the load generator from being the bottleneck (each event is one TLS record to
// decrypt and parse per watcher).
//
// Protocol with the main thread: workerData {host, port, ca, clientCert, path, watchers, total, warm,
// openConcurrency, openWaitMs, protocol ('h2' or 'http1'), streamsPerConnection}; posts {type:'opened', opened, late}; receives
// {type:'schedule', startMs, ratePerSec} (update i is due at startMs + i * 1000 / ratePerSec on
// watch-clock's clock), then {type:'finish', writeOk, drainMs}; posts {type:'result', ...} and exits.
import { Agent, request } from 'node:https';
import { connect } from 'node:http2';
import { parentPort, workerData } from 'node:worker_threads';
import { BUCKETS, BUCKET_MS, nowMs } from './watch-clock.mjs';

const { host, port, ca, clientCert, path, watchers, total, warm, openConcurrency, openWaitMs, protocol, streamsPerConnection } = workerData;
const SEQ_KEY = Buffer.from('"bench-seq":"');
const TS_KEY = Buffer.from('"bench-ts":"');
const RV_KEY = Buffer.from('"resourceVersion":"');
const QUOTE = 0x22;
const NL = 0x0a;

// Watchers authenticate with the workload user's client certificate (see run.mjs).
const agent = new Agent({ keepAlive: false, maxSockets: Infinity, ca, ...clientCert });
const headers = { Accept: 'application/json' };
/**
 * Per watcher and update: 0 until its event arrives, then the event's resourceVersion (-1 when it
 * has none). Kept rather than a flag so that a duplicate can say whether the server sent the same
 * event twice (same resourceVersion) or another revision carrying the same update's data.
 */
const firstRv = new Float64Array(watchers * total);
/** The update each watcher received last, for the anomaly report (-1: none yet). */
const lastSeq = new Int32Array(watchers).fill(-1);
/**
 * Details of the first duplicates and of the first misses, and both counted per connection, so
 * that a rare failed run says what happened: which updates, on which connections, at which rv.
 */
const duplicateDetails = [];
const duplicatesBy = new Map();
const MAX_DETAILS = 3;
const received = new Uint32Array(watchers);
const histogram = new Uint32Array(BUCKETS);
/** Latency from each update's due time (the writer's schedule), not from when it was issued. */
const fromDue = new Uint32Array(BUCKETS);
/** The writer's schedule ({startMs, ratePerSec}), posted before the first update. */
let schedule;
const seqLatencySum = new Float64Array(total);
const requests = [];
let samples = 0;
let measured = 0;
let maxLatency = 0;
let duplicates = 0;
let unparsable = 0;
let ended = 0;

/** The quoted value after `key` in buf[from, to) as a number; NaN when absent. */
function numberAfter(buf, key, from, to) {
  const at = buf.indexOf(key, from);
  if (at === -1 || at >= to) return NaN;
  const start = at + key.length;
  const end = buf.indexOf(QUOTE, start);
  return Number(buf.toString('latin1', start, end));
}

function onLine(w, buf, from, to, at) {
  if (to - from < 2) return;
  let seq = numberAfter(buf, SEQ_KEY, from, to);
  let ts = numberAfter(buf, TS_KEY, from, to);
  if (Number.isNaN(seq)) {
    // Not compact JSON with our fields (or another event type): parse it properly.
    try {
      const ev = JSON.parse(buf.toString('utf8', from, to));
      if (ev.type !== 'MODIFIED') return;
      seq = Number(ev.object?.data?.['bench-seq']);
      ts = Number(ev.object?.data?.['bench-ts']);
    } catch {
      unparsable++;
      return;
    }
  }
  if (!Number.isInteger(seq) || seq < 0 || seq >= total) return;
  const slot = w * total + seq;
  const rv = numberAfter(buf, RV_KEY, from, to);
  const previous = lastSeq[w];
  lastSeq[w] = seq;
  if (firstRv[slot] !== 0) {
    duplicates++;
    duplicatesBy.set(connectionOf(w), (duplicatesBy.get(connectionOf(w)) ?? 0) + 1);
    if (duplicateDetails.length < MAX_DETAILS) {
      duplicateDetails.push(`watcher ${w} (connection ${connectionOf(w)}): update ${seq} again at rv ${rv} (first at rv ${firstRv[slot]}), after update ${previous}`);
    }
    return;
  }
  firstRv[slot] = Number.isNaN(rv) ? -1 : rv;
  received[w]++;
  samples++;
  if (seq < warm) return;
  const latency = at - ts;
  measured++;
  seqLatencySum[seq] += latency;
  if (latency > maxLatency) maxLatency = latency;
  histogram[bucketOf(latency)]++;
  // Before the schedule arrives (it is posted before the first update) the issue time stands in.
  fromDue[bucketOf(schedule ? at - (schedule.startMs + (seq * 1000) / schedule.ratePerSec) : latency)]++;
}

function bucketOf(latencyMs) {
  return Math.min(BUCKETS - 1, Math.max(0, Math.floor(latencyMs / BUCKET_MS)));
}

/** The index of watcher w's HTTP/2 connection in this thread (its own connection over HTTP/1.1). */
function connectionOf(w) {
  return protocol === 'http1' ? w : Math.floor(w / streamsPerConnection);
}

/** The data handler of watcher w: splits the stream into lines and records each event. */
function lineReader(w) {
  let pending;
  return (chunk) => {
    const at = nowMs();
    let buf = chunk;
    if (pending) {
      buf = Buffer.concat([pending, chunk]);
      pending = undefined;
    }
    let from = 0;
    for (let nl = buf.indexOf(NL); nl !== -1; nl = buf.indexOf(NL, from)) {
      onLine(w, buf, from, nl, at);
      from = nl + 1;
    }
    if (from < buf.length) pending = buf.subarray(from);
  };
}

/** Opens watcher w over HTTP/1.1 (a connection of its own); resolves with its status once headers arrive (0 after openWaitMs, -1 on error). */
function openHttp1(w) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(0), openWaitMs);
    const req = request({ host, port, path, headers, agent }, (res) => {
      clearTimeout(timer);
      if (res.statusCode !== 200) {
        res.resume();
        resolve(res.statusCode);
        return;
      }
      res.on('data', lineReader(w));
      res.on('end', () => ended++);
      res.on('error', () => {});
      resolve(200);
    });
    req.on('error', () => resolve(-1));
    req.end();
    requests.push(req);
  });
}

// HTTP/2 as client-go does it: the watches of one client share a connection. Window sizes are
// Go's transport defaults (4 MiB per stream, 1 GiB per connection).
const STREAM_WINDOW = 4 << 20;
const CONNECTION_WINDOW = 1 << 30;
const sessions = [];
function sessionFor(w) {
  const i = Math.floor(w / streamsPerConnection);
  if (!sessions[i]) {
    const session = connect(`https://${host}:${port}`, { ca, ...clientCert, settings: { initialWindowSize: STREAM_WINDOW } });
    session.on('error', () => {});
    session.on('connect', () => session.setLocalWindowSize(CONNECTION_WINDOW));
    sessions[i] = session;
  }
  return sessions[i];
}

/** Opens watcher w as a stream of a shared HTTP/2 connection; resolves like openHttp1. */
function openHttp2(w) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(0), openWaitMs);
    const req = sessionFor(w).request({ ':path': path, accept: headers.Accept }, { endStream: true });
    req.on('response', (h) => {
      clearTimeout(timer);
      const status = Number(h[':status']);
      if (status !== 200) {
        req.resume();
        resolve(status);
        return;
      }
      resolve(200);
    });
    req.on('data', lineReader(w));
    req.on('end', () => ended++);
    req.on('error', () => resolve(-1));
    requests.push(req);
  });
}

const open = protocol === 'http1' ? openHttp1 : openHttp2;

let opened = 0;
let late = 0;
let next = 0;
const opener = async () => {
  while (next < watchers) {
    const status = await open(next++);
    if (status === 200) opened++;
    else if (status === 0) late++;
  }
};
await Promise.all(Array.from({ length: Math.min(openConcurrency, watchers) }, opener));
parentPort.postMessage({ type: 'opened', opened, late });

parentPort.on('message', async (msg) => {
  if (msg.type === 'schedule') schedule = msg;
  if (msg.type !== 'finish') return;
  const writeOk = msg.writeOk;
  let okWrites = 0;
  for (let seq = 0; seq < total; seq++) okWrites += writeOk[seq];
  const deadline = Date.now() + msg.drainMs;
  while (samples < okWrites * watchers && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  let missed = 0;
  const missedBy = new Map();
  const missedDetails = [];
  for (let w = 0; w < watchers; w++) {
    if (received[w] === okWrites) continue;
    for (let seq = 0; seq < total; seq++) {
      if (!writeOk[seq] || firstRv[w * total + seq] !== 0) continue;
      missed++;
      missedBy.set(connectionOf(w), (missedBy.get(connectionOf(w)) ?? 0) + 1);
      if (missedDetails.length < MAX_DETAILS) {
        const around = [seq - 1, seq + 1].map((s) => (s >= 0 && s < total ? `${s} at rv ${firstRv[w * total + s]}` : '-')).join(', ');
        missedDetails.push(`watcher ${w} (connection ${connectionOf(w)}): update ${seq} missed (neighbours: ${around})`);
      }
    }
  }
  const byConnection = (counts) => [...counts].map(([c, n]) => `${c}: ${n}`).join(', ');
  const anomalies = [...duplicateDetails, ...missedDetails];
  if (duplicatesBy.size > 0) anomalies.push(`duplicates by connection: ${byConnection(duplicatesBy)}`);
  if (missedBy.size > 0) anomalies.push(`missed events by connection: ${byConnection(missedBy)}`);
  for (const req of requests) req.destroy();
  for (const session of sessions) session.destroy();
  agent.destroy();
  parentPort.postMessage({ type: 'result', samples, measured, maxLatency, duplicates, unparsable, ended, missed, histogram, fromDue, seqLatencySum, anomalies });
  parentPort.close();
});
