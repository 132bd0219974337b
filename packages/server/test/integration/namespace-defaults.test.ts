import { startTestServer, useTestServer } from '../support/test-server.js';

// The namespace controller is off so that a deleted namespace stays Terminating for the test.
const ts = useTestServer(['--controllers=*,-namespace']);

const ROOT_CA = 'kube-root-ca.crt';
const sa = (ns: string) => `/api/v1/namespaces/${ns}/serviceaccounts/default`;
const rootCa = (ns: string) => `/api/v1/namespaces/${ns}/configmaps/${ROOT_CA}`;

/** Polls `probe` every 100 ms until it returns a value, for at most `timeoutMs`. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Request = ReturnType<typeof ts>['request'];
const found = (request: Request, path: string) => async () => {
  const r = await request('GET', path);
  return r.status === 200 ? (r.json as { metadata: { uid: string; resourceVersion: string; annotations?: Record<string, string> }; data?: Record<string, string> }) : undefined;
};

async function createNamespace(request: Request, name: string): Promise<void> {
  const r = await request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  expect(r.status).toBe(201);
}

describe('serviceaccount and root-ca-cert-publisher controllers', () => {
  test('a new namespace gets ServiceAccount default and ConfigMap kube-root-ca.crt with the cluster CA', async () => {
    await createNamespace(ts().request, 'fresh');
    const account = await eventually('default service account', found(ts().request, sa('fresh')));
    expect(account.metadata.uid).toBeTruthy();
    const cm = await eventually('kube-root-ca.crt', found(ts().request, rootCa('fresh')));
    expect(cm.data).toEqual({ 'ca.crt': ts().server.caPem });
    expect(cm.metadata.annotations?.['k8s.io/description']).toMatch(/certificate authority/);
    // The built-in namespaces have them too.
    for (const ns of ['default', 'cluster-system', 'cluster-public']) {
      await eventually(`default service account in ${ns}`, found(ts().request, sa(ns)));
      await eventually(`kube-root-ca.crt in ${ns}`, found(ts().request, rootCa(ns)));
    }
  }, 40_000);

  test('a deleted ServiceAccount default comes back', async () => {
    await createNamespace(ts().request, 'sa-deleted');
    const first = await eventually('default service account', found(ts().request, sa('sa-deleted')));
    expect((await ts().request('DELETE', sa('sa-deleted'))).status).toBe(200);
    const again = await eventually('a new default service account', async () => {
      const r = await found(ts().request, sa('sa-deleted'))();
      return r && r.metadata.uid !== first.metadata.uid ? r : undefined;
    });
    expect(again.metadata.uid).not.toBe(first.metadata.uid);
  }, 40_000);

  test('a deleted kube-root-ca.crt comes back; an edited one is restored', async () => {
    await createNamespace(ts().request, 'ca-changed');
    const first = await eventually('kube-root-ca.crt', found(ts().request, rootCa('ca-changed')));
    expect((await ts().request('DELETE', rootCa('ca-changed'))).status).toBe(200);
    const recreated = await eventually('a new kube-root-ca.crt', async () => {
      const r = await found(ts().request, rootCa('ca-changed'))();
      return r && r.metadata.uid !== first.metadata.uid ? r : undefined;
    });
    expect(recreated.data).toEqual({ 'ca.crt': ts().server.caPem });

    const edit = await ts().request('PUT', rootCa('ca-changed'), {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...recreated.metadata }, data: { 'ca.crt': 'not a certificate', extra: 'x' } },
    });
    expect(edit.status).toBe(200);
    const restored = await eventually('restored kube-root-ca.crt', async () => {
      const r = await found(ts().request, rootCa('ca-changed'))();
      return r && r.data?.['ca.crt'] === ts().server.caPem ? r : undefined;
    });
    expect(restored.data).toEqual({ 'ca.crt': ts().server.caPem });
    expect(restored.metadata.uid).toBe(recreated.metadata.uid);
  }, 40_000);

  test('a terminating namespace is not written to', async () => {
    await createNamespace(ts().request, 'leaving');
    await eventually('default service account', found(ts().request, sa('leaving')));
    await eventually('kube-root-ca.crt', found(ts().request, rootCa('leaving')));
    const del = await ts().request('DELETE', '/api/v1/namespaces/leaving');
    expect(del.status).toBe(200);
    expect(del.json.status.phase).toBe('Terminating');
    // Deletes are still allowed while terminating; nothing may put the objects back.
    expect((await ts().request('DELETE', sa('leaving'))).status).toBe(200);
    expect((await ts().request('DELETE', rootCa('leaving'))).status).toBe(200);
    // A namespace created afterwards being filled shows the controllers have seen those deletes.
    await createNamespace(ts().request, 'after-leaving');
    await eventually('default service account', found(ts().request, sa('after-leaving')));
    await eventually('kube-root-ca.crt', found(ts().request, rootCa('after-leaving')));
    expect((await ts().request('GET', sa('leaving'))).status).toBe(404);
    expect((await ts().request('GET', rootCa('leaving'))).status).toBe(404);
    // Not even attempted: the API would have answered 403, and counted it.
    const metrics = (await ts().request('GET', '/metrics')).text;
    expect(metrics).toMatch(/apiserver_request_total\{[^}]*verb="POST"[^}]*resource="serviceaccounts"[^}]*code="201"\}/);
    expect(metrics).not.toMatch(/apiserver_request_total\{[^}]*resource="(serviceaccounts|configmaps)"[^}]*code="403"\}/);
  }, 40_000);

  test('a pod created without serviceAccountName runs as default; a named account is kept', async () => {
    const pod = (name: string, spec: Record<string, unknown> = {}) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'main', image: 'busybox' }], ...spec },
    });
    const created = await ts().request('POST', '/api/v1/namespaces/default/pods', { body: pod('unnamed') });
    expect(created.status).toBe(201);
    expect(created.json.spec.serviceAccountName).toBe('default');
    const read = await ts().request('GET', '/api/v1/namespaces/default/pods/unnamed');
    expect(read.json.spec.serviceAccountName).toBe('default');
    expect(read.json.spec.serviceAccount).toBe('default');

    // The account need not exist (no rejection, unlike upstream's full plugin).
    const named = await ts().request('POST', '/api/v1/namespaces/default/pods', { body: pod('named', { serviceAccountName: 'builder' }) });
    expect(named.status).toBe(201);
    expect(named.json.spec.serviceAccountName).toBe('builder');
    expect(named.json.spec.serviceAccount).toBe('builder');

    // A dry run shows the defaulted name too, and stores nothing.
    const dry = await ts().request('POST', '/api/v1/namespaces/default/pods?dryRun=All', { body: pod('dry') });
    expect(dry.status).toBe(201);
    expect(dry.json.spec.serviceAccountName).toBe('default');
    expect((await ts().request('GET', '/api/v1/namespaces/default/pods/dry')).status).toBe(404);

    // Bad input is still refused whole: a pod without containers is invalid, defaulting or not.
    const bad = await ts().request('POST', '/api/v1/namespaces/default/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' }, spec: { containers: [] } } });
    expect(bad.status).toBe(422);
    expect((await ts().request('GET', '/api/v1/namespaces/default/pods/bad')).status).toBe(404);
  });
});

describe('--controllers', () => {
  test('*,-serviceaccount leaves ServiceAccounts alone while the CA is still published', async () => {
    const other = await startTestServer(['--controllers=*,-serviceaccount']);
    try {
      await createNamespace(other.request, 'no-accounts');
      await eventually('kube-root-ca.crt', found(other.request, rootCa('no-accounts')));
      // The CA publisher ran after the namespace appeared; the serviceaccount controller would
      // have had the same chance.
      await new Promise((r) => setTimeout(r, 1_000));
      expect((await other.request('GET', sa('no-accounts'))).status).toBe(404);
      expect((await other.request('GET', sa('default'))).status).toBe(404);
    } finally {
      await other.stop();
    }
  }, 60_000);
});
