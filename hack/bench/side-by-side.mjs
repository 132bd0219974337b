// Side by side with upstream: starts the upstream kube-apiserver (a local build, started with
// the upstream-anchor scripts) and one replica of this server, each on an etcd of its own, both
// under RBAC, runs the same remote workloads (`run.mjs --kubeconfig=`) against each in turn as
// the same kind of user (a client certificate, granted by a ClusterRoleBinding), with each
// server's CPU and RSS read from /proc by PID, and prints both results and their ratios.
// Everything it starts is stopped by PID at the end, on errors and on Ctrl-C.
//
//   node hack/bench/side-by-side.mjs [--rounds=N] [--no-floors]   (BENCH_SCALE and BENCH_ONLY pass through)
//
// Each round first runs `make bench` itself (run.mjs, its own etcd and replica) for the floors'
// CPU per operation (raw etcd, the bare servers) at the same scale, then the remote runs; from the
// floors' and upstream's CPU it derives the CPU budgets (lib/cpu-budgets.mjs) and prints them
// beside those in lib/budgets.mjs. `--no-floors` skips that run. Each round then runs ours once
// more at the write rate upstream's fan-out reached, and the memory workload on both sides.
//
// UPSTREAM_KUBE_APISERVER: the upstream binary (default /work/anchor/bin/kube-apiserver);
// UPSTREAM_ANCHOR_TOOLS: the anchor scripts (default ../shared/tools/upstream-anchor from the
// main checkout, or /work/shared/tools/upstream-anchor). Extra flags for this server's replica
// go in BENCH_REPLICA_ARGS, as for `make bench`.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { issueClientCertificate } from '../../packages/server/dist/src/index.js';
import { HttpClient } from './lib/http-client.mjs';
import { BEAT_UPSTREAM_BY, deriveBudgets } from './lib/cpu-budgets.mjs';
import { CPU_BUDGETS } from './lib/budgets.mjs';
import { repoRoot, startBenchEtcd, startReplica, stopAll } from './lib/processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const USER = 'bench-user';
const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? '1');
const floors = !process.argv.includes('--no-floors');
/** The workloads that have a floor (and a CPU budget); memory and noisy-neighbour have none. */
const FLOOR_WORKLOADS = ['create', 'get', 'get-cached', 'list', 'watch-fanout'];
const log = (msg) => process.stderr.write(`[side-by-side] ${msg}\n`);
/** The workloads BENCH_ONLY names, or undefined for all. */
const benchOnly = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());

