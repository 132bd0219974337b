import { AggregatorRegistry } from 'prom-client';
import { processSeries } from './process-metrics.js';
import { labelPerThreadSeries, labelPerWorkerSeries, nextFailureCount, resolveWorkerCount, restartDelayMs, workerV8Flags, type MetricJson, type RestartBackoff } from './workers.js';

describe('resolveWorkerCount', () => {
  test.each<[number, number, number]>([
    // [flag, cores available, workers]
    [0, 2, 2],
    [0, 8, 8],
    [0, 1, 1],
    [0, 0, 1], // a container reporting no cores still gets one process
    [1, 8, 1],
    [3, 2, 3], // an explicit count wins over the core count
  ])('--workers=%d with %d cores -> %d', (flag, cores, expected) => {
    expect(resolveWorkerCount(flag, cores)).toBe(expected);
  });
});

describe('workerV8Flags', () => {
  test.each<[number, number, string[], string[]]>([
    // [workers, cores, node options already given, flags added]
    [2, 2, [], ['--no-parallel-scavenge']], // the default: one worker per core, no spare core
    [3, 2, [], ['--no-parallel-scavenge']],
    [1, 1, [], ['--no-parallel-scavenge']],
    [2, 4, [], []], // spare cores: V8's parallel scavenge can use them
    [1, 2, [], []],
    [2, 0, [], ['--no-parallel-scavenge']], // no core reported counts as one
    [2, 2, ['--parallel-scavenge'], []], // the operator's choice stands
    [2, 2, ['--no-parallel_scavenge'], []],
    [2, 2, ['--single-threaded-gc'], []],
    [2, 2, ['--max-old-space-size=4096', '--inspect'], ['--no-parallel-scavenge']],
  ])('%d workers on %d cores with %j -> %j', (workers, cores, given, expected) => {
    expect(workerV8Flags(workers, cores, given)).toEqual(expected);
  });
});

describe('restartDelayMs', () => {
  const backoff: RestartBackoff = { initialMs: 500, maxMs: 30_000, resetAfterMs: 60_000 };
  test.each<[number, number]>([
    [1, 500],
    [2, 1_000],
    [3, 2_000],
    [6, 16_000],
    [7, 30_000], // 32 s capped
    [100, 30_000],
    [10_000, 30_000],
  ])('failure %d in a row waits %d ms', (failures, expected) => {
    expect(restartDelayMs(failures, backoff)).toBe(expected);
  });

  test.each<[number, number, number]>([
    // [previous failures, uptime of the worker that exited, failures after]
    [0, 100, 1],
    [3, 59_999, 4],
    [3, 60_000, 1], // it stayed up long enough: start the count over
    [7, 3_600_000, 1],
  ])('after %d failures and %d ms up, the count is %d', (previous, uptimeMs, expected) => {
    expect(nextFailureCount(previous, uptimeMs, backoff)).toBe(expected);
  });
});

describe('labelPerWorkerSeries', () => {
  const workerMetrics = (requests: number, rss: number, leader: number | undefined): MetricJson[] => [
    { name: 'apiserver_request_total', help: 'h', type: 'counter', aggregator: 'sum', values: [{ value: requests, labels: { verb: 'GET', code: '200' } }] },
    { name: 'process_resident_memory_bytes', help: 'h', type: 'gauge', aggregator: 'sum', values: [{ value: rss, labels: {} }] },
    { name: 'process_start_time_seconds', help: 'h', type: 'gauge', aggregator: 'omit', values: [{ value: 1000 + rss, labels: {} }] },
    ...(leader === undefined ? [] : [{ name: 'leader_election_master_status', help: 'h', type: 'gauge', aggregator: 'sum', values: [{ value: leader, labels: { name: 'cm' } }] }]),
    {
      name: 'apiserver_request_duration_seconds',
      help: 'h',
      type: 'histogram',
      aggregator: 'sum',
      values: [
        { value: requests, labels: { le: 0.1, verb: 'GET' }, metricName: 'apiserver_request_duration_seconds_bucket' },
        { value: requests, labels: { verb: 'GET' }, metricName: 'apiserver_request_duration_seconds_count' },
      ],
    },
  ];

  test('counters and histograms are summed over workers, gauges stay per worker', async () => {
    const aggregated = AggregatorRegistry.aggregate([labelPerWorkerSeries(workerMetrics(3, 100, 1), 1), labelPerWorkerSeries(workerMetrics(4, 200, undefined), 2)]);
    const text = await aggregated.metrics();
    expect(text).toContain('apiserver_request_total{verb="GET",code="200"} 7');
    expect(text).toContain('apiserver_request_duration_seconds_bucket{le="0.1",verb="GET"} 7');
    expect(text).toContain('apiserver_request_duration_seconds_count{verb="GET"} 7');
    expect(text).toContain('process_resident_memory_bytes{worker="1"} 100');
    expect(text).toContain('process_resident_memory_bytes{worker="2"} 200');
    // prom-client would omit the start time across workers; per worker it is a plain fact.
    expect(text).toContain('process_start_time_seconds{worker="1"} 1100');
    expect(text).toContain('process_start_time_seconds{worker="2"} 1200');
    // Only the worker running the controllers has a leader gauge, and it is not added up.
    expect(text).toContain('leader_election_master_status{name="cm",worker="1"} 1');
    expect(text).not.toMatch(/leader_election_master_status\{[^}]*worker="2"/);
    expect(text).not.toMatch(/apiserver_request_total\{[^}]*worker=/);
  });

  test('the input is not modified', () => {
    const input = workerMetrics(1, 1, 0);
    const copy = structuredClone(input);
    labelPerWorkerSeries(input, 1);
    expect(input).toEqual(copy);
  });

  test('threads of one process: the process series come once, from the process, not per thread', async () => {
    const own = processSeries();
    const aggregated = AggregatorRegistry.aggregate([labelPerThreadSeries(workerMetrics(3, 100, 1), 1), labelPerThreadSeries(workerMetrics(4, 200, undefined), 2), own]);
    const text = await aggregated.metrics();
    expect(text).toContain('apiserver_request_total{verb="GET",code="200"} 7');
    expect(text).toContain('leader_election_master_status{name="cm",worker="1"} 1');
    const series = (name: string) => text.split('\n').filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    const rss = own.find((m) => m.name === 'process_resident_memory_bytes')!.values[0]!.value;
    expect(series('process_resident_memory_bytes')).toEqual([`process_resident_memory_bytes ${rss}`]);
    expect(series('process_start_time_seconds')).toHaveLength(1);
    const cpu = own.find((m) => m.name === 'process_cpu_seconds_total')!.values[0]!.value;
    expect(series('process_cpu_seconds_total')).toEqual([`process_cpu_seconds_total ${cpu}`]);
    // The whole process's CPU since it started, as the kernel counts it.
    const usage = process.cpuUsage();
    expect(cpu).toBeGreaterThan(0);
    expect(cpu).toBeLessThanOrEqual((usage.user + usage.system) / 1e6);
    expect(series('process_open_fds')).toHaveLength(1);
    expect(series('process_max_fds')).toHaveLength(1);
  });
});
