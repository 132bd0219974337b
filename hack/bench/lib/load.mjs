// Closed-loop load: N workers each issue the next operation as soon as their previous one ends,
// until `total` operations are done or the time cap passes.
import { performance } from 'node:perf_hooks';

/**
 * Runs `op(i)` for i in [0, total) with `concurrency` workers. Stops early at `timeCapMs`.
 * @returns {Promise<{done: number, errors: number, firstError?: string, elapsedMs: number, opsPerSec: number, capped: boolean}>}
 */
export async function runLoad({ total, concurrency, timeCapMs, op }) {
  let next = 0;
  let done = 0;
  let errors = 0;
  let firstError;
  let capped = false;
  const start = performance.now();
  const deadline = start + timeCapMs;
  const worker = async () => {
    for (;;) {
      if (next >= total) return;
      if (performance.now() > deadline) {
        capped = true;
        return;
      }
      const i = next++;
      try {
        await op(i);
        done++;
      } catch (e) {
        errors++;
        firstError ??= e instanceof Error ? e.message : String(e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  const elapsedMs = performance.now() - start;
  return { done, errors, firstError, elapsedMs, opsPerSec: (done / elapsedMs) * 1000, capped };
}

/**
 * Operations run before a measured write phase (create), not measured: half the measured count.
 * A fresh replica of this server compiles its request path per worker (V8's optimizing compiler
 * on its helper threads, slower interpreted code until then): from a fresh replica, 2,000-create
 * batches cost 1,470, 800, 505, 470, 465, 420, 365, 370, 355, 350 µs of replica CPU each
 * (eighteenth session), so a 1 % warm-up charged ~4 s of compilation to the measured creates
 * (~200 µs each at scale 1). What a replica costs to run is its steady state; the warm-up's own
 * cost is still measured and reported beside it (`warmCpuUsPerOp`). Every server gets the same
 * warm-up (upstream's too, in a remote run).
 */
export function warmOps(total) {
  return Math.max(50, Math.round(total / 2));
}

/** One line about a load run: count, time, errors and whether the time cap hit. */
export function describeRun(run) {
  const parts = [`${run.done} ops in ${(run.elapsedMs / 1000).toFixed(1)} s`];
  if (run.errors > 0) parts.push(`${run.errors} errors (first: ${run.firstError})`);
  if (run.capped) parts.push('time cap hit');
  return parts.join(', ');
}

/** The q-quantile (0..1) of an unsorted array of numbers (nearest rank); NaN when empty. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[idx];
}

/** Runs `fn` `reps` times (bounded by `timeCapMs`) and returns the durations in ms. */
export async function timeRepeated({ reps, timeCapMs, fn }) {
  const durations = [];
  const deadline = performance.now() + timeCapMs;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await fn(i);
    durations.push(performance.now() - t0);
    if (performance.now() > deadline) break;
  }
  return durations;
}
