import { ApiClient, Informer } from '@cluster/controllers';
import { useTestServer } from '../support/test-server.js';

// The controllers' informer against a real replica: list, then watch; resumes after the server
// ends a watch (timeoutSeconds) without losing or repeating events.
// Without root-ca-cert-publisher, `default` holds only the test's ConfigMaps.
const ts = useTestServer(['--controllers=*,-root-ca-cert-publisher']);
const CMS = '/api/v1/namespaces/default/configmaps';

async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('an informer lists, then follows changes across watch restarts', async () => {
  const s = ts().server;
  const client = new ApiClient({ baseUrl: s.url, token: s.adminToken, caPem: s.caPem });
  await client.create(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' } });
  const informer = new Informer(client, CMS, { watchTimeoutSeconds: 1 });
  const seen: string[] = [];
  informer.onChange((type, obj) => seen.push(`${type} ${obj.metadata.name}`));
  const abort = new AbortController();
  const running = informer.run(abort.signal);
  try {
    await informer.synced;
    expect(informer.get('default', 'before')).toBeDefined();
    await client.create(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
    await until('a added', () => seen.includes('ADDED a'));
    // Let the 1 s watch end at least once; changes made meanwhile still arrive exactly once.
    await new Promise((r) => setTimeout(r, 1200));
    const a = await client.get(`${CMS}/a`);
    await client.update(`${CMS}/a`, { ...a, data: { k: 'v' } });
    await client.delete(`${CMS}/before`);
    await until('a modified, before deleted', () => seen.includes('MODIFIED a') && seen.includes('DELETED before'));
    expect(seen.filter((e) => e === 'MODIFIED a')).toHaveLength(1);
    expect(informer.list().map((o) => o.metadata.name).sort()).toEqual(['a']);
    expect((informer.get('default', 'a') as { data?: Record<string, string> }).data).toEqual({ k: 'v' });
  } finally {
    abort.abort();
    await running;
    client.close();
  }
});
