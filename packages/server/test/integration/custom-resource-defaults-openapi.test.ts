import { newEtcdClient } from '@cluster/storage';
import { useTestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-stream.js';

// Upstream defaults custom resources as it reads them from storage (conformance "custom resource
// defaulting for requests and from storage works"): a default added to the schema shows on objects
// stored before it, through get, list and watch, while etcd keeps them as written.
const ts = useTestServer(['--controllers=-namespace']);
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const NAME = 'widgets.defaults.example.com';
const W = '/apis/defaults.example.com/v1/namespaces/default/widgets';

const crd = (specProps: Record<string, unknown>) => ({
  metadata: { name: NAME },
  spec: {
    group: 'defaults.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: specProps } } } },
      },
    ],
  },
});

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('a default added later is applied on get, list and watch; storage keeps the object as written', async () => {
  expect((await ts().request('POST', CRDS, { body: crd({ a: { type: 'string', default: 'A' }, b: { type: 'string' } }) })).status).toBe(201);
  await eventually('widgets served', async () => (await ts().request('GET', W)).status === 200);
  const created = await ts().request('POST', W, { body: { apiVersion: 'defaults.example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: {} } });
  expect(created.status).toBe(201);
  expect(created.json.spec).toEqual({ a: 'A' });

  const current = (await ts().request('GET', `${CRDS}/${NAME}`)).json;
  current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.b.default = 'B';
  expect((await ts().request('PUT', `${CRDS}/${NAME}`, { body: current })).status).toBe(200);
  await eventually('b defaulted on read', async () => (await ts().request('GET', `${W}/w1`)).json.spec?.b === 'B');

  const got = await ts().request('GET', `${W}/w1`);
  expect(got.json).toMatchObject({ apiVersion: 'defaults.example.com/v1', kind: 'Widget', spec: { a: 'A', b: 'B' } });
  expect(got.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
  const listed = await ts().request('GET', W);
  expect(listed.json.items.map((i: { spec: unknown }) => i.spec)).toEqual([{ a: 'A', b: 'B' }]);
  const selected = await ts().request('GET', `${W}?fieldSelector=metadata.name%3Dw1`);
  expect(selected.json.items).toHaveLength(1);

  const watch = await openWatch(ts(), `${W}?watch=true&resourceVersion=0`);
  try {
    const first = await watch.nextEvent(10_000);
    expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w1' }, spec: { a: 'A', b: 'B' } } });
    const second = await ts().request('POST', W, { body: { apiVersion: 'defaults.example.com/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: { a: 'x' } } });
    expect(second.status).toBe(201);
    expect(second.json.spec).toEqual({ a: 'x', b: 'B' });
    const added = await watch.nextEvent(10_000);
    expect(added).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w2' }, spec: { a: 'x', b: 'B' } } });
  } finally {
    watch.close();
  }

  // etcd still holds w1 as it was written: the default lives in reads only.
  const etcd = newEtcdClient([ts().server.embeddedEtcd!.endpoint]);
  try {
    const stored = JSON.parse((await etcd.get('/registry/defaults.example.com/widgets/default/w1').string())!);
    expect(stored.spec).toEqual({ a: 'A' });
  } finally {
    etcd.close();
  }
});

// Upstream's CRD OpenAPI builder: a schema that keeps unknown fields at its root is published in
// /openapi/v2 with no properties (kubectl's v2 validation would refuse the unknown fields), in
// /openapi/v3 whole (conformance "CustomResourcePublishOpenAPI works for CRD without validation schema").
test('a CRD preserving unknown fields at the root: bare object in v2, full schema in v3', async () => {
  const body = {
    metadata: { name: 'waldos.open.example.com' },
    spec: {
      group: 'open.example.com',
      scope: 'Namespaced',
      names: { plural: 'waldos', singular: 'waldo', kind: 'Waldo' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  expect((await ts().request('POST', CRDS, { body })).status).toBe(201);
  const gvk = [{ group: 'open.example.com', kind: 'Waldo', version: 'v1' }];
  await eventually('published in v2', async () => (await ts().request('GET', '/openapi/v2')).json.definitions['com.example.open.v1.Waldo'] !== undefined);
  const v2 = (await ts().request('GET', '/openapi/v2')).json;
  expect(v2.definitions['com.example.open.v1.Waldo']).toEqual({ type: 'object', 'x-kubernetes-group-version-kind': gvk });
  expect(v2.definitions['com.example.open.v1.WaldoList'].properties.items.items.$ref).toBe('#/definitions/com.example.open.v1.Waldo');
  const index = (await ts().request('GET', '/openapi/v3')).json;
  const v3 = (await ts().request('GET', index.paths['apis/open.example.com/v1'].serverRelativeURL)).json;
  const schema = v3.components.schemas['com.example.open.v1.Waldo'];
  expect(schema['x-kubernetes-preserve-unknown-fields']).toBe(true);
  expect(Object.keys(schema.properties).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
  // Any fields are accepted and kept.
  const created = await ts().request('POST', '/apis/open.example.com/v1/namespaces/default/waldos', {
    body: { apiVersion: 'open.example.com/v1', kind: 'Waldo', metadata: { name: 'w' }, a: { b: [{ c: 'd' }] } },
  });
  expect(created.status).toBe(201);
  expect(created.json.a).toEqual({ b: [{ c: 'd' }] });
});
