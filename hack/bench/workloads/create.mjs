// create: 64 clients creating ConfigMaps through the API, against raw etcd transactional creates
// (compare create revision = 0, then put) of the same bytes through the same etcd client.
import { runLoad, describeRun, warmOps } from '../lib/load.mjs';
import { compactNow, configMapBody, objectName, storedConfigMapBytes, deletePrefix } from '../lib/objects.mjs';
import { result } from '../lib/report.mjs';
import { BUDGETS, CPU_BUDGETS } from '../lib/budgets.mjs';

export const CREATE_NAMESPACE = 'bench-create';
const RAW_PREFIX = '/bench-raw/create/';

export async function runCreate(ctx) {
  const total = ctx.count(20_000);
  const warm = warmOps(total);
  const ns = CREATE_NAMESPACE;
  await ctx.prepareNamespace(ns);

  const rawValues = Array.from({ length: total + warm }, (_, i) => storedConfigMapBytes(ns, objectName('cm', i)));
  const rawCreate = async (i) => {
    const key = Buffer.from(RAW_PREFIX + objectName('cm', i));
    const res = await ctx.etcd.kv.txn({
      compare: [{ key, target: 'Create', result: 'Equal', create_revision: 0 }],
      success: [{ request_put: { key, value: rawValues[i] } }],
      failure: [],
    });
    if (!res.succeeded) throw new Error(`raw create ${key}: exists`);
  };
  await runLoad({ total: warm, concurrency: ctx.concurrency, timeCapMs: 30_000, op: (i) => rawCreate(total + i) });
  let cpu = await ctx.cpuProbe();
  const base = await runLoad({ total, concurrency: ctx.concurrency, timeCapMs: 60_000, op: rawCreate });
  // The CPU floor: etcd's own CPU per raw transactional create.
  const baseCpu = await cpu(base.done);
  ctx.log(`create baseline (raw etcd txn): ${describeRun(base)}; ${baseCpu.text}`);

  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const bodies = Array.from({ length: total + warm }, (_, i) =>
    JSON.stringify(configMapBody(ns, i < total ? objectName('cm', i) : objectName('warm', i - total))),
  );
  const apiCreate = async (i) => {
    const res = await ctx.api.request('POST', path, bodies[i]);
    if (res.status !== 201) throw new Error(`POST ${path}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
  };
  cpu = await ctx.cpuProbe();
  const warmRun = await runLoad({ total: warm, concurrency: ctx.concurrency, timeCapMs: ctx.capMs(90_000), op: (i) => apiCreate(total + i) });
  const warmCpu = await cpu(warmRun.done);
  ctx.log(`create warm-up (API, not measured): ${describeRun(warmRun)}; ${warmCpu.text}`);
  cpu = await ctx.cpuProbe();
  const run = await runLoad({ total, concurrency: ctx.concurrency, timeCapMs: ctx.capMs(180_000), op: apiCreate });
  const cpuUse = await cpu(run.done);
  ctx.log(`create (API): ${describeRun(run)}; ${cpuUse.text}`);
  // The baseline's keys go only now: etcd 3.4 right after a range delete of 20,000 keys takes
  // several times the CPU per transaction (raw creates measured here: 3,631/s before, 1,495/s
  // after), which would have been charged to the API side alone; and compacted right away, so the
  // workloads after this one do not pay for the delete either (see compactNow).
  await deletePrefix(ctx.etcd, RAW_PREFIX);
  await compactNow(ctx.etcd);

  ctx.state.getNamespace = ns;
  ctx.state.getNames = Array.from({ length: total }, (_, i) => objectName('cm', i));
  return {
    create: result({
      value: run.opsPerSec,
      unit: 'ops/s',
      baseline: base.opsPerSec,
      kind: 'throughput',
      budget: BUDGETS.create,
      fail: problems(run, base),
      note: `${run.done}/${total} created in ${(run.elapsedMs / 1000).toFixed(1)} s after ${warmRun.done} warm-up creates${warmNote(warmCpu)}${cpuNote(cpuUse, baseCpu.etcdUsPerOp, 'etcd')}`,
      extra: { ...cpuExtra(cpuUse), ...(warmCpu.replicaUsPerOp === undefined ? {} : { warmCpuUsPerOp: Math.round(warmCpu.replicaUsPerOp) }) },
      cpu: cpuCheck(cpuUse, baseCpu.etcdUsPerOp, CPU_BUDGETS.create),
    }),
  };
}

/** Why a throughput comparison is not trustworthy: errors or a cap on either side. */
export function problems(run, base) {
  const out = [];
  if (run.errors > 0) out.push(`${run.errors} errors (first: ${run.firstError})`);
  if (run.capped) out.push('time cap hit');
  if (base.errors > 0) out.push(`baseline: ${base.errors} errors (first: ${base.firstError})`);
  if (base.capped) out.push('baseline: time cap hit');
  return out.join('; ') || undefined;
}

/** The replica's CPU per operation (and the floor's, named) for a result's note ('' when unknown). */
export function cpuNote(cpuUse, floorUs, floorName) {
  if (cpuUse.replicaUsPerOp === undefined) return '';
  const floor = floorUs === undefined ? '' : `, ${floorName} (floor) ${floorUs.toFixed(0)} µs/op`;
  return `; replica CPU ${cpuUse.replicaUsPerOp.toFixed(0)} µs/op${floor}`;
}

/** The replica's CPU per warm-up operation for a result's note ('' when unknown). */
function warmNote(warmCpu) {
  return warmCpu.replicaUsPerOp === undefined ? '' : ` (replica CPU ${warmCpu.replicaUsPerOp.toFixed(0)} µs each)`;
}

/** The CPU check of a result (report.mjs `result({cpu})`) in µs per operation. */
export function cpuCheck(cpuUse, floorUs, budget) {
  return { server: cpuUse.replicaUsPerOp, floor: floorUs, budget, key: 'cpuUsPerOp' };
}

/** The replica's CPU per operation as a JSON field of a result (µs). */
export function cpuExtra(cpuUse) {
  return cpuUse.replicaUsPerOp === undefined ? {} : { cpuUsPerOp: Math.round(cpuUse.replicaUsPerOp) };
}
