import { medianBudget } from './cpu-budgets.mjs';

// Every budget in one place: a result is ok when its ratio (higher is better, see report.mjs)
// is at least its budget. Each compares the replica with a baseline measured in the same run,
// so that the budgets measure the server rather than the machine (see README "Workloads").

/** RSS may be at most this many times the JSON size of the cached objects. */
export const RSS_OVER_JSON = 2.5;
/** The watch-fanout p99 may be at most this many times the bare HTTP/2 floor's p99. */
export const P99_OVER_FLOOR = 1.25;
/** The watch-fanout writer must reach this share of the floor writer's rate. */
export const WRITE_RATE_SHARE_OF_FLOOR = 0.95;

export const BUDGETS = {
  /** ops/s of API creates over raw etcd transactions. */
  create: 0.5,
  /** ops/s of quorum GETs over raw etcd gets (+ JSON.parse). */
  get: 1.0,
  /** ops/s of resourceVersion=0 GETs over a bare single-process Node HTTPS server. */
  'get-cached': 1.25,
  /** raw range + parse time over list time. */
  'list-cached': 1.0,
  'list-quorum': 1.0,
  'list-paged': 1.0,
  /** floor p99 over p99. */
  'watch-fanout': Number((1 / P99_OVER_FLOOR).toFixed(3)),
  /** quiet p99 alone over quiet p99 during a list flood by another client (issue 30: within 3x). */
  'noisy-neighbour': Number((1 / 3).toFixed(3)),
  /** JSON bytes over RSS (per worker process). */
  memory: Number((1 / RSS_OVER_JSON).toFixed(3)),
};

/**
 * The inputs of the CPU budgets (issue 33): for each workload, one [floor, upstream] pair per
 * round of side-by-side runs on this machine (`side-by-side.mjs`: the local run's floor and
 * upstream v1.24's kube-apiserver measured by the same generator minutes apart; README "CPU
 * budgets" gives the runs), in one unit: µs per operation or per delivered event; lists in µs
 * per item, since the floor run and the remote run list different counts. A round's budget is
 * floor / upstream x 1.5 (a replica meeting it uses at most 1 / 1.5 of upstream's CPU per
 * operation, measured against the floor of its own run); the budget is the rounds' median.
 */
export const CPU_BUDGET_INPUTS = {
  // 2026-11-26 07:03-07:59 UTC, [floor, upstream] per round: five at BENCH_SCALE=0.3, the sixth at
  // scale 1 (load average 13-41)
  /** etcd µs per raw transactional create; upstream µs per create. */
  create: [[180, 1095], [147, 830], [302, 962], [200, 877], [243, 755], [164, 787]],
  /** etcd µs per raw range; upstream µs per quorum GET. */
  get: [[107, 570], [128, 550], [162, 493], [142, 473], [133, 460], [95.5, 468]],
  /** bare-server.mjs µs per request; upstream µs per resourceVersion=0 GET. */
  'get-cached': [[71.7, 443], [91.7, 450], [120, 357], [108, 317], [91.7, 400], [43, 354]],
  /** etcd µs per item of a raw range (10,000 x scale keys); upstream µs per item of a list (20,200 x scale). */
  'list-cached': [[4.867, 9.571], [4.933, 8.8], [7.133, 11.45], [6.2, 9.988], [6.3, 12.65], [5.6, 8.119]],
  'list-quorum': [[4.867, 16.85], [4.933, 15.51], [7.133, 21.83], [6.2, 21.09], [6.3, 17.49], [5.6, 18.22]],
  'list-paged': [[4.867, 18.79], [4.933, 20.74], [7.133, 23.93], [6.2, 23.31], [6.3, 22.44], [5.6, 19.8]],
  /** bare-watch-server.mjs µs per delivered event; upstream µs per delivered event (1,000 x scale watchers). */
  'watch-fanout': [[4.25, 43.1], [4.92, 44.9], [6.75, 41.8], [8.08, 49.5], [6.37, 47], [5.45, 38.1]],
};

/** The minimum cpuRatio (floor CPU per op / replica CPU per op) of each workload with one. */
export const CPU_BUDGETS = Object.fromEntries(Object.entries(CPU_BUDGET_INPUTS).map(([name, rounds]) => [name, medianBudget(rounds)]));
