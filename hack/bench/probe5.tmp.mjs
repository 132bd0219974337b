import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, Agent } from 'node:https';
import { newEtcdClient } from '../../packages/storage/dist/src/index.js';
import { HttpClient, ensureNamespace } from './lib/http-client.mjs';
import { startBenchEtcd, startReplica, stopAll } from './lib/processes.mjs';
import { putStoredConfigMaps } from './lib/objects.mjs';
const tmp = await mkdtemp(join(tmpdir(), 'p5-'));
const e = await startBenchEtcd(join(tmp, 'etcd'));
const etcd = newEtcdClient([e.endpoint]);
const r = await startReplica({ etcdEndpoint: e.endpoint, dataDir: join(tmp, 's'), cpuProfDir: process.env.PROF });
const api = new HttpClient({ host: r.host, port: r.port, ca: r.ca, token: r.token, maxSockets: 4 });
const agent = new Agent({ keepAlive: true, ca: r.ca });
function timed(path) { return new Promise((resolve, reject) => { const t0 = performance.now(); let th; const chunks = [];
  const req = request({ host: r.host, port: r.port, path, agent, headers: { Accept: 'application/json', Authorization: `Bearer ${r.token}` } }, (res) => { th = performance.now(); res.on('data', (c) => chunks.push(c)); res.on('end', () => { const t2 = performance.now(); const body = JSON.parse(Buffer.concat(chunks).toString()); resolve({ hdr: th - t0, total: t2 - t0, parse: performance.now() - t2, cont: body.metadata.continue, n: body.items.length, bytes: chunks.reduce((a, c) => a + c.length, 0) }); }); });
  req.on('error', reject); req.end(); }); }
try {
  await ensureNamespace(api, 'bl');
  await putStoredConfigMaps(etcd, 'bl', 'cm', 10000);
  for (;;) { const res = await api.request('GET', '/api/v1/namespaces/bl/configmaps?resourceVersion=0'); if (JSON.parse(res.body).items.length === 10000) break; await new Promise(r=>setTimeout(r,300)); }
  for (let rep = 0; rep < 8; rep++) {
    let cont = ''; const rows = []; const t0 = performance.now();
    for (let p = 0; p < 30; p++) { const x = await timed(`/api/v1/namespaces/bl/configmaps?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`); rows.push(x); cont = x.cont; if (!cont) break; }
    console.log(`total ${(performance.now() - t0).toFixed(0)} ms; pages ${rows.length}; hdr avg ${(rows.reduce((a, x) => a + x.hdr, 0) / rows.length).toFixed(1)} first ${rows[0].hdr.toFixed(1)}; total avg ${(rows.reduce((a, x) => a + x.total, 0) / rows.length).toFixed(1)}; parse avg ${(rows.reduce((a, x) => a + x.parse, 0) / rows.length).toFixed(1)}`);
  }
} finally { api.close(); etcd.close(); agent.destroy(); await stopAll(); }
