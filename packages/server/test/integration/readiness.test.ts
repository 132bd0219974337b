import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, startEtcd, type EtcdProcess } from '@cluster/storage';
import { startTestServer, type TestServer } from '../support/test-server.js';

let etcd: EtcdProcess | undefined;
let etcdDir: string;
let ports: number[];
let ts: TestServer;

beforeAll(async () => {
  etcdDir = await mkdtemp(join(tmpdir(), 'readiness-etcd-'));
  ports = await freePorts(2);
  etcd = await startEtcd({ dataDir: etcdDir, clientPort: ports[0], peerPort: ports[1] });
  ts = await startTestServer([`--etcd-servers=${etcd.endpoint}`, '--controllers=-namespace']);
}, 60_000);

afterAll(async () => {
  await ts?.stop();
  await etcd?.stop();
  await rm(etcdDir, { recursive: true, force: true });
}, 30_000);

async function waitForStatus(path: string, code: number, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await ts.request('GET', path);
    if (r.status === code) return r.text;
    if (Date.now() > deadline) throw new Error(`${path} stayed ${r.status}, wanted ${code}: ${r.text}`);
    await new Promise((res) => setTimeout(res, 250));
  }
}

describe('readiness follows etcd (SPEC 4.9)', () => {
  test('readyz fails while etcd is unreachable and recovers when it is back', async () => {
    await waitForStatus('/readyz', 200);
    await etcd!.stop();
    const failing = await waitForStatus('/readyz?verbose', 500);
    expect(failing).toContain('[-]etcd failed');
    expect(failing).toContain('readyz check failed');
    // Reads fail with a Status rather than hanging or crashing the replica.
    const read = await ts.request('GET', '/api/v1/namespaces/default/configmaps');
    expect(read.status).toBeGreaterThanOrEqual(500);
    expect(read.json?.kind).toBe('Status');

    etcd = await startEtcd({ dataDir: etcdDir, clientPort: ports[0], peerPort: ports[1] });
    await waitForStatus('/readyz', 200, 40_000);
    expect((await ts.request('GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
  }, 90_000);
});
