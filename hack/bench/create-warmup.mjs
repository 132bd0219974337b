// Replica CPU per create in consecutive batches on a fresh replica, from its first create on:
//   node hack/bench/create-warmup.mjs [--main=<main.js>] [--batches=10] [--batch=2000] [-- <replica flags>]
// Shows how much of a fresh replica's CPU per create is warm-up (JIT compiling, heap growth):
// `make bench`'s create figure is the mean over 20,000 creates after 200 unmeasured ones.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareNamespace, replicaClients } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, stopAll, readCpuSeconds } from './lib/processes.mjs';
import { runLoad } from './lib/load.mjs';
import { configMapBody, objectName } from './lib/objects.mjs';
import { arg, mainArg, replicaArgs } from './lib/script-args.mjs';

const MAIN = mainArg();
const BATCHES = Number(arg('batches', '10'));
const BATCH = Number(arg('batch', '2000'));

/** CPU ticks (1/100 s) of each thread of `pid`, by tid. */
async function threadTicks(pid) {
  const out = new Map();
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    try {
      const f = (await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8')).split(') ')[1].split(' ');
      out.set(tid, Number(f[11]) + Number(f[12]));
    } catch {
      // the thread ended
    }
  }
  return out;
}

const tmp = await mkdtemp(join(tmpdir(), 'cluster-cw-'));
try {
  const etcdProc = await startBenchEtcd(join(tmp, 'etcd'));
  const replica = await startReplica({ etcdEndpoint: etcdProc.endpoint, dataDir: join(tmp, 'server'), main: MAIN, extraArgs: replicaArgs() });
  const { admin, api } = await replicaClients(replica, 64);
  await prepareNamespace(admin, api, 'bench-cw', replica.workloadUser);
  const series = [];
  for (let b = 0; b < BATCHES; b++) {
    const bodies = Array.from({ length: BATCH }, (_, i) => JSON.stringify(configMapBody('bench-cw', objectName('cm', b * BATCH + i))));
    const before = await readCpuSeconds(replica.pid);
    const ticks = await threadTicks(replica.pid);
    const run = await runLoad({ total: BATCH, concurrency: 64, timeCapMs: 120_000, op: (i) => api.request('POST', '/api/v1/namespaces/bench-cw/configmaps', bodies[i]) });
    const cpu = (await readCpuSeconds(replica.pid)) - before;
    series.push(Math.round((cpu * 1e6) / run.done));
    const after = await threadTicks(replica.pid);
    const per = [...after].map(([tid, t]) => [tid, Math.round(((t - (ticks.get(tid) ?? 0)) * 1e4) / run.done)]).filter(([, us]) => us > 0);
    // The heaviest threads are the workers' JS threads; the rest are V8's helper threads (and the primary).
    per.sort((a, b) => b[1] - a[1]);
    console.log(`batch ${b + 1}: ${series[b]} µs per create; by thread: ${per.map(([tid, us]) => `${us}`).join(' ')}`);
  }
  const mean = Math.round(series.reduce((a, b) => a + b, 0) / series.length);
  console.log(`${MAIN}: µs per create by batch of ${BATCH}: ${series.join(' ')} (mean ${mean})`);
} finally {
  await stopAll();
  await rm(tmp, { recursive: true, force: true });
}
