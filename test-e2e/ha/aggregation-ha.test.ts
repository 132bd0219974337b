import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { KubeconfigClient, type JsonReply } from '../support/http-client.js';
import { startExtensionApiServer, type ExtensionApiServer } from '../support/extension-api-server.js';
import { hostAddress } from '../support/host-address.js';

// The aggregation layer on the HA control plane of hack/local-up-ha.sh (`make up-ha`: three etcd
// members, three replicas sharing one cert dir and front-proxy certificate, HAProxy in front),
// with the flags it starts them with (deploy/README.md's): a real HTTPS extension API server (its own CA, on a non-loopback address) registered by
// Service + Endpoints + APIService through the load balancer is Available in every replica's view,
// reachable by kubectl through HAProxy and through each replica, and sees the caller's identity
// from each replica over the shared front-proxy client certificate. Then the controllers' leader
// is SIGKILLed: clients through HAProxy keep working and the APIService stays Available, judged
// by the new leader. Each phase prints its figures.
/* eslint-disable @typescript-eslint/no-explicit-any */
const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'hack/local-up-ha.sh');
const GROUP = 'wardle.example.io';
const GV = `/apis/${GROUP}/v1`;
const APISERVICE = `/apis/apiregistration.k8s.io/v1/apiservices/v1.${GROUP}`;
const FLUNDERS = `${GV}/namespaces/default/flunders`;

let dir = '';
let lb: KubeconfigClient;
const replicas: { name: string; pid: number; url: string }[] = [];
let ext: ExtensionApiServer;
let frontProxyCa = '';
let prometheusToken = '';

async function ha(...args: string[]): Promise<string> {
  const { stdout } = await exec('bash', [SCRIPT, ...args], { env: { ...process.env, HA_DIR: dir }, timeout: 120_000 });
  return stdout;
}

/** The admin's credentials, straight to one replica. */
function direct(url: string): KubeconfigClient {
  const c = new KubeconfigClient(join(dir, 'admin.kubeconfig'), 2);
  Object.assign(c, { server: url });
  return c;
}

/** One request on a connection of its own to `server`, as `token`, with extra headers. */
function rawCall(server: string, path: string, token: string, headers: Record<string, string> = {}): Promise<JsonReply> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server), { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...headers }, ca: lb.ca, agent: false, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      // A replica killed after the headers went out: the answer is cut, a transport error.
      res.on('close', () => res.complete || reject(new Error(`GET ${path}: answer cut`)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = text;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** kubectl with the admin kubeconfig, against `server` (the load balancer when absent); its own discovery cache. */
async function kubectl(args: string[], server?: string): Promise<{ stdout: string; stderr: string }> {
  const extra = server ? [`--server=${server}`] : [];
  return exec('kubectl', [...extra, `--cache-dir=${join(dir, 'kube-cache')}`, ...args], { env: { ...process.env, KUBECONFIG: join(dir, 'admin.kubeconfig') }, timeout: 60_000 });
}

/** Retries `check` every 250 ms, at most `tries` times. */
async function eventually<T>(check: () => Promise<T>, tries = 120): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await check();
    } catch (e) {
      if (i >= tries) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

const availableOn = async (c: KubeconfigClient) => (await c.call('GET', APISERVICE)).json?.status?.conditions?.find((x: any) => x.type === 'Available');

/** Which replica holds the controllers' Lease, read from each replica's /metrics; -1 when none says so. */
async function leaderIndex(alive: number[]): Promise<number> {
  for (const i of alive) {
    const c = direct(replicas[i]!.url);
    const text = String((await c.call('GET', '/metrics').catch(() => ({ json: '' }))).json);
    c.close();
    if (/^leader_election_master_status\{name="cluster-controller-manager"(,worker="\d+")?\} 1$/m.test(text)) return i;
  }
  return -1;
}

/** The aggregator's warnings in the replicas' logs (a failure's explanation), one line each. */
async function aggregatorWarnings(): Promise<string> {
  const lines: string[] = [];
  for (const r of replicas) {
    for (const line of (await readFile(join(dir, `${r.name}.log`), 'utf8')).split('\n')) {
      if (line.includes('"component":"aggregator"')) lines.push(`${r.name}: ${line.slice(0, 600)}`);
    }
  }
  return lines.join('\n');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aggregation-ha-'));
  const out = await ha('up');
  for (const m of out.matchAll(/^(replica\d) pid (\d+) (https:\/\/\S+)/gm)) replicas.push({ name: m[1]!, pid: Number(m[2]), url: m[3]! });
  expect(replicas).toHaveLength(3);
  lb = new KubeconfigClient(join(dir, 'admin.kubeconfig'), 8);
  prometheusToken = (await readFile(join(dir, 'prometheus.token'), 'utf8')).trim();
  // What an extension reads to trust the replicas' forwarded identities.
  const cm = await lb.call('GET', '/api/v1/namespaces/cluster-system/configmaps/extension-apiserver-authentication');
  expect(cm.status).toBe(200);
  frontProxyCa = cm.json.data['requestheader-client-ca-file'];
  const allowedNames: string[] = JSON.parse(cm.json.data['requestheader-allowed-names']);
  ext = await startExtensionApiServer({ dir, group: GROUP, serverName: 'api.wardle.svc', frontProxyCa, allowedNames, host: hostAddress() });
  for (const [path, body] of [
    ['/api/v1/namespaces', { metadata: { name: 'wardle' } }],
    ['/api/v1/namespaces/wardle/services', { metadata: { name: 'api' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } }],
    ['/api/v1/namespaces/wardle/endpoints', { metadata: { name: 'api' }, subsets: [{ addresses: [{ ip: ext.host }], ports: [{ name: 'https', port: ext.port }] }] }],
    [
      '/apis/apiregistration.k8s.io/v1/apiservices',
      { metadata: { name: `v1.${GROUP}` }, spec: { group: GROUP, version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'wardle', name: 'api' }, caBundle: ext.caBundle } },
    ],
  ] as const) {
    const r = await lb.call('POST', path, body);
    if (r.status !== 201) throw new Error(`set-up ${path}: ${JSON.stringify(r.json)}`);
  }
}, 240_000);

