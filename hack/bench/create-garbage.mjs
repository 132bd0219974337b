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
import { join, resolve } from 'node:path';
import { prepareNamespace, replicaClients } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, stopAll, repoRoot } from './lib/processes.mjs';
import { runLoad } from './lib/load.mjs';
import { configMapBody, objectName } from './lib/objects.mjs';

const arg = (name, d) => process.argv.slice(2).find((x) => x.startsWith(`--${name}=`))?.slice(name.length + 3) ?? d;
const MAIN = resolve(arg('main', join(repoRoot, 'packages', 'server', 'dist', 'src', 'main.js')));
const BATCH = Number(arg('batch', '4000'));
const INTERVAL = Number(arg('interval', '4096'));
const TOP = Number(arg('top', '30'));
const dd = process.argv.indexOf('--');
const REPLICA_ARGS = dd >= 0 ? process.argv.slice(dd + 1) : [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ours = (url) => url.includes('/packages/') && !url.includes('node_modules');
const short = (f) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/packages\//, '').replace(/^.*\/node_modules\//, 'nm:').replace(/^file:\/\//, '')}:${f.lineNumber + 1}`;

function summarize(profile) {
  const byOurs = new Map();
  const bySelf = new Map();
  const byChain = new Map();
  let total = 0;
  const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
  const walk = (node, stack) => {
    const here = [...stack, node.callFrame];
    if (node.selfSize > 0) {
      total += node.selfSize;
      const mine = [...here].reverse().find((f) => ours(f.url));
      add(byOurs, mine ? short(mine) : '(no frame of ours)', node.selfSize);
      add(bySelf, short(node.callFrame), node.selfSize);
      add(byChain, here.slice(-4).reverse().map(short).join(' < '), node.selfSize);
    }
    for (const c of node.children) walk(c, here);
  };
  walk(profile.head, []);
  return { total, byOurs, bySelf, byChain };
}

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
  const s = summarize(data.profile);
  const per = (v) => `${(v / BATCH).toFixed(0).padStart(7)} B  ${((100 * v) / s.total).toFixed(1).padStart(5)}%`;
  process.stdout.write(
    `${MAIN}: ${(s.total / BATCH).toFixed(0)} B allocated per create; ${data.gc.minor} scavenges (${data.gc.minorMs.toFixed(0)} ms), ` +
      `${data.gc.major} mark-compacts (${data.gc.majorMs.toFixed(0)} ms), ${(data.cpuUs / BATCH).toFixed(0)} µs CPU per create (profiler on)\n`,
  );
  for (const [title, map] of [['by innermost frame of ours', s.byOurs], ['by allocating frame', s.bySelf], ['by allocating frame and three callers', s.byChain]]) {
    process.stdout.write(`\n${title} (bytes per create, share)\n`);
    for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, TOP)) process.stdout.write(`${per(v)}  ${k}\n`);
  }
} finally {
  await stopAll();
  await rm(tmp, { recursive: true, force: true });
}