function anchorTools() {
  const candidates = [process.env.UPSTREAM_ANCHOR_TOOLS, join(repoRoot, '..', 'shared', 'tools', 'upstream-anchor'), '/work/shared/tools/upstream-anchor'];
  const found = candidates.find((d) => d && existsSync(join(d, 'start-upstream.sh')));
  if (!found) throw new Error('the upstream-anchor scripts were not found (set UPSTREAM_ANCHOR_TOOLS)');
  return found;
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** As the server's admin: the workload user may create and delete namespaces and do anything with ConfigMaps. */
async function grantWorkloadUser(admin) {
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'bench-remote' },
    rules: [
      { apiGroups: [''], resources: ['namespaces'], verbs: ['create', 'get', 'delete'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] },
    ],
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'bench-remote' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bench-remote' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
  };
  for (const [path, body] of [
    ['/apis/rbac.authorization.k8s.io/v1/clusterroles', role],
    ['/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding],
  ]) {
    const res = await admin.request('POST', path, JSON.stringify(body));
    if (res.status !== 201 && res.status !== 409) throw new Error(`POST ${path}: HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
  }
}

/** Waits (bounded) until the workload user's grant is in effect: RBAC follows a watch. */
async function waitGranted(user) {
  for (let i = 0; i < 100; i++) {
    const res = await user.request('GET', '/api/v1/namespaces/default/configmaps?limit=1');
    if (res.status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the workload user was not granted configmaps within 10 s');
}

function kubeconfig({ url, ca, cert, key }) {
  const b64 = (s) => Buffer.from(s).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: bench',
    '  cluster:',
    `    server: ${url}`,
    `    certificate-authority-data: ${b64(ca)}`,
    'users:',
    `- name: ${USER}`,
    '  user:',
    `    client-certificate-data: ${b64(cert)}`,
    `    client-key-data: ${b64(key)}`,
    'contexts:',
    '- name: bench',
    '  context:',
    '    cluster: bench',
    `    user: ${USER}`,
    'current-context: bench',
    '',
  ].join('\n');
}

/** One remote run of hack/bench/run.mjs; resolves with its JSON result (last stdout line). */
function remoteRun(name, kubeconfigFile, pids, env = {}) {
  return benchRun(name, [`--kubeconfig=${kubeconfigFile}`], { BENCH_REMOTE_PIDS: pids.join(','), ...env });
}

/**
 * Ours again, watch-fanout only, offered upstream's write rate: upstream's sequential writer is
 * slowed by its own update round trip (about 20 ms under 1,000 watchers), so at the bench's 200/s
 * the two sides are offered different loads. This run compares them under the same one.
 */
function oursAtUpstreamRate(side, upstreamFanout, round) {
  const rate = upstreamFanout?.writeRate;
  if (!rate) return undefined;
  log(`round ${round}: ours, watch-fanout at upstream's ${rate} writes/s`);
  return remoteRun(`ours at ${rate}/s`, side.kubeconfig, side.pids, { BENCH_ONLY: 'watch-fanout', BENCH_WATCH_RATE: String(rate) });
}

/**
 * The memory workload on both sides (lib/remote-memory.mjs), each in a run of its own after the
 * others, so that only its objects are cached: when BENCH_ONLY is unset or names it.
 */
async function memoryRuns(sides, round) {
  if (benchOnly && !benchOnly.includes('memory')) return undefined;
  const out = {};
  for (const side of sides) {
    log(`round ${round}: ${side.name}, memory`);
    out[side.name] = (await remoteRun(`${side.name} memory`, side.kubeconfig, side.pids, { BENCH_ONLY: 'memory' })).workloads.memory;
  }
  return out;
}

/** One line on the memory runs: each side's RSS after it, and ours / upstream against issue 33's goal. */
function memoryLine(m) {
  const u = m?.upstream?.value;
  const o = m?.ours?.value;
  if (!u || !o) return `memory: upstream ${u ?? '-'} MiB, ours ${o ?? '-'} MiB (${m?.upstream?.note ?? ''} / ${m?.ours?.note ?? ''})`;
  return `memory (RSS after the memory workload): upstream ${u} MiB, ours ${o} MiB, ours / upstream ${(o / u).toFixed(2)} (goal <= 0.6)`;
}

/** The fan-out's latency on each side: p99 from the update's issue and from its due time. */
function fanoutTable(rows) {
  const out = [['run', 'offered / reached writes/s', 'p99 from issue', 'p99 from due time', 'missed', 'CPU per event']];
  for (const [name, r] of rows) {
    if (!r) continue;
    out.push([name, `${r.ratePerSec ?? '-'} / ${r.writeRate ?? '-'}`, `${fmt(r.value)} ms`, `${fmt(r.p99FromDue)} ms`, String(r.missed ?? '-'), `${fmt(r.cpuUsPerEvent)} µs`]);
  }
  return table(out);
}

/** The local run (its own etcd and replica) for the floors' CPU; undefined when nothing selected has a floor. */
function floorsRun() {
  const keys = FLOOR_WORKLOADS.filter((k) => !benchOnly || benchOnly.includes(k));
  if (keys.length === 0) return undefined;
  return benchRun('floors', [], { BENCH_ONLY: keys.join(',') });
}

function benchRun(name, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'run.mjs'), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c) => {
      for (const line of c.split('\n')) if (line.trim()) process.stderr.write(`[${name}] ${line}\n`);
    });
    child.once('close', (code) => {
      process.stdout.write(`\n== ${name} ==\n${out}`);
      const last = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`${name}: run.mjs exited ${code} without a JSON result`));
      }
    });
  });
}

const fmt = (x) => (x === undefined || x === null ? '-' : x >= 1000 ? Math.round(x).toLocaleString('en-US') : String(x));
const cpuOf = (r) => r?.cpuUsPerOp ?? r?.cpuMsPerList ?? r?.cpuUsPerEvent;
const cpuUnit = (r) => (r?.cpuUsPerOp !== undefined ? 'µs' : r?.cpuMsPerList !== undefined ? 'ms' : 'µs/event');

