// Keeps every generated file well under the 500 lines a file may have: an output too long for
// one file is cut into consecutive runs of its (sorted) messages or definitions.

/** The most lines one generated file gets, its header and imports included. */
export const MAX_LINES = 400;

/**
 * Cuts `items` (kept in order) into consecutive runs whose lines (`linesOf(item)`) add up to at
 * most `budget` each, as few as that allows and of about even length. An item longer than the
 * budget on its own gets a run of its own.
 */
export function cutIntoRuns(items, linesOf, budget) {
  // As few runs as the budget allows, of about even length: the smallest budget giving no more.
  const count = greedyRuns(items, linesOf, budget).length;
  const total = items.reduce((sum, item) => sum + linesOf(item), 0);
  for (let even = Math.ceil(total / count); even < budget; even++) {
    const runs = greedyRuns(items, linesOf, even);
    if (runs.length <= count) return runs;
  }
  return greedyRuns(items, linesOf, budget);
}

/** Fills each run up to `budget` lines before starting the next. */
function greedyRuns(items, linesOf, budget) {
  const runs = [];
  let run = [];
  let lines = 0;
  for (const item of items) {
    const n = linesOf(item);
    if (run.length && lines + n > budget) {
      runs.push(run);
      run = [];
      lines = 0;
    }
    run.push(item);
    lines += n;
  }
  if (run.length || !runs.length) runs.push(run);
  return runs;
}

/** The file names of `count` runs of `base`: `base` for a single one, else `base-1`, `base-2`, ... */
export function runNames(base, count) {
  return count === 1 ? [base] : Array.from({ length: count }, (_, i) => `${base}-${i + 1}`);
}
