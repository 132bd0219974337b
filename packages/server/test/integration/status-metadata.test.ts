import { CSRS, csrBody } from '../support/csr.js';
import { useTestServer } from '../support/test-server.js';

// Updates through status-like subresources keep the request's metadata changes, as upstream's
// status strategies do (they copy only the spec back): the conformance Service status lifecycle
// and CSR API specs patch labels and annotations through /status and /approval.
const ts = useTestServer(['--controllers=-namespace']);
const SVCS = '/api/v1/namespaces/default/services';
const ctype = (t: string) => ({ 'Content-Type': t });

describe('service status', () => {
  beforeAll(async () => {
    const res = await ts().request('POST', SVCS, { body: { metadata: { name: 'web', labels: { app: 'web' } }, spec: { ports: [{ port: 80 }] } } });
    expect(res.status).toBe(201);
  });

  test('merge patch: annotations and labels go through, spec stays', async () => {
    const res = await ts().request('PATCH', `${SVCS}/web/status`, {
      headers: ctype('application/merge-patch+json'),
      body: {
        metadata: { annotations: { patchedstatus: 'true' }, labels: { state: 'patched' } },
        spec: { ports: [{ port: 81 }] },
        status: { loadBalancer: { ingress: [{ ip: '203.0.113.1' }] } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.json.metadata.annotations).toEqual({ patchedstatus: 'true' });
    expect(res.json.metadata.labels).toEqual({ app: 'web', state: 'patched' });
    expect(res.json.spec.ports[0].port).toBe(80);
    expect(res.json.status.loadBalancer.ingress).toEqual([{ ip: '203.0.113.1' }]);
    const got = (await ts().request('GET', `${SVCS}/web`)).json;
    expect(got.metadata.annotations).toEqual({ patchedstatus: 'true' });
  });

  test('JSON patch and strategic merge patch', async () => {
    const json = await ts().request('PATCH', `${SVCS}/web/status`, {
      headers: ctype('application/json-patch+json'),
      body: [{ op: 'add', path: '/metadata/annotations/json', value: 'yes' }],
    });
    expect(json.status).toBe(200);
    expect(json.json.metadata.annotations).toEqual({ patchedstatus: 'true', json: 'yes' });
    const smp = await ts().request('PATCH', `${SVCS}/web/status`, {
      headers: ctype('application/strategic-merge-patch+json'),
      body: { metadata: { labels: { smp: 'yes' } } },
    });
    expect(smp.status).toBe(200);
    expect(smp.json.metadata.labels).toEqual({ app: 'web', state: 'patched', smp: 'yes' });
  });

  test('PUT of status replaces the labels it sends', async () => {
    const cur = (await ts().request('GET', `${SVCS}/web/status`)).json;
    const res = await ts().request('PUT', `${SVCS}/web/status`, { body: { ...cur, metadata: { ...cur.metadata, labels: { app: 'web', updated: 'true' } } } });
    expect(res.status).toBe(200);
    expect(res.json.metadata.labels).toEqual({ app: 'web', updated: 'true' });
  });

  test('apply through status sets labels too', async () => {
    const res = await ts().request('PATCH', `${SVCS}/web/status?fieldManager=status-applier&force=true`, {
      headers: ctype('application/apply-patch+yaml'),
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { applied: 'true' } } },
    });
    expect(res.status).toBe(200);
    expect(res.json.metadata.labels.applied).toBe('true');
    const managers = (res.json.metadata.managedFields as { manager: string; subresource?: string }[]).filter((m) => m.manager === 'status-applier');
    expect(managers).toEqual([expect.objectContaining({ subresource: 'status' })]);
  });

  test('invalid labels through status are 422', async () => {
    const res = await ts().request('PATCH', `${SVCS}/web/status`, {
      headers: ctype('application/merge-patch+json'),
      body: { metadata: { labels: { 'bad key!': 'x' } } },
    });
    expect(res.status).toBe(422);
    expect(res.json.details.causes[0].field).toBe('metadata.labels');
  });
});

describe('kind-specific metadata kept by upstream status strategies', () => {
  test('deployment status keeps the stored labels, takes annotations', async () => {
    const D = '/apis/apps/v1/namespaces/default/deployments';
    const tpl = { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    expect((await ts().request('POST', D, { body: { metadata: { name: 'd', labels: { a: '1' } }, spec: { selector: { matchLabels: { app: 'd' } }, template: tpl } } })).status).toBe(201);
    const res = await ts().request('PATCH', `${D}/d/status`, {
      headers: ctype('application/merge-patch+json'),
      body: { metadata: { labels: { a: '2' }, annotations: { n: 'v' } }, status: { observedGeneration: 1 } },
    });
    expect(res.status).toBe(200);
    expect(res.json.metadata.labels).toEqual({ a: '1' });
    expect(res.json.metadata.annotations).toEqual({ n: 'v' });
  });

  test.each([
    ['poddisruptionbudgets', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', { minAvailable: 1, selector: { matchLabels: { app: 'p' } } }, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1, expectedPods: 0 }],
    [
      'cronjobs',
      '/apis/batch/v1/namespaces/default/cronjobs',
      { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } },
      { lastScheduleTime: '2026-01-01T00:00:00Z' },
    ],
  ])('%s status takes labels and annotations, keeps the spec (the conformance API-operation specs)', async (_name, base, spec, status) => {
    expect((await ts().request('POST', base, { body: { metadata: { name: 's', labels: { a: '1' } }, spec } })).status).toBe(201);
    const res = await ts().request('PATCH', `${base}/s/status`, {
      headers: ctype('application/merge-patch+json'),
      body: { metadata: { labels: { a: '2' }, annotations: { patchedstatus: 'true' } }, spec: { suspend: true, minAvailable: 5 }, status },
    });
    expect(res.status).toBe(200);
    expect(res.json.metadata.labels).toEqual({ a: '2' });
    expect(res.json.metadata.annotations).toEqual({ patchedstatus: 'true' });
    expect(res.json.status).toEqual(expect.objectContaining(status));
    const got = (await ts().request('GET', `${base}/s`)).json;
    expect(got.metadata.annotations).toEqual({ patchedstatus: 'true' });
    expect(got.spec).toEqual(expect.objectContaining(spec.schedule ? { schedule: spec.schedule } : { minAvailable: 1 }));
    expect(got.spec.suspend ?? false).toBe(false);
  });

  test('pod status keeps the stored owner references, takes labels', async () => {
    const P = '/api/v1/namespaces/default/pods';
    const owner = { apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: '6d1c3a5e-0000-4000-8000-000000000001' };
    const created = await ts().request('POST', P, { body: { metadata: { name: 'p', ownerReferences: [owner] }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    expect(created.status).toBe(201);
    const res = await ts().request('PATCH', `${P}/p/status`, {
      headers: ctype('application/merge-patch+json'),
      body: { metadata: { labels: { s: 't' }, ownerReferences: [] } },
    });
    expect(res.status).toBe(200);
    expect(res.json.metadata.labels).toEqual({ s: 't' });
    expect(res.json.metadata.ownerReferences).toEqual([owner]);
  });
});

describe('certificate signing request subresources', () => {
  test('status and approval patches keep annotations and labels', async () => {
    const body = csrBody('meta', { commonName: 'meta' }, 'example.com/signer', ['digital signature']);
    expect((await ts().request('POST', CSRS, { body })).status).toBe(201);
    const approval = await ts().request('PATCH', `${CSRS}/meta/approval`, {
      headers: ctype('application/merge-patch+json'),
      body: { metadata: { annotations: { approved: 'yes' } }, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test' }] } },
    });
    expect(approval.status).toBe(200);
    expect(approval.json.metadata.annotations).toEqual({ approved: 'yes' });
    expect(approval.json.status.conditions[0].type).toBe('Approved');
    const status = await ts().request('PATCH', `${CSRS}/meta/status`, {
      headers: ctype('application/merge-patch+json'),
      body: { metadata: { labels: { patched: 'status' } } },
    });
    expect(status.status).toBe(200);
    expect(status.json.metadata.labels).toEqual({ patched: 'status' });
    expect(status.json.metadata.annotations).toEqual({ approved: 'yes' });
  });
});

describe('custom resource status (upstream keeps the stored metadata but the managed fields)', () => {
  const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const G = '/apis/status.example.com/v1/namespaces/default/gadgets';
  test('labels through /status are ignored; an apply there records its manager', async () => {
    const crd = {
      metadata: { name: 'gadgets.status.example.com' },
      spec: {
        group: 'status.example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', properties: { status: { type: 'object', properties: { phase: { type: 'string' } } } } } },
          },
        ],
      },
    };
    expect((await ts().request('POST', CRDS, { body: crd })).status).toBe(201);
    const deadline = Date.now() + 15_000;
    while ((await ts().request('GET', G)).status !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await ts().request('POST', G, { body: { apiVersion: 'status.example.com/v1', kind: 'Gadget', metadata: { name: 'g', labels: { a: '1' } } } })).status).toBe(201);
    const merged = await ts().request('PATCH', `${G}/g/status`, {
      headers: ctype('application/merge-patch+json'),
      body: { metadata: { labels: { a: '2' } }, status: { phase: 'Ready' } },
    });
    expect(merged.status).toBe(200);
    expect(merged.json.metadata.labels).toEqual({ a: '1' });
    expect(merged.json.status).toEqual({ phase: 'Ready' });
    const applied = await ts().request('PATCH', `${G}/g/status?fieldManager=gadget-status&force=true`, {
      headers: ctype('application/apply-patch+yaml'),
      body: { apiVersion: 'status.example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, status: { phase: 'Done' } },
    });
    expect(applied.status).toBe(200);
    expect(applied.json.status).toEqual({ phase: 'Done' });
    const managers = (applied.json.metadata.managedFields as { manager: string; operation: string; subresource?: string }[]).filter((m) => m.manager === 'gadget-status');
    expect(managers).toEqual([expect.objectContaining({ operation: 'Apply', subresource: 'status' })]);
  });
});
