// CPU budgets (issue 33): the server's CPU per operation against a floor's CPU per operation
// measured in the same run, with budgets derived from a side-by-side run with upstream's
// kube-apiserver on the same machine. Pure functions; the budgets themselves are in budgets.mjs.
//
//   cpuRatio  = floor CPU per op / server CPU per op       (higher is better, as every ratio here)
//   budget    = (floor CPU per op / upstream CPU per op) x BEAT_UPSTREAM_BY
//
// both figures of the budget from one side-by-side run, so a server meeting it uses at most
// 1 / BEAT_UPSTREAM_BY of upstream's CPU for the operation, whatever the machine's speed (the
// floor moves with the machine).

/** How much less CPU than upstream a budget asks for: 1.5 means at most 0.67x upstream's. */
export const BEAT_UPSTREAM_BY = 1.5;

const positive = (x) => typeof x === 'number' && Number.isFinite(x) && x > 0;

/** floor / server CPU per operation, 3 decimals; null when either is unknown or not positive. */
export function cpuRatio(floorCpu, serverCpu) {
  if (!positive(floorCpu) || !positive(serverCpu)) return null;
  return Number((floorCpu / serverCpu).toFixed(3));
}

/**
 * The CPU budget (a minimum cpuRatio) from one side-by-side run: the floor's and upstream's CPU
 * per operation (same unit, same kind of operation), times `factor`. null when either is unknown.
 */
export function deriveCpuBudget(floorCpu, upstreamCpu, factor = BEAT_UPSTREAM_BY) {
  if (!positive(floorCpu) || !positive(upstreamCpu) || !positive(factor)) return null;
  return Number(((floorCpu / upstreamCpu) * factor).toFixed(3));
}

/**
 * The budget of several side-by-side rounds: the median of each round's derived budget (each
 * round's floor and upstream figures belong together: they saw the same machine within minutes).
 * `rounds` is a list of [floor, upstream]; null when no round gives a budget.
 */
export function medianBudget(rounds, factor = BEAT_UPSTREAM_BY) {
  const each = rounds.map(([floor, upstream]) => deriveCpuBudget(floor, upstream, factor)).filter((b) => b !== null);
  if (each.length === 0) return null;
  each.sort((a, b) => a - b);
  const mid = Math.floor(each.length / 2);
  return each.length % 2 === 1 ? each[mid] : Number(((each[mid - 1] + each[mid]) / 2).toFixed(3));
}

/**
 * CPU per item of a list, so that lists of different lengths compare (the floor run lists
 * 10,000 x BENCH_SCALE objects, a remote run the 20,200 x BENCH_SCALE it created).
 */
export function perItem(cpuPerList, items) {
  if (!positive(cpuPerList) || !positive(items)) return undefined;
  return cpuPerList / items;
}

/**
 * The JSON fields of a result's CPU check: the floor's CPU per op (under `floorKey`), the ratio,
 * the budget and whether it is met. With no budget there is nothing to judge (cpuOk absent).
 */
export function cpuFields({ serverCpu, floorCpu, budget, floorKey }) {
  const ratio = cpuRatio(floorCpu, serverCpu);
  const out = {};
  if (positive(floorCpu)) out[floorKey] = floorCpu >= 100 ? Math.round(floorCpu) : Number(floorCpu.toPrecision(3));
  out.cpuRatio = ratio;
  if (budget !== undefined) {
    out.cpuBudget = budget;
    out.cpuOk = ratio !== null && ratio >= budget;
  }
  return out;
}

/**
 * The derivation table of a side-by-side run: for each workload with a floor (the local run's
 * `floor...` field) and an upstream CPU figure, the budget it gives; and, when `ours` is given,
 * our CPU over upstream's (at most 1 / factor meets the goal). Lists compare per item.
 * `floors`, `upstream` and `ours` are `workloads` objects of run.mjs's JSON.
 */
export function deriveBudgets({ floors, upstream, ours, factor = BEAT_UPSTREAM_BY }) {
  const out = {};
  for (const [name, f] of Object.entries(floors ?? {})) {
    const u = upstream?.[name];
    if (!u) continue;
    const pick = (r, prefix = '') => {
      if (!r) return undefined;
      const key = (k) => (prefix ? `${prefix}${k[0].toUpperCase()}${k.slice(1)}` : k);
      if (r[key('cpuUsPerOp')] !== undefined) return r[key('cpuUsPerOp')];
      if (r[key('cpuUsPerEvent')] !== undefined) return r[key('cpuUsPerEvent')];
      if (r[key('cpuMsPerList')] !== undefined) return perItem(r[key('cpuMsPerList')], r.items);
      return undefined;
    };
    const floor = pick(f, 'floor');
    const up = pick(u);
    const budget = deriveCpuBudget(floor, up, factor);
    if (budget === null) continue;
    const o = pick(ours?.[name]);
    out[name] = {
      floor,
      upstream: up,
      budget,
      ...(positive(o) ? { ours: o, oursOverUpstream: Number((o / up).toFixed(3)) } : {}),
    };
  }
  return out;
}
