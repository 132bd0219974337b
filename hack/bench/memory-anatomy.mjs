// Where a replica's resident memory is after the memory workload's load: `node
// hack/bench/memory-anatomy.mjs [--items=100000] [--settle=30] [-- <replica flags>]`. Puts the bench
// ConfigMaps into etcd, lists until every worker's cache holds them, waits `settle` seconds, then
// prints the replica's RSS, its anonymous mappings grouped by size (V8 heap pages, malloc arenas'
// 64 MiB heaps, the shared store's buffer, the brk heap) and each worker's V8 heap figures from
// /metrics. Needs etcd on PATH.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newEtcdClient } from '../../packages/storage/dist/src/index.js';
import { prepareNamespace, replicaClients } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, stopAll } from './lib/processes.mjs';
import { putStoredConfigMaps } from './lib/objects.mjs';
import { arg, replicaArgs } from './lib/script-args.mjs';

const ITEMS = Number(arg('items', '100000'));
const SETTLE = Number(arg('settle', '30'));
const extraArgs = replicaArgs();
const NS = 'bench-memory';
const MiB = 1024 * 1024;

async function smaps(pid) {
  const text = await readFile(`/proc/${pid}/smaps`, 'utf8');
  const groups = new Map();
  let cur;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = (parseInt(head[2], 16) - parseInt(head[1], 16)) / 1024;
      const name = head[3] || (size >= 60 * 1024 && size <= 64 * 1024 ? 'anon 60-64 MiB (malloc arena heaps)' : size >= 256 * 1024 ? 'anon >= 256 MiB (shared store / reservations)' : size === 256 ? 'anon 256 KiB (V8 pages)' : 'anon other');
      const key = name.startsWith('/') ? (name.includes('node') ? 'node binary' : 'files') : name;
      cur = groups.get(key) ?? { rss: 0, anon: 0, maps: 0 };
      cur.maps++;
      groups.set(key, cur);
      continue;
    }
    const m = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line);
    if (m && cur) cur[m[1] === 'Rss' ? 'rss' : 'anon'] += Number(m[2]);
  }
  return [...groups].sort((a, b) => b[1].rss - a[1].rss).map(([k, v]) => `  ${k.padEnd(46)} ${(v.rss / 1024).toFixed(1).padStart(7)} MiB in ${v.maps} mappings`);
}

const tmp = await mkdtemp(join(tmpdir(), 'cluster-anatomy-'));
try {
  const etcdProc = await startBenchEtcd(join(tmp, 'etcd'));
  const etcd = newEtcdClient([etcdProc.endpoint]);
  const replica = await startReplica({ etcdEndpoint: etcdProc.endpoint, dataDir: join(tmp, 'server'), extraArgs });
  const { admin, api } = await replicaClients(replica, 4);
  await prepareNamespace(admin, api, NS, replica.workloadUser);
  const status = async () => Number(/^VmRSS:\s+(\d+)/m.exec(await readFile(`/proc/${replica.pid}/status`, 'utf8'))[1]) / 1024;
  console.log(`before: RSS ${(await status()).toFixed(0)} MiB`);
  for (const l of await smaps(replica.pid)) console.log(l);
  await putStoredConfigMaps(etcd, NS, 'cm', ITEMS);
  for (let i = 0, full = 0; i < 600 && full < 6; i++) {
    const res = await api.request('GET', `/api/v1/namespaces/${NS}/configmaps?resourceVersion=0`);
    if (res.status === 200 && JSON.parse(res.body.toString('utf8')).items.length === ITEMS) full++;
    else await new Promise((r) => setTimeout(r, 500));
  }
  await new Promise((r) => setTimeout(r, SETTLE * 1000));
  console.log(`after ${ITEMS} objects and ${SETTLE} s: RSS ${(await status()).toFixed(0)} MiB`);
  for (const l of await smaps(replica.pid)) console.log(l);
  const metrics = (await admin.request('GET', '/metrics')).body.toString('utf8');
  for (const line of metrics.split('\n')) {
    if (/^nodejs_(heap_size_(used|total)_bytes|external_memory_bytes|heap_space_size_used_bytes)/.test(line)) {
      const v = Number(line.slice(line.lastIndexOf(' ') + 1));
      console.log(`  ${line.slice(0, line.lastIndexOf(' '))} ${(v / MiB).toFixed(1)} MiB`);
    }
  }
  api.close();
  admin.close();
  etcd.close();
} finally {
  await stopAll();
  await rm(tmp, { recursive: true, force: true }).catch(() => {});
}