afterAll(async () => {
  lb?.close();
  // The cluster first: a replica still running would log the stopped extension as unreachable.
  if (dir) await ha('down').catch(() => undefined);
  await ext?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 120_000);

test('every replica started by up-ha presents the one front-proxy client certificate and trusts its CA, the one published', async () => {
  // Made once by hack/ha/setup.mjs in the shared cert dir and given to each replica by flag.
  expect(await readFile(join(dir, 'certs', 'front-proxy-ca.crt'), 'utf8')).toBe(frontProxyCa);
  for (const r of replicas) {
    const cmd = await readFile(join(dir, `${r.name}.cmd`), 'utf8');
    expect(cmd).toContain(`--proxy-client-cert-file ${join(dir, 'certs', 'front-proxy-client.crt')}`);
    expect(cmd).toContain(`--requestheader-client-ca-file ${join(dir, 'certs', 'front-proxy-ca.crt')}`);
    expect(await readFile(join(dir, `${r.name}.log`), 'utf8')).not.toMatch(/no --proxy-client-cert-file/);
  }
});

test('the APIService is Available (Passed) in every replica\'s view', async () => {
  const started = Date.now();
  for (const r of replicas) {
    const c = direct(r.url);
    await eventually(async () => expect(await availableOn(c)).toMatchObject({ status: 'True', reason: 'Passed' }));
    c.close();
  }
  console.log(`aggregation-ha: Available on all 3 replicas ${((Date.now() - started) / 1000).toFixed(1)} s after registration`);
}, 60_000);

test('kubectl api-resources and get work through HAProxy and through each replica directly', async () => {
  for (const server of [undefined, ...replicas.map((r) => r.url)]) {
    // Aggregated discovery of a replica lists the extension once its discovery was fetched.
    const resources = await eventually(async () => {
      const r = await kubectl(['api-resources', '--api-group', GROUP], server);
      expect(r.stdout).toMatch(/flunders\s+fl\s+wardle\.example\.io\/v1\s+true\s+Flunder/);
      return r;
    }, 60);
    expect(resources.stderr).toBe('');
    const got = await kubectl(['get', 'flunders', '-n', 'default'], server);
    expect(got.stderr).toBe('');
    expect(got.stdout).toMatch(/first/);
    expect(got.stdout).toMatch(/second/);
    const one = await kubectl(['get', 'fl', 'by-name', '-n', 'default', '-o', 'jsonpath={.metadata.name}'], server);
    expect(one.stdout).toBe('by-name');
  }
}, 180_000);

test('the extension sees the caller from each replica: X-Remote-User/Group over the front-proxy client certificate, no Authorization', async () => {
  for (const [i, r] of replicas.entries()) {
    // A forged X-Remote-User from the caller is dropped; the replica says who authenticated.
    const res = await rawCall(r.url, `${FLUNDERS}/via-replica${i}`, lb.token, { 'X-Remote-User': 'forged', 'X-Remote-Group': 'forged-group' });
    expect(res.status).toBe(200);
    expect(res.json.metadata.name).toBe(`via-replica${i}`);
    const got = ext.seen.filter((s) => s.path === `${FLUNDERS}/via-replica${i}`);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ clientCn: 'front-proxy-client', serverName: 'api.wardle.svc' });
    expect(got[0]!.headers['x-remote-user']).toBe('admin');
    expect(String(got[0]!.headers['x-remote-group']).split(/,\s*/)).toEqual(expect.arrayContaining(['system:masters', 'system:authenticated']));
    expect(String(got[0]!.headers['x-remote-group'])).not.toMatch(/forged/);
    expect(got[0]!.headers.authorization).toBeUndefined();
  }
}, 60_000);

