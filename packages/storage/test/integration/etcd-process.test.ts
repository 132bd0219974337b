import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startEtcd, type EtcdProcess } from '../../src/etcd-process/index.js';

// These tests start their own etcd from PATH, so unlike the store tests they need no ETCD_ENDPOINTS.
const TIMEOUT_MS = 60_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function etcdProcessesUsing(dataDir: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', `data-dir=${dataDir}`], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch (e) {
    // pgrep exits 1 when nothing matches; anything else is a broken probe, not an absence.
    if ((e as { status?: number }).status === 1) return [];
    throw e;
  }
}

async function health(endpoint: string): Promise<unknown> {
  const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(2000) });
  return res.json();
}

describe('startEtcd', () => {
  let dir: string;
  let etcd: EtcdProcess | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-process-'));
  });
  afterEach(async () => {
    await etcd?.stop();
    etcd = undefined;
    await rm(dir, { recursive: true, force: true });
  }, TIMEOUT_MS);

  test('starts a healthy etcd on loopback and stops it', async () => {
    const lines: string[] = [];
    etcd = await startEtcd({ dataDir: join(dir, 'etcd'), log: (l) => lines.push(l) });
    expect(etcd.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await health(etcd.endpoint)).toMatchObject({ health: 'true' });
    expect((await stat(join(dir, 'etcd'))).mode & 0o777).toBe(0o700);

    const { pid } = etcd;
    expect(isAlive(pid)).toBe(true);
    await etcd.stop();
    await etcd.stop(); // idempotent
    expect(isAlive(pid)).toBe(false);
    // SIGTERM was enough: etcd shut down gracefully and re-raised the signal.
    await expect(etcd.exited).resolves.toEqual({ code: null, signal: 'SIGTERM' });
    await expect(health(etcd.endpoint)).rejects.toThrow();
  }, TIMEOUT_MS);

  test('honours given ports and restarts on the same data dir with other ports', async () => {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    etcd = await startEtcd({ dataDir: join(dir, 'etcd'), clientPort, peerPort });
    expect(etcd.endpoint).toBe(`http://127.0.0.1:${clientPort}`);
    await etcd.stop();

    etcd = await startEtcd({ dataDir: join(dir, 'etcd') });
    expect(etcd.endpoint).not.toBe(`http://127.0.0.1:${clientPort}`);
    expect(await health(etcd.endpoint)).toMatchObject({ health: 'true' });
  }, TIMEOUT_MS);

  test('rejects with a clear error when the binary does not exist', async () => {
    const binary = join(dir, 'no-such-etcd');
    await expect(startEtcd({ dataDir: join(dir, 'etcd'), binary })).rejects.toThrow(
      `cannot start etcd binary "${binary}": spawn ${binary} ENOENT`,
    );
  }, TIMEOUT_MS);

  test('refuses a client port that is already taken instead of reporting the other server healthy', async () => {
    etcd = await startEtcd({ dataDir: join(dir, 'a') });
    const clientPort = Number(new URL(etcd.endpoint).port);
    const started = startEtcd({ dataDir: join(dir, 'b'), clientPort, peerPort: await freePort() });
    await expect(started).rejects.toThrow(
      `cannot start etcd: client address 127.0.0.1:${clientPort}: address already in use`,
    );
  }, TIMEOUT_MS);

  test('rejects with the first output line when etcd fails on a flag', async () => {
    // etcd prints the flag error first and then its long usage text.
    const started = startEtcd({ dataDir: join(dir, 'etcd'), quotaBackendBytes: -1.5 });
    await expect(started).rejects.toThrow(
      /^etcd exited with code 2 before becoming healthy:\ninvalid value "-1\.5" for flag -quota-backend-bytes: parse error\nUsage:/,
    );
  }, TIMEOUT_MS);

  test('rejects with the stderr tail when etcd exits early', async () => {
    const binary = join(dir, 'failing-etcd');
    const lines = Array.from({ length: 30 }, (_, i) => `echo line-${i} >&2`).join('\n');
    await writeFile(binary, `#!/bin/sh\n${lines}\necho 'fatal: disk on fire' >&2\nexit 3\n`, { mode: 0o755 });
    const started = startEtcd({ dataDir: join(dir, 'etcd'), binary });
    await expect(started).rejects.toThrow(
      /^etcd exited with code 3 before becoming healthy:\nline-0\n(.*\n){4}\.\.\. \(11 lines omitted\)\n(.*\n)*line-29\nfatal: disk on fire$/,
    );
  }, TIMEOUT_MS);

  test('rejects and kills etcd when it is not healthy in time', async () => {
    const dataDir = join(dir, 'slow');
    const started = startEtcd({ dataDir, startTimeoutMs: 1 });
    await expect(started).rejects.toThrow(
      /^etcd did not become healthy at http:\/\/127\.0\.0\.1:\d+\/health within 1ms/,
    );
    expect(etcdProcessesUsing(dataDir)).toEqual([]);
  }, TIMEOUT_MS);
});
