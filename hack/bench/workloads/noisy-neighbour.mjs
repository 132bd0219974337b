// noisy-neighbour (issue 30): one service account lists a namespace of 3,000 1 KiB ConfigMaps
// from 48 connections (`resourceVersion=0`, each list the whole namespace; a 429 is retried after
// its Retry-After, as client-go does) while the workload user GETs single objects of it from 4.
// Value: the quiet user's p99 GET latency during the flood; baseline: its p99 alone, in the same
// run; ratio = baseline / value (budget 1/3: the flood may at most triple the quiet p99). The note
// gives the flood's own service (lists answered per second, 429s), so a starved flood shows too.
// The flooding client runs in a worker thread (lib/flood-worker.mjs): its megabytes of answers
// would otherwise queue the quiet answers in the load generator's own event loop.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { HttpClient } from '../lib/http-client.mjs';
import { quantile } from '../lib/load.mjs';
import { objectName, putStoredConfigMaps } from '../lib/objects.mjs';
import { result } from '../lib/report.mjs';
import { BUDGETS } from '../lib/budgets.mjs';

const FLOOD_CONNECTIONS = 48;
const QUIET_CONNECTIONS = 4;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs `loops` closed loops of `op` until `until()` is false; returns each op's latency (ms) and status. */
async function loops(count, until, op) {
  const latencies = [];
  const statuses = new Map();
  await Promise.all(
    Array.from({ length: count }, async (_, w) => {
      for (let i = 0; until(); i++) {
        const t0 = performance.now();
        const status = await op(w, i);
        latencies.push(performance.now() - t0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return { latencies, statuses };
}

export async function runNoisyNeighbour(ctx) {
  const ns = 'bench-noisy';
  const n = ctx.count(3_000);
  const seconds = Math.max(5, Math.round(20 * ctx.scale));
  await ctx.prepareNamespace(ns);
  await putStoredConfigMaps(ctx.etcd, ns, 'cm', n);
  const listPath = `/api/v1/namespaces/${ns}/configmaps?resourceVersion=0`;
  for (let i = 0; i < 200; i++) {
    const r = await ctx.api.json('GET', listPath);
    if (r.items.length >= n) break;
    await sleep(100);
  }
  // The flooder: a service account of the namespace, allowed to list its ConfigMaps.
  const admin = ctx.admin;
  await admin.json('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'flooder' } });
  await admin.json('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'flooder' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bench-workload' },
    subjects: [{ kind: 'ServiceAccount', name: 'flooder', namespace: ns }],
  });
  const tr = await admin.json('POST', `/api/v1/namespaces/${ns}/serviceaccounts/flooder/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  const flood = new HttpClient({ host: ctx.replica.host, port: ctx.replica.port, ca: ctx.replica.ca, token: tr.status.token, maxSockets: FLOOD_CONNECTIONS });
  let worker;
  try {
    for (let i = 0; i < 100 && (await flood.request('GET', `${listPath}&limit=1`)).status !== 200; i++) await sleep(50);
    const quietGet = async (w, i) => (await ctx.api.request('GET', `/api/v1/namespaces/${ns}/configmaps/${objectName('cm', (w * 7919 + i * 104729) % n)}`)).status;
    const timed = async (label) => {
      const end = performance.now() + seconds * 1000;
      const r = await loops(QUIET_CONNECTIONS, () => performance.now() < end, quietGet);
      ctx.log(`noisy-neighbour: quiet ${label}: ${r.latencies.length} GETs, p50 ${quantile(r.latencies, 0.5).toFixed(1)} ms, p99 ${quantile(r.latencies, 0.99).toFixed(1)} ms, statuses ${JSON.stringify(Object.fromEntries(r.statuses))}`);
      return r;
    };
    await timed('warm-up');
    const cpuAlone = await ctx.cpuProbe();
    const alone = await timed('alone');
    const cpuAloneUse = await cpuAlone(alone.latencies.length);
    ctx.log(`noisy-neighbour: alone ${cpuAloneUse.text}`);
    flood.close();
    worker = new Worker(new URL('../lib/flood-worker.mjs', import.meta.url), {
      workerData: { host: ctx.replica.host, port: ctx.replica.port, ca: ctx.replica.ca, token: tr.status.token, path: listPath, connections: FLOOD_CONNECTIONS },
    });
    const floodRun = new Promise((resolve, reject) => {
      worker.once('error', reject);
      worker.on('message', (m) => {
        if (m.type === 'result') resolve({ statuses: new Map(m.statuses) });
      });
    });
    await sleep(1000);
    const cpuFlood = await ctx.cpuProbe();
    const floodStart = performance.now();
    const during = await timed('during the flood');
    worker.postMessage({ type: 'stop' });
    const f = await floodRun;
    await worker.terminate();
    worker = undefined;
    const floodSeconds = (performance.now() - floodStart) / 1000 + 1;
    const served = f.statuses.get(200) ?? 0;
    const rejected = f.statuses.get(429) ?? 0;
    // The flood phase's replica CPU per list served (the quiet GETs' share included: an upper bound).
    const cpuFloodUse = await cpuFlood(served);
    ctx.log(`noisy-neighbour: flood ${served} lists answered (${(served / floodSeconds).toFixed(1)}/s), ${rejected} 429s, statuses ${JSON.stringify(Object.fromEntries(f.statuses))}; ${cpuFloodUse.text.replace(/CPU\/op/g, 'CPU/list')}`);
    const p99Alone = quantile(alone.latencies, 0.99);
    const p99Flood = quantile(during.latencies, 0.99);
    const quietErrors = [...during.statuses.keys()].filter((s) => s !== 200);
    return {
      'noisy-neighbour': result({
        value: p99Flood,
        unit: 'ms (p99)',
        baseline: p99Alone,
        kind: 'latency',
        budget: BUDGETS['noisy-neighbour'],
        fail: served === 0 ? 'the flood was starved (no list answered)' : quietErrors.length ? `quiet GETs failed: ${quietErrors.join(', ')}` : undefined,
        note: `${n} ConfigMaps; ${FLOOD_CONNECTIONS} listing connections (service account) against ${QUIET_CONNECTIONS} getting ones for ${seconds} s; quiet p50 ${quantile(alone.latencies, 0.5).toFixed(1)} ms alone, ${quantile(during.latencies, 0.5).toFixed(1)} ms with the flood; flood ${(served / floodSeconds).toFixed(1)} lists/s, ${rejected} 429s`,
        // Replica CPU per quiet GET alone, and per flood list (the quiet GETs' share included).
        // No CPU budget: neither a floor nor an upstream figure for this workload.
        extra: {
          ...(cpuAloneUse.replicaUsPerOp === undefined ? {} : { cpuUsPerOp: Math.round(cpuAloneUse.replicaUsPerOp) }),
          ...(cpuFloodUse.replicaUsPerOp === undefined ? {} : { cpuMsPerFloodList: Number((cpuFloodUse.replicaUsPerOp / 1000).toFixed(2)) }),
        },
      }),
    };
  } finally {
    flood.close();
    await worker?.terminate();
  }
}