test('a caller without grants is refused 403 by each replica and never reaches the extension, forged headers or not', async () => {
  for (const [i, r] of replicas.entries()) {
    const path = `${FLUNDERS}/denied-${i}`;
    // system:monitoring may read /metrics only; X-Remote-* from a token caller mean nothing.
    const res = await rawCall(r.url, path, prometheusToken, { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(ext.seen.filter((s) => s.path === path)).toEqual([]);
  }
}, 60_000);

/** A watch held open through `server`; `events` grows as lines arrive, `closed` once the stream ends. */
function openWatch(server: string) {
  const w = { events: [] as any[], closed: false, stop: () => {} };
  let buf = '';
  const req = request(new URL(`${FLUNDERS}?watch=1`, server), { headers: { Authorization: `Bearer ${lb.token}`, Accept: 'application/json' }, ca: lb.ca, agent: false }, (res) => {
    res.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        w.events.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
    });
    res.on('close', () => (w.closed = true));
  });
  req.on('error', () => (w.closed = true));
  req.end();
  w.stop = () => req.destroy();
  return w;
}

test('a watch through each replica stays open while the APIService is written: connections follow its TLS settings, not its resourceVersion', async () => {
  const watches = replicas.map((r) => openWatch(r.url));
  await eventually(async () => expect(watches.map((w) => w.events.length)).toEqual([1, 1, 1]));
  const patched = await lb.call('PATCH', APISERVICE, { metadata: { annotations: { 'example.io/note': 'written' } } }, 'application/merge-patch+json');
  expect(patched.status).toBe(200);
  for (const r of replicas) {
    const c = direct(r.url);
    // Once the replica sees the write, a request of its own to the extension follows it.
    await eventually(async () => expect((await c.call('GET', APISERVICE)).json.metadata.resourceVersion).toBe(patched.json.metadata.resourceVersion));
    expect((await c.call('GET', `${FLUNDERS}/after-write`)).status).toBe(200);
    c.close();
  }
  ext.send('after-write');
  await eventually(async () => expect(watches.map((w) => w.events.length)).toEqual([2, 2, 2]), 40);
  expect(watches.map((w) => w.closed)).toEqual([false, false, false]);
  expect(watches.map((w) => w.events[1].object.metadata.name)).toEqual(['after-write', 'after-write', 'after-write']);
  for (const w of watches) w.stop();
}, 60_000);

