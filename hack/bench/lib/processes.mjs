// Child processes of the benchmark: etcd, the server replica and the bare HTTPS baseline servers.
// Every child is stopped by its own PID at the end, on errors and on SIGINT/SIGTERM.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '../../../packages/storage/dist/src/index.js';
import { issueClientCertificate } from '../../../packages/server/dist/src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..', '..');
// BENCH_SERVER_MAIN runs another build's server (e.g. an older commit's worktree) under the same
// load generator, for before/after comparisons of one workload.
const serverMain = process.env.BENCH_SERVER_MAIN || join(repoRoot, 'packages', 'server', 'dist', 'src', 'main.js');

/** The user the workloads run as (CN of their client certificate); not in system:masters. */
const WORKLOAD_USER = 'bench-user';

/** Stop functions of every child still running, newest last. */
const running = new Map();
let signalsInstalled = false;

function track(pid, stop) {
  running.set(pid, stop);
  if (signalsInstalled) return;
  signalsInstalled = true;
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      process.stderr.write(`\nbench: ${sig}, stopping children\n`);
      stopAll().finally(() => process.exit(130));
    });
  }
}

/** Stops every child started here, newest first; never throws. */
export async function stopAll() {
  for (const [pid, stop] of [...running.entries()].reverse()) {
    try {
      await stop();
    } catch (e) {
      process.stderr.write(`bench: stopping pid ${pid}: ${e.message}\n`);
    }
    running.delete(pid);
  }
}

/** Starts a single-member etcd in `dir` on free loopback ports. */
export async function startBenchEtcd(dir) {
  const etcd = await startEtcd({ dataDir: dir, startTimeoutMs: 30_000 });
  track(etcd.pid, () => etcd.stop());
  return etcd;
}

/**
 * Spawns `node <args>` and resolves once a stdout line matches `ready`; rejects when the child
 * exits first or the line does not come within `timeoutMs`. The match is returned with a stop().
 */
