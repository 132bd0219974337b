// Result entries, the human table and the final JSON line.
import { cpuFields } from './cpu-budgets.mjs';

/** Rounds to 3 significant digits (keeps integers above 1000 whole). */
export function round(x) {
  if (x === null || !Number.isFinite(x)) return null;
  if (Math.abs(x) >= 1000) return Math.round(x);
  return Number(x.toPrecision(3));
}

/**
 * Builds one workload result. `kind` says how ratio is formed:
 * 'throughput' value/baseline, 'latency' baseline/value, 'memory' baseline/value (bytes of JSON
 * over RSS).
 * `fail` (a reason) forces ok=false, e.g. when a time cap hit or events were missed.
 * `cpu` ({server, floor, budget, key}: the replica's and the floor's CPU per operation, the CPU
 * budget and the JSON key of the replica's figure, e.g. 'cpuUsPerOp') adds the CPU check
 * (cpu-budgets.mjs): `ok` then also needs cpuRatio >= cpuBudget.
 */
export function result({ value, unit, baseline, kind, budget, fail, note, extra = {}, cpu }) {
  let ratio = null;
  if (value !== null && baseline !== null && Number.isFinite(value) && Number.isFinite(baseline) && value > 0 && baseline > 0) {
    if (kind === 'throughput') ratio = value / baseline;
    else if (kind === 'latency') ratio = baseline / value;
    else if (kind === 'memory') ratio = baseline / value;
    else throw new Error(`unknown ratio kind ${kind}`);
  }
  const cpuExtra = cpu ? cpuFields({ serverCpu: cpu.server, floorCpu: cpu.floor, budget: cpu.budget, floorKey: floorKeyOf(cpu.key) }) : {};
  const cpuMissed = cpuExtra.cpuOk === false;
  const ok = ratio !== null && ratio >= budget && !fail && !cpuMissed;
  const cpuNote = cpuMissed ? `CPU ratio ${cpuExtra.cpuRatio ?? 'unknown'} < budget ${cpuExtra.cpuBudget}` : '';
  const notes = [fail, cpuNote, note].filter(Boolean).join('; ');
  return { value: round(value), unit, baseline: round(baseline), ratio: ratio === null ? null : Number(ratio.toFixed(3)), budget, ok, ...extra, ...cpuExtra, ...(notes ? { note: notes } : {}) };
}

/** The JSON key of a floor's CPU figure: 'cpuUsPerOp' -> 'floorCpuUsPerOp'. */
export function floorKeyOf(key) {
  return `floor${key[0].toUpperCase()}${key.slice(1)}`;
}

/** A result's CPU per operation and the floor's, with their unit, or undefined. */
function cpuCells(r) {
  for (const [key, unit] of [['cpuUsPerOp', 'µs'], ['cpuMsPerList', 'ms'], ['cpuUsPerEvent', 'µs/ev']]) {
    if (r[key] !== undefined) return { server: `${r[key]} ${unit}`, floor: r[floorKeyOf(key)] === undefined ? '-' : `${r[floorKeyOf(key)]} ${unit}` };
  }
  return undefined;
}

/** A result for a workload that could not run at all. */
export function failed(unit, budget, reason) {
  return { value: null, unit, baseline: null, ratio: null, budget, ok: false, note: reason };
}

/** The human table: one row per workload, notes below. */
export function formatTable(workloads) {
  const header = ['workload', 'value', 'unit', 'baseline', 'ratio', 'budget', 'cpu', 'floor cpu', 'cpu ratio', 'cpu budget', 'ok'];
  const rows = Object.entries(workloads).map(([name, r]) => [
    name,
    r.value === null ? '-' : String(r.value),
    r.unit,
    r.baseline === null ? '-' : String(r.baseline),
    r.ratio === null ? '-' : r.ratio.toFixed(3),
    `>= ${r.budget}`,
    cpuCells(r)?.server ?? '-',
    cpuCells(r)?.floor ?? '-',
    r.cpuRatio === undefined || r.cpuRatio === null ? '-' : r.cpuRatio.toFixed(3),
    r.cpuBudget === undefined ? '-' : `>= ${r.cpuBudget}`,
    r.ok ? 'ok' : 'MISSED',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 || i === 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  const notes = Object.entries(workloads).filter(([, r]) => r.note);
  if (notes.length > 0) {
    out.push('', 'notes:');
    for (const [name, r] of notes) out.push(`  ${name}: ${r.note}`);
  }
  return out.join('\n');
}