test('the controllers\' leader SIGKILLed: clients through HAProxy keep working, the APIService stays Available, judged by the new leader', async () => {
  const all = [0, 1, 2];
  let leader = -1;
  for (let i = 0; i < 60 && leader < 0; i++) {
    leader = await leaderIndex(all);
    if (leader < 0) await new Promise((r) => setTimeout(r, 500));
  }
  expect(leader).toBeGreaterThanOrEqual(0);
  const before = await availableOn(lb);
  expect(before).toMatchObject({ status: 'True', reason: 'Passed' });
  const survivors = all.filter((i) => i !== leader);
  // The availability controller runs on the leader only: the others have no gauge yet.
  const gauge = new RegExp(`^aggregator_unavailable_apiservice\\{name="v1\\.${GROUP.replace(/\./g, '\\.')}"(,worker="\\d+")?\\} 0$`, 'm');
  for (const i of survivors) {
    const c = direct(replicas[i]!.url);
    expect(String((await c.call('GET', '/metrics')).json)).not.toMatch(gauge);
    c.close();
  }

  // Clients through HAProxy, each request on a new connection: a transport error (a connection
  // HAProxy sent to the dead replica before its checks noticed) is retried, at most 20 times; any
  // HTTP answer but 200 is a failure.
  let running = true;
  let killedAt = 0;
  let sent = 0;
  let retried = 0;
  let lastRetryAfterKill = 0;
  const failures: string[] = [];
  const once = async (f: () => Promise<void>) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await f();
      } catch (e) {
        if ((e as { status?: number }).status !== undefined || attempt >= 20) throw e;
        retried++;
        if (killedAt) lastRetryAfterKill = Math.max(lastRetryAfterKill, Date.now() - killedAt);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  const httpLoops = Array.from({ length: 3 }, async (_, w) => {
    for (let n = 0; running; n++) {
      sent++;
      await once(async () => {
        const r = await rawCall(lb.server, `${FLUNDERS}/load-${w}-${n}`, lb.token);
        const at = killedAt ? ` ${Date.now() - killedAt} ms after the kill` : ' before the kill';
        if (r.status !== 200) throw Object.assign(new Error(`GET load-${w}-${n}${at}: ${r.status} ${JSON.stringify(r.json)}`), { status: r.status });
      }).catch((e: Error) => failures.push(e.message));
    }
  });
  // Aggregated discovery through HAProxy names the extension's resources all along.
  const discoveryLoop = (async () => {
    for (let n = 0; running; n++) {
      sent++;
      await once(async () => {
        const r = await rawCall(lb.server, '/apis', lb.token, { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
        const entry = r.json?.items?.find((i: any) => i.metadata.name === GROUP);
        if (r.status !== 200 || entry?.versions?.[0]?.resources?.[0]?.resource !== 'flunders') {
          throw Object.assign(new Error(`aggregated discovery ${n}: ${r.status} ${JSON.stringify(entry ?? null)}`), { status: r.status });
        }
      }).catch((e: Error) => failures.push(e.message));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const kubectlLoop = (async () => {
    while (running) {
      sent++;
      await once(async () => {
        try {
          const r = await kubectl(['get', 'flunders', '-n', 'default', '-o', 'name']);
          if (!r.stdout.includes('flunder.wardle.example.io/first')) throw Object.assign(new Error(`kubectl get flunders: ${r.stdout}`), { status: 200 });
        } catch (e) {
          const stderr = String((e as { stderr?: string }).stderr ?? '');
          // Only a connection cut or refused is HAProxy's to notice; any answer from a replica counts.
          if ((e as { status?: number }).status === undefined && !/Unable to connect to the server|EOF|connection reset|connection refused|broken pipe|TLS handshake/i.test(stderr)) {
            throw Object.assign(new Error(`kubectl get flunders: ${stderr.trim()}`), { status: -1 });
          }
          throw e;
        }
      }).catch((e: Error) => failures.push(e.message));
    }
  })();

  await new Promise((r) => setTimeout(r, 1500));
  process.kill(replicas[leader]!.pid, 'SIGKILL');
  killedAt = Date.now();
  // Until the Lease (15 s) expires and another replica leads, then a while with the new leader.
  let newLeader = -1;
  const conditions: any[] = [];
  while (Date.now() - killedAt < 60_000) {
    conditions.push(await once(async () => availableOn(lb)));
    if (newLeader < 0) newLeader = await leaderIndex(survivors);
    if (newLeader >= 0) {
      const c = direct(replicas[newLeader]!.url);
      const judged = gauge.test(String((await c.call('GET', '/metrics').catch(() => ({ json: '' }))).json));
      c.close();
      if (judged) break;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const judgedAfter = Date.now() - killedAt;
  await new Promise((r) => setTimeout(r, 1500));
  running = false;
  await Promise.all([...httpLoops, discoveryLoop, kubectlLoop]);
  const after = await availableOn(lb);
  console.log(
    `aggregation-ha: replica${leader} (leader) killed; replica${newLeader} led and judged the APIService ${(judgedAfter / 1000).toFixed(1)} s later; ` +
      `${sent} client requests through HAProxy, ${failures.length} failed, ${retried} transport retries (last ${(lastRetryAfterKill / 1000).toFixed(1)} s after the kill); ` +
      `Available read ${conditions.length} times meanwhile`,
  );
  expect(newLeader).toBeGreaterThanOrEqual(0);
  expect(survivors).toContain(newLeader);
  expect(judgedAfter).toBeLessThan(60_000);
  if (failures.length > 0) console.log(`aggregation-ha: the replicas' aggregator warnings:\n${await aggregatorWarnings()}`);
  expect(failures).toEqual([]);
  expect(sent).toBeGreaterThan(20);
  // Retries only while HAProxy notices (two failed checks 500 ms apart, each up to 2 s).
  expect(lastRetryAfterKill).toBeLessThan(6_000);
  for (const c of [...conditions, after]) expect(c).toEqual(before);
  // Still served by each surviving replica.
  for (const i of survivors) {
    const c = direct(replicas[i]!.url);
    expect(await availableOn(c)).toEqual(before);
    expect((await c.call('GET', `${FLUNDERS}/after-kill-${i}`)).status).toBe(200);
    c.close();
  }
}, 150_000);

test('the new leader keeps the status right: Endpoints to a closed port is unavailable (503 on every replica), restored is Available again', async () => {
  const alive: number[] = [];
  for (const [i, r] of replicas.entries()) {
    const c = direct(r.url);
    if ((await c.call('GET', '/readyz').catch(() => ({ status: 0 }))).status === 200) alive.push(i);
    c.close();
  }
  expect(alive).toHaveLength(2);
  const eps = '/api/v1/namespaces/wardle/endpoints/api';
  const current = (await lb.call('GET', eps)).json;
  const put = async (port: number) => {
    const latest = (await lb.call('GET', eps)).json;
    const r = await lb.call('PUT', eps, { ...latest, subsets: [{ addresses: [{ ip: ext.host }], ports: [{ name: 'https', port }] }] });
    expect(r.status).toBe(200);
  };
  // Port 9 (discard) on this address: nothing listens, the connection is refused.
  await put(9);
  await eventually(async () => expect(await availableOn(lb)).toMatchObject({ status: 'False', reason: 'FailedDiscoveryCheck' }));
  for (const i of alive) {
    const c = direct(replicas[i]!.url);
    await eventually(async () => expect((await c.call('GET', `${FLUNDERS}/x`)).status).toBe(503));
    c.close();
  }
  await put(current.subsets[0].ports[0].port);
  await eventually(async () => expect(await availableOn(lb)).toMatchObject({ status: 'True', reason: 'Passed' }));
  for (const i of alive) {
    const c = direct(replicas[i]!.url);
    await eventually(async () => expect((await c.call('GET', `${FLUNDERS}/back-${i}`)).status).toBe(200));
    c.close();
  }
}, 90_000);

test('the killed replica restarted serves the extension again', async () => {
  const dead = replicas.find((r) => {
    try {
      process.kill(r.pid, 0);
      return false;
    } catch {
      return true;
    }
  })!;
  await ha('restart', dead.name);
  await exec(process.execPath, [join(ROOT, 'hack/ha/wait.mjs'), `${dead.url}/readyz`, '90']);
  const c = direct(dead.url);
  const r = await eventually(async () => {
    const got = await c.call('GET', `${FLUNDERS}/restarted`);
    expect(got.status).toBe(200);
    return got;
  });
  expect(r.json.metadata.name).toBe('restarted');
  const seen = ext.seen.filter((s) => s.path === `${FLUNDERS}/restarted`);
  expect(seen.at(-1)!.headers['x-remote-user']).toBe('admin');
  expect(seen.at(-1)!.clientCn).toBe('front-proxy-client');
  c.close();
}, 150_000);
