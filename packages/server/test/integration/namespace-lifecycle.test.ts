import { useTestServer } from '../support/test-server.js';

const ts = useTestServer();

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('two-phase deletion (SPEC 3.1)', () => {
  test('an object with finalizers is marked, kept, and removed with its last finalizer', async () => {
    const created = await ts().request('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    expect(created.status).toBe(201);
    const del = await ts().request('DELETE', '/api/v1/namespaces/default/configmaps/held');
    expect(del.status).toBe(200);
    expect(del.json.kind).toBe('ConfigMap');
    expect(del.json.metadata.deletionTimestamp).toBeTruthy();
    expect(del.json.metadata.deletionGracePeriodSeconds).toBe(0);

    const still = await ts().request('GET', '/api/v1/namespaces/default/configmaps/held');
    expect(still.status).toBe(200);
    // No new finalizers once deleting.
    const add = await ts().request('PUT', '/api/v1/namespaces/default/configmaps/held', {
      body: { ...still.json, metadata: { ...still.json.metadata, finalizers: ['example.com/hold', 'example.com/more'] } },
    });
    expect(add.status).toBe(422);
    // Removing the last finalizer removes the object.
    const release = await ts().request('PATCH', '/api/v1/namespaces/default/configmaps/held', {
      body: { metadata: { finalizers: null } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(release.status).toBe(200);
    expect((await ts().request('GET', '/api/v1/namespaces/default/configmaps/held')).status).toBe(404);
  });
});

describe('namespace deletion', () => {
  test('a deleted namespace terminates, refuses new content, empties and goes away', async () => {
    expect((await ts().request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } } })).status).toBe(201);
    for (const name of ['a', 'b', 'c']) {
      const r = await ts().request('POST', '/api/v1/namespaces/doomed/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
      expect(r.status).toBe(201);
    }
    const ns = await ts().request('GET', '/api/v1/namespaces/doomed');
    expect(ns.json.spec.finalizers).toEqual(['kubernetes']);
    expect(ns.json.status.phase).toBe('Active');

    const del = await ts().request('DELETE', '/api/v1/namespaces/doomed');
    expect(del.status).toBe(200);
    expect(del.json.status.phase).toBe('Terminating');
    expect(del.json.metadata.deletionTimestamp).toBeTruthy();

    const refused = await ts().request('POST', '/api/v1/namespaces/doomed/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } },
    });
    // Either still terminating (403) or already gone (404), never created.
    expect([403, 404]).toContain(refused.status);
    if (refused.status === 403) {
      expect(refused.json.message).toContain('unable to create new content in namespace doomed because it is being terminated');
    }

    await eventually('namespace removal', async () => ((await ts().request('GET', '/api/v1/namespaces/doomed')).status === 404 ? true : undefined));
    const left = await ts().request('GET', '/api/v1/namespaces/doomed/configmaps');
    expect(left.json.items).toEqual([]);
  }, 30_000);

  test('built-in namespaces cannot be deleted', async () => {
    const res = await ts().request('DELETE', '/api/v1/namespaces/default');
    expect(res.status).toBe(403);
  });

  test('the controller manager holds the leader lease', async () => {
    const lease = await eventually('leader lease', async () => {
      const r = await ts().request('GET', '/apis/coordination.k8s.io/v1/namespaces/cluster-system/leases/cluster-controller-manager');
      return r.status === 200 ? r.json : undefined;
    });
    expect(lease.spec.holderIdentity).toBeTruthy();
    expect(lease.spec.leaseDurationSeconds).toBe(15);
  });
});
