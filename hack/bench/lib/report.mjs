// Result entries, the human table and the final JSON line.

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
 */
export function result({ value, unit, baseline, kind, budget, fail, note, extra = {} }) {
  let ratio = null;
  if (value !== null && baseline !== null && Number.isFinite(value) && Number.isFinite(baseline) && value > 0 && baseline > 0) {
    if (kind === 'throughput') ratio = value / baseline;
    else if (kind === 'latency') ratio = baseline / value;
    else if (kind === 'memory') ratio = baseline / value;
    else throw new Error(`unknown ratio kind ${kind}`);
  }
  const ok = ratio !== null && ratio >= budget && !fail;
  const notes = [fail, note].filter(Boolean).join('; ');
  return { value: round(value), unit, baseline: round(baseline), ratio: ratio === null ? null : Number(ratio.toFixed(3)), budget, ok, ...extra, ...(notes ? { note: notes } : {}) };
}

/** A result for a workload that could not run at all. */
export function failed(unit, budget, reason) {
  return { value: null, unit, baseline: null, ratio: null, budget, ok: false, note: reason };
}

/** The human table: one row per workload, notes below. */
export function formatTable(workloads) {
  const header = ['workload', 'value', 'unit', 'baseline', 'ratio', 'budget', 'ok'];
  const rows = Object.entries(workloads).map(([name, r]) => [
    name,
    r.value === null ? '-' : String(r.value),
    r.unit,
    r.baseline === null ? '-' : String(r.baseline),
    r.ratio === null ? '-' : r.ratio.toFixed(3),
    `>= ${r.budget}`,
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
