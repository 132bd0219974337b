// hack/bench's CPU budgets (issue 33): the ratio of a floor's CPU per operation to the server's,
// the budgets derived from a side-by-side run with upstream (floor / upstream x 1.5), and how a
// result's `ok` takes the CPU check in. Pure functions of the bench scripts; nothing is started.
import { fileURLToPath } from 'node:url';

const BENCH = fileURLToPath(new URL('../hack/bench/lib/', import.meta.url));

interface CpuBudgetsModule {
  BEAT_UPSTREAM_BY: number;
  cpuRatio(floor: unknown, server: unknown): number | null;
  deriveCpuBudget(floor: unknown, upstream: unknown, factor?: number): number | null;
  perItem(cpuPerList: unknown, items: unknown): number | undefined;
  medianBudget(rounds: [number, number][], factor?: number): number | null;
  deriveBudgets(args: { floors: Record<string, object>; upstream: Record<string, object>; ours?: Record<string, object> }): Record<
    string,
    { floor: number; upstream: number; budget: number; ours?: number; oursOverUpstream?: number }
  >;
}
interface ReportModule {
  result(args: Record<string, unknown>): Record<string, unknown>;
}
interface BudgetsModule {
  CPU_BUDGET_INPUTS: Record<string, [number, number][]>;
  CPU_BUDGETS: Record<string, number>;
}

let cpu: CpuBudgetsModule;
let report: ReportModule;
let budgets: BudgetsModule;
beforeAll(async () => {
  cpu = (await import(`${BENCH}cpu-budgets.mjs`)) as CpuBudgetsModule;
  report = (await import(`${BENCH}report.mjs`)) as ReportModule;
  budgets = (await import(`${BENCH}budgets.mjs`)) as BudgetsModule;
});

test('cpuRatio is floor over server CPU, higher better, null when either is unknown', () => {
  expect(cpu.cpuRatio(50, 200)).toBe(0.25);
  expect(cpu.cpuRatio(22, 95)).toBe(0.232);
  for (const [f, s] of [[undefined, 100], [50, undefined], [0, 100], [50, 0], [NaN, 100], [50, Infinity], [-1, 5]]) {
    expect(cpu.cpuRatio(f, s)).toBeNull();
  }
});

test('a budget derived as floor / upstream x 1.5 is met exactly when the server uses at most 1/1.5 of upstream', () => {
  expect(cpu.BEAT_UPSTREAM_BY).toBe(1.5);
  // Floor 100 µs, upstream 600 µs per op: budget 0.25, i.e. the server at most 400 µs.
  const budget = cpu.deriveCpuBudget(100, 600);
  expect(budget).toBe(0.25);
  expect(cpu.cpuRatio(100, 400)).toBeGreaterThanOrEqual(budget as number);
  expect(cpu.cpuRatio(100, 410)).toBeLessThan(budget as number);
  // The floor moves with the machine: a machine twice as slow doubles the floor and the server alike.
  expect(cpu.cpuRatio(200, 800)).toBeGreaterThanOrEqual(budget as number);
  expect(cpu.deriveCpuBudget(100, 600, 2)).toBe(0.333);
  expect(cpu.deriveCpuBudget(undefined, 600)).toBeNull();
  expect(cpu.deriveCpuBudget(100, 0)).toBeNull();
});