function spawnNode(name, args, ready, timeoutMs, env = {}) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const tail = [];
  const keep = (line) => {
    tail.push(line);
    if (tail.length > 30) tail.shift();
  };
  const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));
  let stopping;
  const stop = (graceMs = 20_000) => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      let timer;
      const late = new Promise((r) => (timer = setTimeout(() => r('late'), graceMs)));
      if ((await Promise.race([exited, late])) === 'late') {
        child.kill('SIGKILL');
        await exited;
      }
      clearTimeout(timer);
    })();
    return stopping;
  };
  track(child.pid, stop);
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      void stop().then(() => reject(new Error(`${name} not ready within ${timeoutMs} ms:\n${tail.join('\n')}`)));
    }, timeoutMs);
    child.stdout.setEncoding('utf8');
    if (process.env.BENCH_TEE) child.stdout.pipe(createWriteStream(`${process.env.BENCH_TEE}.${name}.${child.pid}`));
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        keep(line);
        const m = ready.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve({ pid: child.pid, match: m, stop, exited, tail });
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      for (const line of chunk.split('\n')) if (line.trim() !== '') keep(line);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (code ${code}, signal ${signal}) before it was ready:\n${tail.join('\n')}`));
    });
  });
}

/**
 * Starts one server replica as a separate process (so its RSS can be read and it does not share
 * the load generator's thread). With `cpuProfDir`, the replica writes a V8 CPU profile there on exit;
 * `env` adds to (or overrides) the environment it inherits.
 */
export async function startReplica({ etcdEndpoint, dataDir, cpuProfDir, main = serverMain, extraArgs = [], env = {} }) {
  // BENCH_CPU_PROF_INTERVAL: the sampling interval in µs (V8's default 1000 gives few samples per request).
  const interval = process.env.BENCH_CPU_PROF_INTERVAL ? [`--cpu-prof-interval=${process.env.BENCH_CPU_PROF_INTERVAL}`] : [];
  const profArgs = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`, ...interval] : [];
  const args = [
    ...profArgs,
    // BENCH_NODE_FLAGS: Node and V8 flags for the replica only (e.g. --log-deopt, not allowed in NODE_OPTIONS).
    ...(process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean),
    main,
    `--etcd-servers=${etcdEndpoint}`,
    '--secure-port',
    '0',
    '--bind-address',
    '127.0.0.1',
    '--data-dir',
    dataDir,
    '--log-level',
    'warn',
    // Workloads run as a non-admin user authorized by RBAC RoleBindings (see run.mjs).
    '--authorization-mode=RBAC',
    // The workloads count the ConfigMaps of their namespaces (raw etcd ranges against API lists):
    // kube-root-ca.crt, which this controller puts in every namespace, would be one too many.
    '--controllers=*,-root-ca-cert-publisher',
    // Extra replica flags, e.g. `--workers=1` to compare with the one-process replica.
    ...(process.env.BENCH_REPLICA_ARGS ?? '').split(/\s+/).filter(Boolean),
    ...extraArgs,
  ];
  // A replica of several workers says how many and what kind: `(2 worker threads)`, `(2 worker processes)`.
  const started = await spawnNode('server replica', args, /listening on (https:\/\/[^\s)]+)(?: \((\d+) worker (threads|processes)\))?/, 60_000, env);
  const url = new URL(started.match[1]);
  const workers = started.match[2] ? { count: Number(started.match[2]), isolation: started.match[3] === 'threads' ? 'thread' : 'process' } : { count: 1, isolation: 'single' };
  const tokens = await readFile(join(dataDir, 'tokens.csv'), 'utf8');
  const adminLine = tokens.split('\n').find((l) => /,admin,/.test(l)) ?? tokens.split('\n')[0] ?? '';
  const token = adminLine.split(',')[0];
  const ca = await readFile(join(dataDir, 'certs', 'ca.crt'), 'utf8');
  // The embedded default trusts its own CA for client certificates: the workload identity.
  const caKey = await readFile(join(dataDir, 'certs', 'ca.key'), 'utf8');
  const pair = issueClientCertificate(ca, caKey, { commonName: WORKLOAD_USER, organizations: ['bench-clients'] });
  return {
    pid: started.pid,
    /** `{ count, isolation }`: `single` (one process), `process` (worker processes) or `thread` (worker threads of one process). */
    workers,
    url: url.toString().replace(/\/$/, ''),
    host: url.hostname,
    port: Number(url.port),
    token,
    ca,
    workloadUser: WORKLOAD_USER,
    clientCert: { cert: pair.certPem, key: pair.keyPem },
    certFile: join(dataDir, 'certs', 'apiserver.crt'),
    keyFile: join(dataDir, 'certs', 'apiserver.key'),
    stop: started.stop,
    exited: started.exited,
    tail: started.tail,
  };
}

/** Starts hack/bench/bare-server.mjs answering `bodyFile` over HTTPS with the replica's certificate. */
export async function startBareServer({ certFile, keyFile, bodyFile }) {
  const args = [join(here, '..', 'bare-server.mjs'), certFile, keyFile, bodyFile];
  const started = await spawnNode('bare https server', args, /listening on (\d+)/, 20_000);
  return { pid: started.pid, port: Number(started.match[1]), stop: started.stop };
}

/** Starts hack/bench/webhook-server.mjs, a no-op admission webhook with the replica's certificate (BENCH_WEBHOOK=1). */
export async function startWebhookServer({ certFile, keyFile }) {
  const args = [join(here, '..', 'webhook-server.mjs'), certFile, keyFile];
  const started = await spawnNode('no-op webhook server', args, /listening on (\d+)/, 20_000);
  return { pid: started.pid, port: Number(started.match[1]), stop: started.stop };
}

/** Starts the watch-fanout floor server (bare-watch-server.mjs) on a free loopback port. */
export async function startBareWatchServer({ certFile, keyFile }) {
  const args = [join(here, '..', 'bare-watch-server.mjs'), certFile, keyFile];
  const started = await spawnNode('bare watch server', args, /listening on (\d+)/, 20_000);
  return { pid: started.pid, port: Number(started.match[1]), stop: started.stop };
}

