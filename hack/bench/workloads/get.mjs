// get and get-cached: 64 clients reading random existing ConfigMaps by name.
// get: quorum reads, against raw etcd gets plus JSON.parse through the same etcd client.
// get-cached: resourceVersion=0 reads, against a bare Node HTTPS server answering a fixed body.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runLoad, describeRun } from '../lib/load.mjs';
import { HttpClient } from '../lib/http-client.mjs';
import { configMapPrefix, objectName, putStoredConfigMaps } from '../lib/objects.mjs';
import { startBareServer } from '../lib/processes.mjs';
import { result } from '../lib/report.mjs';
import { problems, cpuNote, cpuExtra, cpuCheck } from './create.mjs';
import { BUDGETS, CPU_BUDGETS } from '../lib/budgets.mjs';

/** Deterministic random indexes so every side of a comparison reads the same sequence. */
function randomIndexes(count, max, seed) {
  let s = seed >>> 0;
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) % max) >>> 0;
  }
  return out;
}

/** The objects to read: the ones `create` made, or (when it did not run) fresh ones put into etcd. */
async function readTargets(ctx) {
  if (!ctx.state.getNames) {
    const ns = 'bench-get';
    const n = ctx.count(20_000);
    await ctx.prepareNamespace(ns);
    await putStoredConfigMaps(ctx.etcd, ns, 'cm', n);
    ctx.state.getNamespace = ns;
    ctx.state.getNames = Array.from({ length: n }, (_, i) => objectName('cm', i));
  }
  return { ns: ctx.state.getNamespace, names: ctx.state.getNames };
}

/** etcd's count of ranges served (its own /metrics), or undefined when it cannot be read. */
async function etcdRanges(ctx) {
  if (!ctx.etcdEndpoint) return undefined;
  try {
    const text = await (await fetch(`${ctx.etcdEndpoint}/metrics`)).text();
    const m = /^etcd_mvcc_range_total (\S+)$/m.exec(text);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `op` (after a warm-up) and reads CPU around it; `floorPid`: a floor server's process. */
async function measure(ctx, op, floorPid) {
  const total = ctx.count(20_000);
  const warm = Math.max(100, Math.round(total / 20));
  await runLoad({ total: warm, concurrency: ctx.concurrency, timeCapMs: 30_000, op: (i) => op(i + total) });
  const cpu = await ctx.cpuProbe(floorPid);
  const ranges0 = await etcdRanges(ctx);
  const run = await runLoad({ total, concurrency: ctx.concurrency, timeCapMs: ctx.capMs(60_000), op });
  const ranges1 = await etcdRanges(ctx);
  // etcd requests per read: what sharing revision reads saves (other clients' ranges count too).
  const rangesPerOp = ranges0 !== undefined && ranges1 !== undefined && run.done > 0 ? (ranges1 - ranges0) / run.done : undefined;
  return { ...run, cpu: await cpu(run.done), rangesPerOp };
}

export async function runGet(ctx) {
  const { ns, names } = await readTargets(ctx);
  const total = ctx.count(20_000);
  const idx = randomIndexes(total * 2 + 200, names.length, 42);

  const rawGet = async (i) => {
    const res = await ctx.etcd.kv.range({ key: Buffer.from(configMapPrefix(ns) + names[idx[i]]) });
    const kv = res.kvs[0];
    if (!kv) throw new Error(`raw get ${names[idx[i]]}: not found`);
    JSON.parse(kv.value.toString('utf8'));
  };
  const base = await measure(ctx, rawGet);
  ctx.log(`get baseline (raw etcd range + JSON.parse): ${describeRun(base)}; ${base.cpu.text}`);

  const apiGet = async (i) => {
    const path = `/api/v1/namespaces/${ns}/configmaps/${names[idx[i]]}`;
    const res = await ctx.api.request('GET', path);
    if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}`);
    JSON.parse(res.body.toString('utf8'));
  };
  const run = await measure(ctx, apiGet);
  const perGet = run.rangesPerOp === undefined ? undefined : `${run.rangesPerOp.toFixed(3)} etcd ranges per get`;
  ctx.log(`get (API, quorum): ${describeRun(run)}; ${run.cpu.text}${perGet ? `; ${perGet}` : ''}`);
  return {
    // The CPU floor: etcd's own CPU per raw range (the baseline's JSON.parse is the client's).
    get: result({
      value: run.opsPerSec,
      unit: 'ops/s',
      baseline: base.opsPerSec,
      kind: 'throughput',
      budget: BUDGETS.get,
      fail: problems(run, base),
      note: `${perGet ?? ''}${cpuNote(run.cpu, base.cpu.etcdUsPerOp, 'etcd')}`.replace(/^; /, '') || undefined,
      extra: cpuExtra(run.cpu),
      cpu: cpuCheck(run.cpu, base.cpu.etcdUsPerOp, CPU_BUDGETS.get),
    }),
  };
}

export async function runGetCached(ctx) {
  const { ns, names } = await readTargets(ctx);
  const total = ctx.count(20_000);
  const idx = randomIndexes(total * 2 + 200, names.length, 7);
  const apiGet = async (client, i) => {
    const path = `/api/v1/namespaces/${ns}/configmaps/${names[idx[i]]}?resourceVersion=0`;
    const res = await client.request('GET', path);
    if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}`);
    JSON.parse(res.body.toString('utf8'));
  };

  // The bare server answers the very body the API serves for one of these objects.
  const sample = await ctx.api.request('GET', `/api/v1/namespaces/${ns}/configmaps/${names[0]}`);
  if (sample.status !== 200) throw new Error(`GET sample object: HTTP ${sample.status}`);
  const bodyFile = join(ctx.tmpDir, 'bare-body.json');
  await writeFile(bodyFile, sample.body);
  const bare = await startBareServer({ certFile: ctx.replica.certFile, keyFile: ctx.replica.keyFile, bodyFile });
  let base;
  try {
    const client = new HttpClient({ host: '127.0.0.1', port: bare.port, ca: ctx.replica.ca, clientCert: ctx.replica.clientCert, maxSockets: ctx.concurrency });
    base = await measure(ctx, (i) => apiGet(client, i), bare.pid);
    client.close();
  } finally {
    await bare.stop();
  }
  ctx.log(`get-cached baseline (bare HTTPS server, ${sample.body.length} B body): ${describeRun(base)}; ${base.cpu.text}`);

  const run = await measure(ctx, (i) => apiGet(ctx.api, i));
  ctx.log(`get-cached (API, resourceVersion=0): ${describeRun(run)}; ${run.cpu.text}`);
  return {
    // The CPU floor: the bare server's own CPU per request.
    'get-cached': result({
      value: run.opsPerSec,
      unit: 'ops/s',
      baseline: base.opsPerSec,
      kind: 'throughput',
      budget: BUDGETS['get-cached'],
      fail: problems(run, base),
      note: cpuNote(run.cpu, base.cpu.floorUsPerOp, 'bare server').replace(/^; /, '') || undefined,
      extra: cpuExtra(run.cpu),
      cpu: cpuCheck(run.cpu, base.cpu.floorUsPerOp, CPU_BUDGETS['get-cached']),
    }),
  };
}