/** The comparison table: value and server CPU per operation of each side, and ours / upstream. */
function compare(upstream, ours) {
  const rows = [['workload', 'upstream', 'ours', 'ours / upstream (value)', 'CPU upstream / ours', `CPU ours / upstream (goal <= ${(1 / BEAT_UPSTREAM_BY).toFixed(2)})`]];
  for (const name of Object.keys(upstream.workloads)) {
    const u = upstream.workloads[name];
    const o = ours.workloads[name];
    if (!o) continue;
    const cell = (r) => `${fmt(r.value)} ${r.unit}${cpuOf(r) !== undefined ? `, ${fmt(cpuOf(r))} ${cpuUnit(r)} CPU` : ''}${r.ok ? '' : ' (not ok)'}`;
    const ratio = u.value && o.value ? (o.value / u.value).toFixed(2) : '-';
    const cpu = cpuOf(u) && cpuOf(o) ? (cpuOf(u) / cpuOf(o)).toFixed(2) : '-';
    const cpuOurs = cpuOf(u) && cpuOf(o) ? (cpuOf(o) / cpuOf(u)).toFixed(2) : '-';
    rows.push([name, cell(u), cell(o), ratio, cpu, cpuOurs]);
  }
  return table(rows);
}

/** Rows (the first a header) as a text table. */
function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r, j) => r.map((c, i) => c.padEnd(widths[i])).join(' | ') + (j === 0 ? `\n${widths.map((w) => '-'.repeat(w)).join('-|-')}` : '')).join('\n');
}

const num = (x) => (x === undefined || x === null ? '-' : x >= 100 ? String(Math.round(x)) : x >= 1 ? x.toFixed(1) : x.toPrecision(3));

/**
 * The CPU budgets one round gives: floor and upstream CPU per operation (lists per item), floor /
 * upstream, times BEAT_UPSTREAM_BY, against the budgets in lib/budgets.mjs; ours / upstream from
 * the remote run; and the local replica's cpuRatio (floor / replica) of the floors run.
 */
function budgetTable(derived, floorsResult) {
  const rows = [['workload', 'floor CPU', 'upstream CPU', 'floor / upstream', `budget (x ${BEAT_UPSTREAM_BY})`, 'budgets.mjs', 'ours / upstream', 'local cpuRatio']];
  for (const [name, d] of Object.entries(derived)) {
    const unit = name.startsWith('list-') ? 'µs/item' : name === 'watch-fanout' ? 'µs/event' : 'µs';
    const perItemUs = (x) => (name.startsWith('list-') ? x * 1000 : x);
    const local = floorsResult?.workloads?.[name]?.cpuRatio;
    rows.push([
      name,
      `${num(perItemUs(d.floor))} ${unit}`,
      `${num(perItemUs(d.upstream))} ${unit}`,
      (d.floor / d.upstream).toFixed(3),
      String(d.budget),
      CPU_BUDGETS[name] === undefined ? '-' : String(CPU_BUDGETS[name]),
      d.oursOverUpstream === undefined ? '-' : d.oursOverUpstream.toFixed(2),
      local === undefined || local === null ? '-' : local.toFixed(3),
    ]);
  }
  return table(rows);
}