test('lists compare per item: the floor run and the remote run list different counts', () => {
  expect(cpu.perItem(20, 10_000)).toBe(0.002);
  expect(cpu.perItem(20, 0)).toBeUndefined();
  const derived = cpu.deriveBudgets({
    floors: {
      create: { cpuUsPerOp: 900, floorCpuUsPerOp: 120 },
      'list-quorum': { items: 10_000, cpuMsPerList: 40, floorCpuMsPerList: 30 },
      'watch-fanout': { cpuUsPerEvent: 15, floorCpuUsPerEvent: 6 },
      // No floor measured: no budget can be derived.
      'get-cached': { cpuUsPerOp: 100 },
      memory: { value: 300 },
    },
    upstream: {
      create: { cpuUsPerOp: 720 },
      'list-quorum': { items: 20_200, cpuMsPerList: 343.4 },
      'watch-fanout': { cpuUsPerEvent: 37.5 },
      'get-cached': { cpuUsPerOp: 320 },
    },
    ours: { create: { cpuUsPerOp: 840 }, 'list-quorum': { items: 20_200, cpuMsPerList: 121.2 } },
  });
  expect(Object.keys(derived).sort()).toEqual(['create', 'list-quorum', 'watch-fanout']);
  expect(derived.create).toEqual({ floor: 120, upstream: 720, budget: 0.25, ours: 840, oursOverUpstream: 1.167 });
  // 30 ms / 10,000 = 3 µs an item against 343.4 ms / 20,200 = 17 µs an item.
  expect(derived['list-quorum']?.budget).toBe(Number(((0.003 / (343.4 / 20_200)) * 1.5).toFixed(3)));
  expect(derived['list-quorum']?.oursOverUpstream).toBe(0.353);
  expect(derived['watch-fanout']?.budget).toBe(0.24);
});

test("a result's ok needs the CPU budget too, and says why when it is missed", () => {
  const base = { value: 1000, unit: 'ops/s', baseline: 1000, kind: 'throughput', budget: 0.5 };
  const met = report.result({ ...base, cpu: { server: 400, floor: 100, budget: 0.25, key: 'cpuUsPerOp' } });
  expect(met).toMatchObject({ ok: true, floorCpuUsPerOp: 100, cpuRatio: 0.25, cpuBudget: 0.25, cpuOk: true });
  const missed = report.result({ ...base, cpu: { server: 500, floor: 100, budget: 0.25, key: 'cpuUsPerOp' } });
  expect(missed).toMatchObject({ ok: false, cpuRatio: 0.2, cpuOk: false });
  expect(missed.note).toMatch(/CPU ratio 0.2 < budget 0.25/);
  // A floor that could not be measured cannot meet a budget.
  expect(report.result({ ...base, cpu: { server: 500, floor: undefined, budget: 0.25, key: 'cpuUsPerOp' } })).toMatchObject({ ok: false, cpuRatio: null });
  // Without a CPU budget only the throughput ratio counts, and the figures are still reported.
  expect(report.result({ ...base, cpu: { server: 500, floor: 100, budget: undefined, key: 'cpuMsPerList' } })).toMatchObject({ ok: true, floorCpuMsPerList: 100, cpuRatio: 0.2 });
  expect(report.result({ ...base, ratio: undefined, value: 400 })).toMatchObject({ ok: false });
});

test("several rounds give the median of the rounds' budgets, each round's pair taken together", () => {
  // Budgets 0.25, 0.3 and 0.15 (a noisy round): the median 0.25, not (median floor / median upstream).
  expect(cpu.medianBudget([[100, 600], [120, 600], [90, 900]])).toBe(0.25);
  expect(cpu.medianBudget([[100, 600], [120, 600]])).toBe(0.275);
  // A round without a figure is left out.
  expect(cpu.medianBudget([[100, 600], [Number.NaN, 600]])).toBe(0.25);
  expect(cpu.medianBudget([])).toBeNull();
});

test('the budgets in budgets.mjs are the median of their recorded rounds, floor / upstream x 1.5', () => {
  for (const [name, rounds] of Object.entries(budgets.CPU_BUDGET_INPUTS)) {
    const each = rounds.map(([floor, upstream]) => Number(((floor / upstream) * 1.5).toFixed(3))).sort((a, b) => a - b);
    expect(budgets.CPU_BUDGETS[name]).toBeGreaterThanOrEqual(each[0] as number);
    expect(budgets.CPU_BUDGETS[name]).toBeLessThanOrEqual(each[each.length - 1] as number);
    expect(budgets.CPU_BUDGETS[name]).toBe(cpu.medianBudget(rounds));
    expect(budgets.CPU_BUDGETS[name]).toBeGreaterThan(0);
  }
});