/** The PIDs of a process's children (a replica's workers); none when it has none or is gone. */
async function childPids(pid) {
  try {
    return (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function ownRss(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : NaN;
  };
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/**
 * VmRSS and VmHWM of a process in bytes, from /proc/<pid>/status. For a replica of several
 * workers (`--workers`), those of its largest worker: each worker caches every object, so the
 * memory figure is per worker, and the primary only supervises.
 */
export async function readRss(pid) {
  const workers = await childPids(pid);
  if (workers.length === 0) return ownRss(pid);
  const each = await Promise.all(workers.map((w) => ownRss(w).catch(() => ({ rss: NaN, hwm: NaN }))));
  return each.reduce((a, b) => (b.rss > a.rss || Number.isNaN(a.rss) ? b : a));
}

/**
 * The memory of a local replica (`startReplica`'s `pid` and `workers`), bytes:
 * - `total`: every process of the replica together (VmRSS and VmHWM summed): what the machine pays;
 * - `perWorker`: each worker process's own (worker processes only; threads share one process and
 *   its one resident set, so no thread has a figure of its own);
 * - `worker`: the figure a per-worker budget reads: the largest worker process (and the highest
 *   peak of any); for worker threads the process's resident set divided by the threads (the
 *   runtime, code and allocator they share split evenly, beside the caches each holds); for one
 *   process, that process.
 * `peakIsProcess` says that `worker.hwm` is the whole process's peak (threads), not a worker's.
 */
export async function readReplicaMemory(replica) {
  const { count, isolation } = replica.workers ?? { count: 1, isolation: 'single' };
  const total = await readTotalRss(replica.pid);
  if (isolation === 'process') {
    const perWorker = await Promise.all((await childPids(replica.pid)).map((w) => ownRss(w).catch(() => ({ rss: NaN, hwm: NaN }))));
    // The largest worker's RSS, and the highest peak of any worker.
    const worker = { rss: Math.max(...perWorker.map((w) => w.rss)), hwm: Math.max(...perWorker.map((w) => w.hwm)) };
    return { isolation, count, total, perWorker, worker, peakIsProcess: false };
  }
  const own = await ownRss(replica.pid);
  if (isolation === 'thread') return { isolation, count, total, worker: { rss: own.rss / count, hwm: own.hwm }, peakIsProcess: true };
  return { isolation, count, total, worker: own, peakIsProcess: false };
}

/**
 * The summed VmRSS and VmHWM in bytes of processes and their children (a replica's primary and
 * workers, or a remote server's PIDs): what the machine pays for the replica, where `readRss`
 * gives its largest process. NaN when a process is gone.
 */
export async function readTotalRss(pids) {
  const all = [];
  for (const pid of Array.isArray(pids) ? pids : [pids]) all.push(pid, ...(await childPids(pid)));
  const each = await Promise.all(all.map((p) => ownRss(p).catch(() => ({ rss: NaN, hwm: NaN }))));
  return each.reduce((a, b) => ({ rss: a.rss + b.rss, hwm: a.hwm + b.hwm }), { rss: 0, hwm: 0 });
}

async function ownCpuSeconds(pid) {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * User+system CPU time in seconds of a process and its children (a replica's workers), from
 * /proc/<pid>/stat (NaN when gone). A worker replaced meanwhile makes the difference smaller.
 */
export async function readCpuSeconds(pid) {
  if (Array.isArray(pid)) {
    let sum = 0;
    for (const p of pid) sum += await readCpuSeconds(p);
    return sum;
  }
  const own = await ownCpuSeconds(pid);
  let sum = own;
  for (const child of await childPids(pid)) {
    const c = await ownCpuSeconds(child);
    if (Number.isFinite(c)) sum += c;
  }
  return sum;
}

/**
 * Ends an A/B script's sides (each `{api, admin, etcd}` clients), then every tracked process, then
 * its temporary directory.
 */
export async function closeSides(sides, tmp) {
  for (const s of sides) {
    s.api.close();
    s.admin.close();
    s.etcd.close();
  }
  await stopAll();
  await rm(tmp, { recursive: true, force: true }).catch(() => {});
}
