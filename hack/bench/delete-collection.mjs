#!/usr/bin/env node
// Times DeleteCollection and namespace deletion of N ConfigMaps (1 KiB each) on one replica.
// Usage: node hack/bench/delete-collection.mjs <server main.js> <count> [extra server flags...]
// Starts its own etcd and replica on loopback (plain HTTP, a token file), writes the ConfigMaps
// straight into etcd in transactions of 100, then: DELETE on the collection (time until etcd holds
// none of them), refill, DELETE of the namespace (time until the namespace is gone).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Etcd3 } from 'etcd3';

const [main, countArg, ...extra] = process.argv.slice(2);
const count = Number(countArg ?? 5000);
const capMs = Number(process.env.CAP_MS ?? 400_000);
const TOKEN = 'bench-token';

const freePort = () => new Promise((res) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }); });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const dir = await mkdtemp(join(tmpdir(), 'dcbench-'));
const [cport, pport, sport] = [await freePort(), await freePort(), await freePort()];
const etcd = spawn('etcd', ['--data-dir', join(dir, 'etcd'), '--listen-client-urls', `http://127.0.0.1:${cport}`, '--advertise-client-urls', `http://127.0.0.1:${cport}`,
  '--listen-peer-urls', `http://127.0.0.1:${pport}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${pport}`, '--initial-cluster', `default=http://127.0.0.1:${pport}`], { stdio: 'ignore' });
await writeFile(join(dir, 'tokens.csv'), `${TOKEN},bench,bench,system:masters\n`);
const server = spawn('node', [main, `--etcd-servers=http://127.0.0.1:${cport}`, '--dev-insecure-http', `--secure-port=${sport}`, `--data-dir=${join(dir, 'data')}`,
  `--token-auth-file=${join(dir, 'tokens.csv')}`, '--log-level=warn', ...extra], { stdio: ['ignore', 'ignore', 'inherit'] });
const base = `http://127.0.0.1:${sport}`;
const api = (method, path, body) => fetch(base + path, { method, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body), signal: AbortSignal.timeout(capMs) });
const client = new Etcd3({ hosts: `http://127.0.0.1:${cport}` });

try {
  for (let i = 0; i < 120; i++) { try { if ((await api('GET', '/readyz')).ok) break; } catch {} await sleep(500); }
  const data = { v: 'x'.repeat(1024) };
  const fill = async (ns) => {
    if (!(await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).ok) throw new Error('namespace create failed');
    for (let i = 0; i < count; i += 100) {
      const txn = client.if(`/registry/core/configmaps/${ns}/cm-0`, 'Create', '>', -1);
      const ops = [];
      for (let j = i; j < Math.min(count, i + 100); j++) {
        const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `cm-${j}`, namespace: ns, uid: randomUUID(), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }, data };
        ops.push(client.put(`/registry/core/configmaps/${ns}/cm-${j}`).value(JSON.stringify(obj)));
      }
      await txn.then(...ops).commit();
    }
  };
  const left = async (ns) => Number((await client.getAll().prefix(`/registry/core/configmaps/${ns}/`).count()));
  const untilGone = async (check, started) => { while (Date.now() - started < capMs) { if (await check()) return (Date.now() - started) / 1000; await sleep(100); } return NaN; };

  await fill('dc1');
  await sleep(2000);
  let started = Date.now();
  const r = await api('DELETE', '/api/v1/namespaces/dc1/configmaps').then((x) => x.status, (e) => String(e));
  const answered = (Date.now() - started) / 1000;
  const gone = await untilGone(async () => (await left('dc1')) === 0, started);
  console.log(JSON.stringify({ step: 'deletecollection', count, status: r, answeredS: answered, goneS: gone, left: await left('dc1'), loadavg: (await import('node:os')).loadavg().map((x) => x.toFixed(1)) }));

  await fill('dc2');
  await sleep(2000);
  started = Date.now();
  await api('DELETE', '/api/v1/namespaces/dc2');
  const nsGone = await untilGone(async () => (await api('GET', '/api/v1/namespaces/dc2')).status === 404, started);
  console.log(JSON.stringify({ step: 'namespace', count, goneS: nsGone, left: await left('dc2'), loadavg: (await import('node:os')).loadavg().map((x) => x.toFixed(1)) }));
} finally {
  client.close();
  server.kill('SIGTERM');
  await sleep(1000);
  etcd.kill('SIGTERM');
  await sleep(500);
  await rm(dir, { recursive: true, force: true });
}
