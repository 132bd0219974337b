#!/usr/bin/env node
// Starts the built server (packages/server/dist, `make build` first) as `make run` does, on a
// fresh data directory each time, many times in a row, and counts the starts that do not print
// "listening on" (the primary prints it once every worker serves) within the bound. A start that
// stalls is examined before it is killed: native stacks of every thread (gdb), a Node diagnostic
// report (SIGUSR2, with --report-on-signal), and the server's own log are kept in --out.
//
//   node hack/thread-start-stress.mjs [--isolation=thread|process] [--runs=30] [--load=4]
//        [--timeout-ms=60000] [--out=DIR] [--no-gdb] [-- extra server flags...]
//
// --load starts that many CPU-burning child processes beside the server for the whole run (the
// stall was seen at load average ~15 on 2 cores). Every process is stopped by its PID (the server
// and what it started by the process group this script gave it).
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readdirSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dashes = process.argv.indexOf('--');
const own = dashes >= 0 ? process.argv.slice(2, dashes) : process.argv.slice(2);
const extra = dashes >= 0 ? process.argv.slice(dashes + 1) : [];
const opt = (name, def) => {
  const hit = own.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (!hit) return def;
  return hit.includes('=') ? hit.slice(hit.indexOf('=') + 1) : 'true';
};
// `both`: thread and process starts alternate, so that both see the same load.
const isolation = opt('isolation', 'thread');
const kinds = isolation === 'both' ? ['thread', 'process'] : [isolation];
const runs = Math.min(500, Number(opt('runs', '30')));
const load = Math.min(16, Number(opt('load', '0')));
const timeoutMs = Number(opt('timeout-ms', '60000'));
const useGdb = opt('no-gdb', 'false') !== 'true';
// --probe-at-ms=N: a start not ready N ms after it began is examined then too (and goes on).
const probeAtMs = Number(opt('probe-at-ms', '0'));
const out = resolve(opt('out', join(tmpdir(), `thread-start-stress-${isolation}-${Date.now()}`)));
mkdirSync(out, { recursive: true });

const makeFlags = execFileSync('make', ['-s', '--no-print-directory', '-C', root, 'print-run-flags'], { encoding: 'utf8' }).trim();
// RUN_FLAGS is shell text (its --controllers value is quoted): let bash split it.
const runFlags = execFileSync('bash', ['-c', `for a in ${makeFlags}; do printf '%s\\0' "$a"; done`], { encoding: 'utf8' }).split('\0').filter(Boolean);

const burners = [];
for (let i = 0; i < load; i++) {
  burners.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}
/** The server being started now (its PID leads its own process group). */
let current;
const stopBurners = () => {
  for (const b of burners) if (b.exitCode === null && b.pid) process.kill(b.pid, 'SIGKILL');
  if (current) killGroup(current, 'SIGKILL');
};
process.on('exit', stopBurners);
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Kills the group this script made the server lead (the server, its etcd, its children). */
function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

async function oneStart(n, kind) {
  const dir = mkdtempSync(join(tmpdir(), 'thread-stress-data-'));
  const reportDir = join(out, `run-${n}-reports`);
  mkdirSync(reportDir, { recursive: true });
  const args = [
    '--report-on-signal',
    '--report-signal=SIGUSR2',
    `--report-directory=${reportDir}`,
    join(root, 'packages/server/dist/src/main.js'),
    '--data-dir',
    dir,
    '--secure-port',
    '0',
    ...runFlags,
    `--worker-isolation=${kind}`,
    ...extra,
  ];
  const started = Date.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  current = child.pid;
  let log = '';
  child.stdout.on('data', (d) => (log += d.toString()));
  child.stderr.on('data', (d) => (log += d.toString()));
  const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
  let result = 'stalled';
  let probed = probeAtMs <= 0;
  while (Date.now() - started < timeoutMs) {
    if (!probed && Date.now() - started >= probeAtMs && !/listening on https?:\/\//.test(log)) {
      probed = true;
      await examine(child.pid, join(out, `run-${n}-probe`), reportDir);
    }
    if (/listening on https?:\/\//.test(log)) {
      result = 'ready';
      break;
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      result = 'exited';
      break;
    }
    await sleep(50);
  }
  const ms = Date.now() - started;
  // CPU the server's process (all its threads) had used by then: a slow start on a starved CPU
  // has used about what a quick one uses; a stuck one has used little (or spins).
  const cpuMs = processCpuMs(child.pid);
  if (result === 'stalled' && child.exitCode === null) {
    await examine(child.pid, join(out, `run-${n}`), reportDir);
  }
  writeFileSync(join(out, `run-${n}-${kind}-${result}.log`), log);
  killGroup(child.pid, result === 'ready' ? 'SIGTERM' : 'SIGKILL');
  const stop = await Promise.race([exited, sleep(20_000).then(() => undefined)]);
  if (!stop) killGroup(child.pid, 'SIGKILL');
  await sleep(300);
  killGroup(child.pid, 'SIGKILL'); // anything of the group left (etcd)
  current = undefined;
  rmSync(dir, { recursive: true, force: true });
  if (readdirSync(reportDir).length === 0) rmSync(reportDir, { recursive: true, force: true });
  return { kind, result, ms, cpuMs, ...phases(log, started) };
}

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** User + system CPU of the server's node processes (all threads; worker processes too, not etcd), ms. */
function processCpuMs(group) {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== group || !comm.startsWith('node')) continue;
    total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }
  return total;
}

