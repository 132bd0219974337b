import { fileURLToPath } from 'node:url';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { call, children, logLines, startedWorkers } from './support/worker-replica.js';

// The default kind of worker (--worker-isolation, default thread): a replica of two workers
// started with no --worker-isolation runs them as threads of its one process; without the fd_dup
// addon (hidden by hide-fd-dup-hook.mjs, as a build without a C compiler has none) it warns and
// runs them as processes instead, and serves all the same.
const HIDE_FD_DUP = fileURLToPath(new URL('./support/hide-fd-dup-hook.mjs', import.meta.url));

describe('--workers 2 with the default --worker-isolation', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess(['--workers', '2', '--log-level', 'info']);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  test('the workers are threads of the one process, beside one embedded etcd', async () => {
    expect(server.output()).toContain('(2 worker threads)');
    const threads = startedWorkers(server, 'thread');
    expect([...threads.keys()].sort()).toEqual([1, 2]);
    expect((await children(server.child.pid!)).map((k) => k.comm)).toEqual(['etcd']);
    expect((await call(server, '/api/v1/namespaces/default')).status).toBe(200);
  });
});

describe('--workers 2 with the default --worker-isolation and no fd_dup addon', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess(['--workers', '2', '--log-level', 'info'], undefined, ['--import', HIDE_FD_DUP]);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  test('the replica warns and runs its workers as processes, which serve', async () => {
    expect(server.output()).toContain('(2 worker processes)');
    expect(logLines(server).some((l) => l.msg?.includes('worker threads need the fd_dup addon'))).toBe(true);
    const pids = startedWorkers(server, 'pid');
    expect([...pids.keys()].sort()).toEqual([1, 2]);
    const kids = await children(server.child.pid!);
    expect(kids.filter((k) => k.comm !== 'etcd').map((k) => k.pid).sort()).toEqual([...pids.values()].sort());
    expect((await call(server, '/api/v1/namespaces/default')).status).toBe(200);
  });
});
