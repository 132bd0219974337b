// Replica CPU per selector list, watch caches in the shared store against decoded:
// `node hack/bench/selector-cost.mjs [--main=<main.js>] [--items=20000] [--rounds=5] [--lists=10]
// [--a-args=...] [--b-args=...] [-- <replica flags for both>]`.
//
// Two replicas of one build (A: `--watch-cache-shared-store=false`, B: `=true` unless --a-args /
// --b-args say otherwise), each with an etcd of its own holding `--items` bench ConfigMaps (1 KiB,
// no labels) in one namespace. Every round runs, per query, `--lists` resourceVersion=0 lists on A
// then on B (B first in even rounds), and divides the replica's CPU (user + system, /proc) by the
// lists. Queries: `labelSelector=app=none` (nothing matches), `fieldSelector=metadata.name=<one>`,
// no selector. Before the rounds each side answers every query `--lists` times unmeasured but
// reported as "first": a shared store's thread learns a version's labels and fields the first
// time a selector looks at it (one decode each), then selects on them.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newEtcdClient } from '../../packages/storage/dist/src/index.js';
import { prepareNamespace, replicaClients } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, readCpuSeconds, closeSides } from './lib/processes.mjs';
import { quantile } from './lib/load.mjs';
import { objectName, putStoredConfigMaps } from './lib/objects.mjs';
import { arg, mainArg, replicaArgs } from './lib/script-args.mjs';

const MAIN = mainArg();
const ITEMS = Number(arg('items', '20000'));
const ROUNDS = Number(arg('rounds', '5'));
const LISTS = Number(arg('lists', '10'));
const REPLICA_ARGS = replicaArgs();
const SIDE_ARGS = {
  A: (arg('a-args', '--watch-cache-shared-store=false') ?? '').split(' ').filter(Boolean),
  B: (arg('b-args', '--watch-cache-shared-store=true') ?? '').split(' ').filter(Boolean),
};
const NS = 'bench-selectors';
const QUERIES = {
  'label none': 'labelSelector=app%3Dnone',
  'field name': `fieldSelector=metadata.name%3D${objectName('cm', Math.floor(ITEMS / 2))}`,
  'no selector': '',
};
const EXPECTED = { 'label none': 0, 'field name': 1, 'no selector': ITEMS };
const log = (m) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

async function startSide(label, tmp) {
  const etcdProc = await startBenchEtcd(join(tmp, `${label}-etcd`));
  const etcd = newEtcdClient([etcdProc.endpoint]);
  const replica = await startReplica({ etcdEndpoint: etcdProc.endpoint, dataDir: join(tmp, `${label}-server`), main: MAIN, extraArgs: [...REPLICA_ARGS, ...SIDE_ARGS[label]] });
  const { admin, api } = await replicaClients(replica, 4);
  await prepareNamespace(admin, api, NS, replica.workloadUser);
  await putStoredConfigMaps(etcd, NS, 'cm', ITEMS);
  // Every worker's cache must hold them all: lists until several in a row see every item.
  for (let i = 0, full = 0; i < 240 && full < 8; i++) {
    const res = await api.request('GET', `/api/v1/namespaces/${NS}/configmaps?resourceVersion=0`);
    if (res.status === 200 && JSON.parse(res.body.toString('utf8')).items.length === ITEMS) full++;
    else {
      full = 0;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  log(`${label}: ${SIDE_ARGS[label].join(' ')} at ${replica.url} (pid ${replica.pid})`);
  return { label, etcd, replica, admin, api };
}

async function lists(side, query, n) {
  const path = `/api/v1/namespaces/${NS}/configmaps?resourceVersion=0${QUERIES[query] ? `&${QUERIES[query]}` : ''}`;
  const c0 = await readCpuSeconds(side.replica.pid);
  for (let i = 0; i < n; i++) {
    const res = await side.api.request('GET', path);
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
    const got = JSON.parse(res.body.toString('utf8')).items.length;
    if (got !== EXPECTED[query]) throw new Error(`${side.label} ${query}: ${got} items, want ${EXPECTED[query]}`);
  }
  return (((await readCpuSeconds(side.replica.pid)) - c0) / n) * 1000;
}

async function main() {
  const tmp = await mkdtemp(join(tmpdir(), 'cluster-selcost-'));
  const sides = [];
  const first = {};
  const figures = {};
  try {
    sides.push(await startSide('A', tmp));
    sides.push(await startSide('B', tmp));
    for (const q of Object.keys(QUERIES)) for (const s of sides) ((first[q] ??= {})[s.label] = await lists(s, q, LISTS));
    for (let r = 1; r <= ROUNDS; r++) {
      for (const q of Object.keys(QUERIES)) {
        for (const s of r % 2 ? sides : [...sides].reverse()) ((figures[q] ??= { A: [], B: [] })[s.label]).push(await lists(s, q, LISTS));
      }
      log(`round ${r}/${ROUNDS} done`);
    }
  } finally {
    await closeSides(sides, tmp);
  }
  const f = (ms) => `${ms.toFixed(1)} ms`;
  const out = [
    `A = ${SIDE_ARGS.A.join(' ')}, B = ${SIDE_ARGS.B.join(' ')}; ${MAIN}; replica flags: ${REPLICA_ARGS.join(' ') || '(default)'}`,
    `${ITEMS} ConfigMaps, resourceVersion=0 lists; ${ROUNDS} rounds of ${LISTS} lists per query and side; replica CPU per list`,
    '',
    'query          first A | B          A median   B median   B/A paired   per-round A | B',
  ];
  for (const [q, v] of Object.entries(figures)) {
    const am = quantile(v.A, 0.5);
    const bm = quantile(v.B, 0.5);
    const paired = quantile(v.A.map((a, i) => v.B[i] / a), 0.5);
    out.push(
      `${q.padEnd(13)} ${f(first[q].A).padStart(9)} | ${f(first[q].B).padEnd(9)} ${f(am).padStart(9)} ${f(bm).padStart(10)} ${paired.toFixed(2).padStart(12)}   ${v.A.map(f).join(' ')} | ${v.B.map(f).join(' ')}`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exitCode = 1;
});
