import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCsr } from '@cluster/apimachinery';
import { freePorts, startEtcd, type EtcdProcess } from '@cluster/storage';
import { KubeconfigClient } from './support/http-client.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

// Two replicas on one etcd, sharing a cluster CA: the controllers run on the Lease holder only;
// when its process is killed the other takes the Lease over and signs a pending approved CSR
// within 30 s, and no request is ever signed twice.
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
let etcd: EtcdProcess | undefined;
let dir = '';
const replicas: ServerProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'failover-'));
  const [client, peer] = await freePorts(2);
  etcd = await startEtcd({ dataDir: join(dir, 'etcd'), clientPort: client!, peerPort: peer! });
  const shared = ['--etcd-servers', `http://127.0.0.1:${client}`, '--cert-dir', join(dir, 'certs')];
  // One after the other, so the second loads the CA the first generated.
  replicas.push(await startServerProcess(shared));
  replicas.push(await startServerProcess(shared));
}, 90_000);

afterAll(async () => {
  for (const r of replicas) await r.stop();
  await etcd?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

async function isLeader(client: KubeconfigClient): Promise<boolean> {
  const r = await client.call('GET', '/metrics');
  return /^leader_election_master_status\{name="cluster-controller-manager"\} 1$/m.test(String(r.json));
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

test('killing the leader moves signing to the other replica within 30 s; nothing is signed twice', async () => {
  const clients = replicas.map((r) => new KubeconfigClient(r.kubeconfig, 4));
  const leaderIndex = await until('a leader', async () => {
    for (let i = 0; i < clients.length; i++) if (await isLeader(clients[i]!)) return i;
    return undefined;
  }, 30_000);
  const survivor = clients[1 - leaderIndex]!;
  expect(await isLeader(survivor)).toBe(false);

  // Signed by the first leader.
  await createApproved(survivor, 'before-kill');
  await until('before-kill signed', async () => ((await survivor.call('GET', `${CSRS}/before-kill`)).json.status?.certificate ? true : undefined), 15_000);

  replicas[leaderIndex]!.child.kill('SIGKILL');
  await createApproved(survivor, 'after-kill');
  const started = Date.now();
  const cert = await until('after-kill signed by the survivor', async () => (await survivor.call('GET', `${CSRS}/after-kill`)).json.status?.certificate as string | undefined, 30_000);
  expect(Date.now() - started).toBeLessThan(30_000);
  expect(await isLeader(survivor)).toBe(true);

  // Each request got exactly one certificate: the status a signer writes carries the
  // resourceVersion it judged, and a second write of status.certificate is refused.
  const again = await survivor.call('GET', `${CSRS}/after-kill`);
  expect(again.json.status.certificate).toBe(cert);
  const replaced = await survivor.call('PUT', `${CSRS}/after-kill/status`, { ...again.json, status: { ...again.json.status, certificate: (await survivor.call('GET', `${CSRS}/before-kill`)).json.status.certificate } });
  expect(replaced.status).toBe(422);
  for (const c of clients) c.close();
}, 90_000);
