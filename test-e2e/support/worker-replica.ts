import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import type { ServerProcess } from './server-process.js';

// What the tests of a replica with several workers (workers.test.ts: processes,
// workers-threads.test.ts: threads) read of it: its JSON log, its child processes, its metrics,
// and the admin's requests on fresh connections.
const exec = promisify(execFile);

export interface LogLine {
  msg?: string;
  pid?: number;
  worker?: number;
  thread?: number;
  path?: string;
  component?: string;
  /** pino's level: 30 info, 40 warn, 50 error, 60 fatal. */
  level?: number;
}

export function logLines(server: ServerProcess): LogLine[] {
  return server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

/** Worker slot -> its PID or thread id, as the primary last reported starting it. */
export function startedWorkers(server: ServerProcess, id: 'pid' | 'thread'): Map<number, number> {
  const ids = new Map<number, number>();
  for (const l of logLines(server)) {
    const value = l[id];
    if (l.msg === 'worker started' && l.worker !== undefined && value !== undefined) ids.set(l.worker, value);
  }
  return ids;
}

export async function children(pid: number): Promise<{ pid: number; comm: string }[]> {
  try {
    const { stdout } = await exec('ps', ['--ppid', String(pid), '-o', 'pid=,comm=']);
    return stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [p, comm] = l.trim().split(/\s+/);
        return { pid: Number(p), comm: comm ?? '' };
      });
  } catch {
    return []; // ps exits 1 when there are none
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function until(what: string, probe: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The admin's request on a connection of its own, so that any worker may take it. */
export function call(server: ServerProcess, path: string): Promise<{ status: number; text: string }> {
  const kc = parse(readFileSync(server.kubeconfig, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { token: string } }[];
  };
  const ca = Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString('utf8');
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, server.url),
      { ca, agent: false, headers: { Authorization: `Bearer ${kc.users[0]!.user.token}`, Accept: 'application/json' }, timeout: 20_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** The lines of the series of `name` (with or without labels). */
export function seriesLines(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

/** The value of the series of `name` whose labels include every `labels` pair, summed if several. */
export function metricValue(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of seriesLines(text, name)) {
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * Lists ConfigMaps with `labelSelector` 40 times, one connection each, waits for the request log
 * lines of all of them and expects workers 1 and 2 both among their servers. Returns the count
 * and the log lines of those requests.
 */
export async function listFromEveryWorker(server: ServerProcess, labelSelector: string): Promise<{ n: number; served: LogLine[] }> {
  const route = '/api/v1/namespaces/default/configmaps';
  const n = 40;
  for (let i = 0; i < n; i++) expect((await call(server, `${route}?labelSelector=${encodeURIComponent(labelSelector)}`)).status).toBe(200);
  const servedLines = () => logLines(server).filter((l) => l.msg === 'request' && l.path === route);
  await until(`request logs of all ${n}`, () => servedLines().length >= n);
  const served = servedLines();
  const byWorker = new Map<number, number>();
  for (const l of served) byWorker.set(l.worker!, (byWorker.get(l.worker!) ?? 0) + 1);
  expect(byWorker.get(1)).toBeGreaterThan(0);
  expect(byWorker.get(2)).toBeGreaterThan(0);
  return { n, served };
}
