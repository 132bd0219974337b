import { useTestServer } from '../support/test-server.js';

// The embedded default supervises its etcd child (HA issue, item 1): killed, it comes back on the
// same endpoint with backoff; readyz reports etcd while it is gone, and writes work again after.
const ts = useTestServer(['--controllers=-namespace,-csrsigning,-csrapproving,-csrcleaner']);

async function until(what: string, probe: () => Promise<boolean>, ms = 20_000): Promise<number> {
  const start = Date.now();
  while (!(await probe())) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

test('a killed embedded etcd is restarted; readyz fails on etcd meanwhile and recovers', async () => {
  const etcd = ts().server.embeddedEtcd!;
  expect(etcd).toBeDefined();
  const before = etcd.pid();
  expect((await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'before' } } })).status).toBe(201);
  process.kill(before, 'SIGKILL');
  await until('readyz to report etcd', async () => {
    const r = await ts().request('GET', '/readyz?verbose');
    return r.status === 500 && r.text.includes('[-]etcd failed');
  });
  const took = await until('readyz back', async () => (await ts().request('GET', '/readyz')).status === 200);
  // The supervisor records the new child once its own health poll passes, which may come a
  // moment after the replica's client has reconnected.
  await until('the restart recorded', async () => etcd.restarts() === 1);
  expect(etcd.pid()).not.toBe(before);
  expect(took).toBeLessThan(20_000);
  await until('writes again', async () => (await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `after-${Date.now()}` } } })).status === 201);
  // Nothing written before the crash was lost (etcd restarts on its own data).
  expect((await ts().request('GET', '/api/v1/namespaces/default/configmaps/before')).status).toBe(200);
}, 60_000);
