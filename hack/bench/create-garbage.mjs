// Bytes allocated per create and where: `node hack/bench/create-garbage.mjs [--main=<main.js>]
// [--batch=4000] [--interval=4096] [--top=30] [-- <replica flags>]`.
//
// As watch-garbage.mjs for the create workload: a one-process replica (`--workers=1`) of the
// build `--main` through lib/alloc-profile-main.mjs, one unmeasured batch of creates (64 clients),
// then one batch with V8's sampling heap profiler on (collected allocations included: garbage,
// not what stayed alive). Prints bytes per create, the scavenges, and the allocating sites by the
// innermost frame of this repository's code, by the allocating frame, and with three callers.
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareNamespace, replicaClients } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, stopAll, repoRoot } from './lib/processes.mjs';
import { runLoad } from './lib/load.mjs';
import { configMapBody, objectName } from './lib/objects.mjs';
import { arg, mainArg, replicaArgs } from './lib/script-args.mjs';
import { printTop, summarizeAllocations } from './lib/alloc-summary.mjs';

const MAIN = mainArg();
const BATCH = Number(arg('batch', '4000'));
const INTERVAL = Number(arg('interval', '4096'));
const TOP = Number(arg('top', '30'));
const REPLICA_ARGS = replicaArgs();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const tmp = await mkdtemp(join(tmpdir(), 'cluster-cg-'));
const profDir = join(tmp, 'prof');
await mkdir(profDir);
try {
  const etcdProc = await startBenchEtcd(join(tmp, 'etcd'));
  Object.assign(process.env, { BENCH_ALLOC_DIR: profDir, BENCH_ALLOC_MAIN: MAIN, BENCH_ALLOC_INTERVAL: String(INTERVAL) });
  const replica = await startReplica({
    etcdEndpoint: etcdProc.endpoint,
    dataDir: join(tmp, 'server'),
    main: join(repoRoot, 'hack', 'bench', 'lib', 'alloc-profile-main.mjs'),
    extraArgs: ['--workers=1', ...REPLICA_ARGS],
  });
  const { admin, api } = await replicaClients(replica, 64);
  await prepareNamespace(admin, api, 'bench-cg', replica.workloadUser);
  let created = 0;
  const creates = async () => {
    const first = created;
    created += BATCH;
    const bodies = Array.from({ length: BATCH }, (_, i) => JSON.stringify(configMapBody('bench-cg', objectName('cm', first + i))));
    const run = await runLoad({ total: BATCH, concurrency: 64, timeCapMs: 120_000, op: (i) => api.request('POST', '/api/v1/namespaces/bench-cg/configmaps', bodies[i]) });
    if (run.errors) throw new Error(`create: ${run.firstError}`);
  };
  await creates();
  process.kill(replica.pid, 'SIGUSR2');
  await sleep(300);
  await creates();
  process.kill(replica.pid, 'SIGUSR2');
  let file;
  for (let i = 0; i < 100 && !file; i++) {
    await sleep(200);
    file = (await readdir(profDir)).find((f) => f.endsWith('.json'));
  }
  if (!file) throw new Error('no profile written');
  await sleep(500);
  const data = JSON.parse(await readFile(join(profDir, file), 'utf8'));
  const s = summarizeAllocations(data.profile);
  process.stdout.write(
    `${MAIN}: ${(s.total / BATCH).toFixed(0)} B allocated per create; ${data.gc.minor} scavenges (${data.gc.minorMs.toFixed(0)} ms), ` +
      `${data.gc.major} mark-compacts (${data.gc.majorMs.toFixed(0)} ms), ${(data.cpuUs / BATCH).toFixed(0)} µs CPU per create (profiler on)\n`,
  );
  for (const [title, map] of [['by innermost frame of ours', s.byOurs], ['by allocating frame', s.bySelf], ['by allocating frame and three callers', s.byChain]]) {
    printTop(`${title} (bytes per create, share)`, map, TOP, BATCH, s.total);
  }
} finally {
  await stopAll();
  await rm(tmp, { recursive: true, force: true });
}
