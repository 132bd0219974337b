// Idle memory of a replica, per process: `node hack/bench/idle-rss.mjs [--main=<main.js>]
// [--settle=40] [--rounds=1] [-- <replica flags>]`. Starts etcd and the replica (as the benchmark
// does), waits `settle` seconds after it serves, then prints VmRSS, RssAnon, RssFile and Pss (MiB)
// of the primary and each worker (or of the one process), and their sums. Needs etcd on PATH.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchEtcd, startReplica, stopAll } from './lib/processes.mjs';
import { arg, replicaArgs } from './lib/script-args.mjs';

const main = arg('main', undefined);
const settleS = Number(arg('settle', '40'));
const rounds = Number(arg('rounds', '1'));
const extraArgs = replicaArgs();

async function status(pid) {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (f) => Number(new RegExp(`^${f}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) / 1024;
  // Pss shares each page among the processes that map it (the node binary's pages, mostly).
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  const pss = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), pss };
}
async function children(pid) {
  try {
    return (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
const f = (n) => n.toFixed(1);

const dir = await mkdtemp(join(tmpdir(), 'idle-rss-'));
try {
  const etcd = await startBenchEtcd(join(dir, 'etcd'));
  for (let r = 0; r < rounds; r++) {
    const replica = await startReplica({ etcdEndpoint: etcd.endpoint, dataDir: join(dir, `data${r}`), ...(main ? { main } : {}), extraArgs });
    await new Promise((res) => setTimeout(res, settleS * 1000));
    const kids = await children(replica.pid);
    const rows = [[kids.length ? 'primary' : 'single', replica.pid], ...kids.map((k, i) => [`worker ${i + 1}`, k])];
    let total = 0;
    let totalPss = 0;
    for (const [name, pid] of rows) {
      const s = await status(pid);
      total += s.rss;
      totalPss += s.pss;
      console.log(`${name.padEnd(9)} pid ${pid}: rss ${f(s.rss)} MiB (anon ${f(s.anon)}, file ${f(s.file)}), pss ${f(s.pss)} MiB`);
    }
    console.log(`total rss ${f(total)} MiB, pss ${f(totalPss)} MiB`);
    await replica.stop();
  }
} finally {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
}
