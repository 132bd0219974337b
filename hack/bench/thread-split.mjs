// CPU per create of each thread of a replica, two sides interleaved (as ab.mjs), e.g. to find which
// thread a flag's saving comes from:
//   node hack/bench/thread-split.mjs --a=<main.js> [--b=<main.js>] [--rounds=6] [--a-args=...] [--b-args=...]
// Per side, the threads' (utime+stime from /proc/<pid>/task/<tid>/stat) µs per create summed over
// the rounds after the first (warm-up), by thread name and tid, heaviest first.
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { prepareNamespace, replicaClients } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, stopAll, repoRoot } from './lib/processes.mjs';
import { runLoad } from './lib/load.mjs';
import { configMapBody, objectName } from './lib/objects.mjs';
import { arg } from './lib/script-args.mjs';

const ROUNDS = Number(arg('rounds', '6'));
const BATCH = Number(arg('batch', '2000'));
const sides = [
  { label: 'A', main: arg('a'), args: arg('a-args', '').split(' ').filter(Boolean) },
  { label: 'B', main: arg('b', join(repoRoot, 'packages', 'server', 'dist', 'src', 'main.js')), args: arg('b-args', '').split(' ').filter(Boolean) },
];
const TICK_US = 1e6 / 100;

async function threadTicks(pid) {
  const out = new Map();
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    try {
      const s = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      out.set(`${name}#${tid}`, Number(f[11]) + Number(f[12]));
    } catch {
      // the thread ended
    }
  }
  return out;
}

const tmp = await mkdtemp(join(tmpdir(), 'thread-split-'));
try {
  for (const s of sides) {
    const e = await startBenchEtcd(join(tmp, `${s.label}-etcd`));
    s.replica = await startReplica({ etcdEndpoint: e.endpoint, dataDir: join(tmp, `${s.label}-srv`), main: resolve(s.main), extraArgs: s.args });
    const { admin, api } = await replicaClients(s.replica, 64);
    await prepareNamespace(admin, api, 'bench-ts', s.replica.workloadUser);
    s.api = api;
    s.created = 0;
    s.sum = new Map();
    s.ops = 0;
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...sides].reverse() : sides;
    for (const s of order) {
      const first = s.created;
      s.created += BATCH;
      const bodies = Array.from({ length: BATCH }, (_, i) => JSON.stringify(configMapBody('bench-ts', objectName('cm', first + i))));
      const before = await threadTicks(s.replica.pid);
      const run = await runLoad({ total: BATCH, concurrency: 64, timeCapMs: 120_000, op: (i) => s.api.request('POST', '/api/v1/namespaces/bench-ts/configmaps', bodies[i]) });
      const after = await threadTicks(s.replica.pid);
      if (round === 0) continue;
      s.ops += run.done;
      for (const [k, v] of after) s.sum.set(k, (s.sum.get(k) ?? 0) + v - (before.get(k) ?? 0));
    }
  }
  for (const s of sides) {
    const rows = [...s.sum.entries()].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
    const total = rows.reduce((n, [, v]) => n + v, 0);
    console.log(`${s.label} ${s.main} ${s.args.join(' ')}: ${Math.round((total * TICK_US) / s.ops)} µs per create over ${s.ops}`);
    for (const [k, v] of rows) console.log(`  ${String(Math.round((v * TICK_US) / s.ops)).padStart(5)} µs  ${k}`);
  }
} finally {
  await stopAll();
}
