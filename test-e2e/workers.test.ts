import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { alive, call, children, listFromEveryWorker, logLines, metricValue, startedWorkers, until } from './support/worker-replica.js';

// --workers (issue 19, item 1), workers as processes (--worker-isolation=process; threads:
// workers-threads.test.ts), on the built server with its embedded etcd: the primary starts
// one etcd and N workers that share the port; /metrics sums the workers' request counters and
// keeps per-process gauges apart; the controllers run in worker 1 only; a killed worker is
// replaced while the others keep serving; SIGTERM to the primary ends every process.

describe('--workers 2 --worker-isolation=process', () => {
  let server: ServerProcess;
  let primary: number;

  beforeAll(async () => {
    server = await startServerProcess(['--workers', '2', '--worker-isolation', 'process', '--log-level', 'info']);
    primary = server.child.pid!;
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  test('the primary runs one embedded etcd and two workers; workers start no etcd of their own', async () => {
    const pids = startedWorkers(server, 'pid');
    expect([...pids.keys()].sort()).toEqual([1, 2]);
    const kids = await children(primary);
    expect(kids.filter((k) => k.comm === 'etcd')).toHaveLength(1);
    expect(kids.filter((k) => k.comm !== 'etcd').map((k) => k.pid).sort()).toEqual([...pids.values()].sort());
    for (const pid of pids.values()) expect((await children(pid)).filter((k) => k.comm === 'etcd')).toEqual([]);
  });

  test('both workers serve, and /metrics counts the requests of both', async () => {
    const { n } = await listFromEveryWorker(server, 'workers-test=count');
    const metrics = await call(server, '/metrics');
    expect(metrics.status).toBe(200);
    // Counters are summed over the workers, so the series carries no worker label.
    expect(metricValue(metrics.text, 'apiserver_request_total', { verb: 'LIST', resource: 'configmaps', scope: 'namespace', code: '200' })).toBe(n);
    expect(metrics.text).not.toMatch(/^apiserver_request_total\{[^}]*worker=/m);
    // Per-process gauges stay apart, one series per worker.
    expect(metrics.text).toMatch(/^process_resident_memory_bytes\{worker="1"\} \d+/m);
    expect(metrics.text).toMatch(/^process_resident_memory_bytes\{worker="2"\} \d+/m);
  });

  test('the controllers run in worker 1 only', async () => {
    await until('worker 1 to lead', async () => /^leader_election_master_status\{[^}]*worker="1"[^}]*\} 1$/m.test((await call(server, '/metrics')).text));
    const metrics = (await call(server, '/metrics')).text;
    const leaderSeries = metrics.split('\n').filter((l) => l.startsWith('leader_election_master_status{'));
    expect(leaderSeries).toHaveLength(1);
    const controllerLogs = logLines(server).filter((l) => l.component === 'controllers');
    expect(controllerLogs.length).toBeGreaterThan(0);
    expect(new Set(controllerLogs.map((l) => l.worker))).toEqual(new Set([1]));
  });

  test('a killed worker is replaced while the other keeps serving', async () => {
    const victim = startedWorkers(server, 'pid').get(2)!;
    const survivor = startedWorkers(server, 'pid').get(1)!;
    const noticedBefore = logLines(server).filter((l) => l.msg === 'worker exited; replacing it').length;
    process.kill(victim, 'SIGKILL');
    await until('the primary to notice', () => logLines(server).filter((l) => l.msg === 'worker exited; replacing it').length > noticedBefore);
    // From here until the replacement serves, every request is answered, by the survivor.
    const during = '/api/v1/namespaces/during-replacement/configmaps';
    const statuses: number[] = [];
    const deadline = Date.now() + 30_000;
    const replaced = () => logLines(server).some((l) => l.msg === 'worker serving' && l.worker === 2 && l.pid !== victim);
    while (!replaced() && Date.now() < deadline) statuses.push((await call(server, during)).status);
    expect(replaced()).toBe(true);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    await until('request logs of the window', () => logLines(server).filter((l) => l.msg === 'request' && l.path === during).length >= statuses.length);
    const servedBy = logLines(server).filter((l) => l.msg === 'request' && l.path === during).map((l) => l.pid);
    expect(servedBy).toContain(survivor);
    expect(servedBy).not.toContain(victim);
    expect(alive(victim)).toBe(false);
    expect(alive(survivor)).toBe(true);
    const replacement = startedWorkers(server, 'pid').get(2)!;
    expect(replacement).not.toBe(victim);
    expect(alive(replacement)).toBe(true);
    // The replacement takes connections too.
    await until(
      'the replacement to answer a request',
      async () => {
        await call(server, '/api/v1/namespaces/after-replacement/configmaps');
        return logLines(server).some((l) => l.msg === 'request' && l.pid === replacement && l.path === '/api/v1/namespaces/after-replacement/configmaps');
      },
      20_000,
    );
    const metrics = (await call(server, '/metrics')).text;
    expect(metricValue(metrics, 'apiserver_worker_restarts_total', {})).toBe(1);
  }, 60_000);

  test('the replacement of worker 1 takes over the controllers', async () => {
    const victim = startedWorkers(server, 'pid').get(1)!;
    process.kill(victim, 'SIGKILL');
    await until('worker 1 replaced', () => (startedWorkers(server, 'pid').get(1) ?? victim) !== victim);
    const replacement = startedWorkers(server, 'pid').get(1)!;
    // The killed leader could not release the Lease: the replacement acquires it once it expires (15 s).
    await until('the replacement to lead', () => logLines(server).some((l) => l.msg === 'became leader' && l.pid === replacement), 45_000);
    const metrics = (await call(server, '/metrics')).text;
    expect(metrics.split('\n').filter((l) => l.startsWith('leader_election_master_status{'))).toEqual([
      'leader_election_master_status{name="cluster-controller-manager",worker="1"} 1',
    ]);
    expect(logLines(server).filter((l) => l.component === 'controllers' && l.worker === 2)).toEqual([]);
  }, 60_000);

  test('SIGTERM to the primary drains the workers and ends every process', async () => {
    const pids = [...startedWorkers(server, 'pid').values()];
    const etcd = (await children(primary)).filter((k) => k.comm === 'etcd').map((k) => k.pid);
    expect(etcd).toHaveLength(1);
    const code = await server.stop();
    // On a failure, what the replica logged at warn and above while it stopped says why.
    if (code !== 0) process.stderr.write(`${logLines(server).filter((l) => (l.level ?? 0) >= 40).map((l) => JSON.stringify(l)).slice(-20).join('\n')}\n${server.output().slice(-3000)}\n`);
    expect(code).toBe(0);
    const stopped = logLines(server).filter((l) => l.msg === 'worker stopped');
    expect(new Set(stopped.map((l) => l.worker))).toEqual(new Set([1, 2]));
    for (const pid of [...pids, ...etcd]) expect(alive(pid)).toBe(false);
  }, 60_000);
});

describe('--workers 1', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess(['--workers', '1']);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  }, 30_000);

  test('one process serves with no supervisor: no worker children, and /metrics has no worker label', async () => {
    const kids = await children(server.child.pid!);
    expect(kids.map((k) => k.comm)).toEqual(['etcd']);
    const metrics = await call(server, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(metrics.text).not.toContain('worker="');
    expect(metrics.text).not.toContain('apiserver_worker_restarts_total');
  });
});
