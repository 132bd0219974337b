import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCsr } from '@cluster/apimachinery';
import { freePorts, startEtcd, type EtcdProcess } from '@cluster/storage';
import { KubeconfigClient } from './support/http-client.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

// Three replicas on one etcd, sharing a cluster CA: the controllers run on the Lease holder only;
// when its process is killed another takes the Lease over (after it expires) and signs a pending
// approved CSR within 30 s; a leader stopped with SIGTERM releases the Lease so the next takes
// over at once; and no request is ever signed twice.
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
let etcd: EtcdProcess | undefined;
let dir = '';
const replicas: ServerProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'failover-'));
  const [client, peer] = await freePorts(2);
  etcd = await startEtcd({ dataDir: join(dir, 'etcd'), clientPort: client!, peerPort: peer! });
  const shared = ['--etcd-servers', `http://127.0.0.1:${client}`, '--cert-dir', join(dir, 'certs')];
  // One after the other, so the later ones load the CA the first generated.
  for (let i = 0; i < 3; i++) replicas.push(await startServerProcess(shared));
}, 90_000);

afterAll(async () => {
  for (const r of replicas) await r.stop();
  await etcd?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

async function isLeader(client: KubeconfigClient): Promise<boolean> {
  const r = await client.call('GET', '/metrics');
  return /^leader_election_master_status\{name="cluster-controller-manager"(,worker="\d+")?\} 1$/m.test(String(r.json));
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const approvedCsr = (name: string) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: makeTestCsr({ commonName: name }).request, signerName: 'k8s.io/api-server-client', usages: ['client auth'] },
});

async function createApproved(client: KubeconfigClient, name: string): Promise<void> {
  const created = await client.call('POST', CSRS, approvedCsr(name));
  expect(created.status).toBe(201);
  const body = { ...created.json, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved' }] } };
  expect((await client.call('PUT', `${CSRS}/${name}/approval`, body)).status).toBe(200);
}

async function leaderOf(clients: KubeconfigClient[], among: number[], ms: number): Promise<number> {
  return until('a leader', async () => {
    for (const i of among) if (await isLeader(clients[i]!)) return i;
    return undefined;
  }, ms);
}

const certificateOf = (client: KubeconfigClient, name: string, ms: number) =>
  until(`${name} signed`, async () => (await client.call('GET', `${CSRS}/${name}`)).json.status?.certificate as string | undefined, ms);

test('a killed leader is replaced within 30 s, a SIGTERMed one at once; nothing is signed twice', async () => {
  const clients = replicas.map((r) => new KubeconfigClient(r.kubeconfig, 4));
  const first = await leaderOf(clients, [0, 1, 2], 30_000);
  const others = [0, 1, 2].filter((i) => i !== first);
  const observer = clients[others[0]!]!;

  // Signed by the first leader.
  await createApproved(observer, 'before-kill');
  await certificateOf(observer, 'before-kill', 15_000);

  replicas[first]!.child.kill('SIGKILL');
  await createApproved(observer, 'after-kill');
  const killedAt = Date.now();
  const cert = await certificateOf(observer, 'after-kill', 30_000);
  expect(Date.now() - killedAt).toBeLessThan(30_000);
  const second = await leaderOf(clients, others, 5_000);

  // SIGTERM: the leader releases the Lease on the way out, so the last replica takes over well
  // before the 15 s Lease would have expired.
  const last = others.find((i) => i !== second)!;
  const stopping = replicas[second]!.stop();
  const termAt = Date.now();
  await createApproved(clients[last]!, 'after-term');
  await certificateOf(clients[last]!, 'after-term', 10_000).catch((err: Error) => {
    // What the stopping leader and the last replica said of the Lease, to tell a failed release from
    // a slow takeover.
    const said = [replicas[second]!, replicas[last]!].map((r, i) => `${i === 0 ? 'stopping' : 'last'}:\n${r.output().split('\n').filter((l) => /lease|leading|leader/i.test(l)).join('\n')}`);
    throw new Error(`${err.message}\n${said.join('\n')}`);
  });
  // The stopping leader may still sign before it handles SIGTERM; the last one leads soon after.
  await until('the last replica leading', async () => ((await isLeader(clients[last]!)) ? true : undefined), 10_000);
  expect(Date.now() - termAt).toBeLessThan(10_000);
  await stopping;

  // Each request got exactly one certificate: a signer's status write carries the
  // resourceVersion it judged, and replacing status.certificate is refused.
  const survivor = clients[last]!;
  const again = await survivor.call('GET', `${CSRS}/after-kill`);
  expect(again.json.status.certificate).toBe(cert);
  const other = (await survivor.call('GET', `${CSRS}/before-kill`)).json.status.certificate as string;
  const replaced = await survivor.call('PUT', `${CSRS}/after-kill/status`, { ...again.json, status: { ...again.json.status, certificate: other } });
  expect(replaced.status).toBe(422);
  for (const c of clients) c.close();
}, 120_000);