async function main() {
  const upstreamBin = process.env.UPSTREAM_KUBE_APISERVER || '/work/anchor/bin/kube-apiserver';
  if (!existsSync(upstreamBin)) throw new Error(`no upstream kube-apiserver at ${upstreamBin} (build it per upstream-anchor/README.md, or set UPSTREAM_KUBE_APISERVER)`);
  const tools = anchorTools();
  const tmp = await mkdtemp(join(tmpdir(), 'bench-side-by-side-'));
  // The anchor scripts keep their PKI, pid file and log in ANCHOR_DIR: a directory of this run's own.
  const anchorDir = join(tmp, 'anchor');
  const env = { ...process.env, ANCHOR_DIR: anchorDir };
  let upstreamStarted = false;
  const clients = [];
  try {
    await mkdir(join(anchorDir, 'bin'), { recursive: true });
    await symlink(upstreamBin, join(anchorDir, 'bin', 'kube-apiserver'));
    await run('bash', [join(tools, 'make-pki.sh')], { env });
    const etcdUpstream = await startBenchEtcd(join(tmp, 'etcd-upstream'));
    const etcdOurs = await startBenchEtcd(join(tmp, 'etcd-ours'));
    const port = await freePort();
    upstreamStarted = true;
    await run('bash', [join(tools, 'start-upstream.sh'), String(port), etcdUpstream.endpoint], { env, timeout: 120_000 });
    const upstreamPid = Number((await readFile(join(anchorDir, 'upstream.pid'), 'utf8')).trim());
    upstreamPidForSignals = upstreamPid;
    const replica = await startReplica({ etcdEndpoint: etcdOurs.endpoint, dataDir: join(tmp, 'ours') });
    log(`upstream ${upstreamBin} on 127.0.0.1:${port} (pid ${upstreamPid}, etcd pid ${etcdUpstream.pid}); ours ${replica.url} (pid ${replica.pid}, etcd pid ${etcdOurs.pid})`);

    const pki = join(anchorDir, 'pki');
    const upstreamCa = await readFile(join(pki, 'ca.crt'), 'utf8');
    const upstreamPair = issueClientCertificate(upstreamCa, await readFile(join(pki, 'ca.key'), 'utf8'), { commonName: USER, organizations: ['bench-clients'] });
    const sides = [
      { name: 'upstream', url: `https://127.0.0.1:${port}`, host: '127.0.0.1', port, ca: upstreamCa, token: 'anchor-admin-token', cert: upstreamPair.certPem, key: upstreamPair.keyPem, pids: [upstreamPid] },
      { name: 'ours', url: replica.url, host: replica.host, port: replica.port, ca: replica.ca, token: replica.token, cert: replica.clientCert.cert, key: replica.clientCert.key, pids: [replica.pid] },
    ];
    for (const side of sides) {
      const admin = new HttpClient({ host: side.host, port: side.port, ca: side.ca, token: side.token, maxSockets: 2 });
      const user = new HttpClient({ host: side.host, port: side.port, ca: side.ca, clientCert: { cert: side.cert, key: side.key }, maxSockets: 2 });
      clients.push(admin, user);
      await grantWorkloadUser(admin);
      await waitGranted(user);
      side.kubeconfig = join(tmp, `${side.name}.kubeconfig`);
      await writeFile(side.kubeconfig, kubeconfig(side), { mode: 0o600 });
    }

    const results = { upstream: [], ours: [], oursAtUpstreamRate: [], memory: [], floors: [], derived: [] };
    // The regular remote runs' selection: memory has runs of its own (memoryRuns); '' = none left.
    const regularOnly = benchOnly?.filter((k) => k !== 'memory').join(',');
    for (let r = 0; r < rounds; r++) {
      if (floors) {
        log(`round ${r + 1}/${rounds}: floors (a local run), load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
        results.floors.push(await floorsRun());
      }
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        log(`round ${r + 1}/${rounds}: ${side.name}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
        results[side.name].push(regularOnly === '' ? { workloads: {} } : await remoteRun(side.name, side.kubeconfig, side.pids, regularOnly ? { BENCH_ONLY: regularOnly } : {}));
      }
      results.oursAtUpstreamRate.push(await oursAtUpstreamRate(sides[1], results.upstream[r].workloads['watch-fanout'], r + 1));
      results.memory.push(await memoryRuns(r % 2 === 0 ? sides : [...sides].reverse(), r + 1));
    }
    const out = [`\nside by side: scale ${process.env.BENCH_SCALE ?? '1'}, ${rounds} round(s), load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}`];
    for (let r = 0; r < rounds; r++) {
      out.push('', `round ${r + 1}:`, compare(results.upstream[r], results.ours[r]));
      const fanouts = [
        ['upstream', results.upstream[r].workloads['watch-fanout']],
        ['ours', results.ours[r].workloads['watch-fanout']],
        ["ours at upstream's rate", results.oursAtUpstreamRate[r]?.workloads['watch-fanout']],
      ];
      if (fanouts[0][1]) out.push('', `round ${r + 1}: watch-fanout latency`, fanoutTable(fanouts));
      if (results.memory[r]) out.push('', `round ${r + 1}: ${memoryLine(results.memory[r])}`);
      const f = results.floors[r];
      if (f) {
        const derived = deriveBudgets({ floors: f.workloads, upstream: results.upstream[r].workloads, ours: results.ours[r].workloads });
        results.derived.push(derived);
        out.push('', `round ${r + 1}: CPU budgets (floor / upstream x ${BEAT_UPSTREAM_BY}; floors from the local run, upstream from its remote run):`, budgetTable(derived, f));
      }
    }
    out.push('', JSON.stringify(results));
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    for (const c of clients) c.close();
    if (upstreamStarted) await run('bash', [join(tools, 'stop-upstream.sh')], { env }).catch((e) => log(`stop-upstream: ${e.message}`));
    await stopAll();
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
  }
}

// lib/processes.mjs stops its own children on a signal; the upstream server is the anchor
// script's child, stopped here by its recorded PID.
let upstreamPidForSignals;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    log(`${sig}: stopping`);
    if (upstreamPidForSignals) {
      try {
        process.kill(upstreamPidForSignals, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  });
}

main().catch(async (e) => {
  process.stderr.write(`side-by-side: ${e.stack ?? e}\n`);
  await stopAll();
  process.exit(1);
});