/**
 * From the server's log: `beforeWorkersMs`, spawn to the embedded etcd started (the same code for
 * both kinds: flags, data directory, certificates, etcd), and `workersMs`, from there to the
 * replica serving (the workers' start).
 */
function phases(log, startedAt) {
  const times = {};
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.msg === 'embedded etcd started') times.etcd ??= entry.time;
      if (entry.msg === 'serving' && entry.workers !== undefined) times.serving ??= entry.time;
    } catch {
      // not a log line
    }
  }
  return {
    ...(times.etcd ? { beforeWorkersMs: times.etcd - startedAt } : {}),
    ...(times.etcd && times.serving ? { workersMs: times.serving - times.etcd } : {}),
  };
}

/** Native stacks of every thread (gdb stops the process while it reads them), /proc's view of each thread, a Node report. */
async function examine(pid, prefix, reportDir) {
  writeFileSync(`${prefix}-proc.txt`, procThreads(pid));
  if (useGdb) {
    const gdb = spawnSync('gdb', ['-p', String(pid), '-batch', '-ex', 'set pagination off', '-ex', 'thread apply all bt'], {
      encoding: 'utf8',
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    writeFileSync(`${prefix}-gdb.txt`, `${gdb.stdout}\n${gdb.stderr}`);
  }
  const before = readdirSync(reportDir).length;
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 100 && readdirSync(reportDir).length === before; i++) await sleep(100);
  await sleep(1000);
}

/** Each thread's name, state and kernel wait channel, from /proc. */
function procThreads(pid) {
  const lines = [];
  const taskDir = `/proc/${pid}/task`;
  if (!existsSync(taskDir)) return '';
  for (const tid of readdirSync(taskDir)) {
    const read = (f) => {
      try {
        return execFileSync('cat', [`${taskDir}/${tid}/${f}`], { encoding: 'utf8' }).trim();
      } catch {
        return '?';
      }
    };
    const stat = read('stat').split(' ');
    lines.push(`${tid} ${read('comm')} state=${stat[2]} wchan=${read('wchan')} utime=${stat[13]} stime=${stat[14]}`);
  }
  return lines.join('\n') + '\n';
}

const results = [];
for (let n = 1; n <= runs; n++) {
  const kind = kinds[(n - 1) % kinds.length];
  const r = await oneStart(n, kind);
  results.push(r);
  const load1 = execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ')[0];
  const split = r.workersMs !== undefined ? ` (${r.beforeWorkersMs} ms before the workers, ${r.workersMs} ms theirs)` : '';
  process.stdout.write(`run ${n}/${runs} ${kind}: ${r.result} in ${r.ms} ms${split}, ${Math.round(r.cpuMs)} ms CPU (load ${load1})\n`);
}
stopBurners();
const summaries = kinds.map((kind) => {
  const mine = results.filter((r) => r.kind === kind);
  const readyRuns = mine.filter((r) => r.result === 'ready');
  const ready = readyRuns.map((r) => r.ms).sort((a, b) => a - b);
  const cpu = readyRuns.map((r) => r.cpuMs).sort((a, b) => a - b);
  const pct = (xs, p) => (xs.length ? Math.round(xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]) : NaN);
  return {
    isolation: kind,
    starts: mine.length,
    load,
    ready: ready.length,
    stalled: mine.filter((r) => r.result === 'stalled').length,
    exited: mine.filter((r) => r.result === 'exited').length,
    readyMs: { min: ready[0], median: pct(ready, 0.5), p90: pct(ready, 0.9), max: ready[ready.length - 1] },
    readyCpuMs: { min: pct(cpu, 0), median: pct(cpu, 0.5), max: pct(cpu, 1) },
    beforeWorkersMsMedian: pct(readyRuns.map((r) => r.beforeWorkersMs).sort((a, b) => a - b), 0.5),
    workersMsMedian: pct(readyRuns.map((r) => r.workersMs).sort((a, b) => a - b), 0.5),
  };
});
writeFileSync(join(out, 'summary.json'), JSON.stringify({ out, summaries, results }, null, 2));
for (const s of summaries) process.stdout.write(`${JSON.stringify(s)}\n`);
process.stdout.write(`logs: ${out}\n`);
