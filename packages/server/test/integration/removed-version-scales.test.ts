import { useTestServer } from '../support/test-server.js';

// SPEC 9.4: the removed workload versions serve their own Scale kinds on `scale` (upstream's
// extensions/v1beta1, apps/v1beta1 and apps/v1beta2 Scale: status.selector a label map when the
// selector is equalities only, status.targetSelector its string form), over the same objects as
// apps/v1, whose scale stays autoscaling/v1 Scale.
const ts = useTestServer(['--runtime-config=extensions/v1beta1=true,apps/v1beta1=true,apps/v1beta2=true', '--controllers=-namespace']);
const ns = 'default';
const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

beforeAll(async () => {
  const apps = `/apis/apps/v1/namespaces/${ns}`;
  const created = await Promise.all([
    ts().request('POST', `${apps}/deployments`, {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web', tier: 'front' } }, template: template({ app: 'web', tier: 'front' }) } },
    }),
    ts().request('POST', `${apps}/replicasets`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'rs' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'rs' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] }, template: template({ app: 'rs', env: 'prod' }) },
      },
    }),
    ts().request('POST', `${apps}/statefulsets`, {
      body: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' }, spec: { replicas: 3, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template({ app: 'db' }) } },
    }),
  ]);
  for (const r of created) expect(r.status).toBe(201);
}, 30_000);

// No workload controllers run here: status.replicas stays 0.
test.each([
  ['extensions/v1beta1', 'deployments', 'web', 2, { replicas: 0, selector: { app: 'web', tier: 'front' }, targetSelector: 'app=web,tier=front' }],
  ['apps/v1beta1', 'deployments', 'web', 2, { replicas: 0, selector: { app: 'web', tier: 'front' }, targetSelector: 'app=web,tier=front' }],
  ['apps/v1beta2', 'deployments', 'web', 2, { replicas: 0, selector: { app: 'web', tier: 'front' }, targetSelector: 'app=web,tier=front' }],
  ['apps/v1beta1', 'statefulsets', 'db', 3, { replicas: 0, selector: { app: 'db' }, targetSelector: 'app=db' }],
  ['apps/v1beta2', 'statefulsets', 'db', 3, { replicas: 0, selector: { app: 'db' }, targetSelector: 'app=db' }],
  // A set-based clause leaves the map out: only the string can say it.
  ['extensions/v1beta1', 'replicasets', 'rs', 1, { replicas: 0, targetSelector: 'app=rs,env in (prod)' }],
  ['apps/v1beta2', 'replicasets', 'rs', 1, { replicas: 0, targetSelector: 'app=rs,env in (prod)' }],
])('%s %s/scale is that version\'s own Scale', async (gv, resource, name, replicas, status) => {
  const r = await ts().request('GET', `/apis/${gv}/namespaces/${ns}/${resource}/${name}/scale`);
  expect(r.status).toBe(200);
  expect(r.json).toMatchObject({ apiVersion: gv, kind: 'Scale', metadata: { name, namespace: ns } });
  expect(r.json.status).toEqual(status);
  expect(r.json.spec).toEqual({ replicas });
  expect(String(r.headers['warning'])).toContain(`${gv} `);
});

test('apps/v1 scale stays autoscaling/v1 Scale with a string selector', async () => {
  const r = await ts().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`);
  expect(r.json).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', status: { replicas: 0, selector: 'app=web,tier=front' } });
});

test('a Go client\'s Accept (Protobuf, else JSON) gets the old Scale as JSON (no Protobuf form is generated for it)', async () => {
  const r = await ts().request('GET', `/apis/apps/v1beta2/namespaces/${ns}/deployments/web/scale`, { headers: { Accept: 'application/vnd.kubernetes.protobuf,application/json' } });
  expect(r.status).toBe(200);
  expect(String(r.headers['content-type'])).toContain('application/json');
  expect(r.json).toMatchObject({ apiVersion: 'apps/v1beta2', kind: 'Scale' });
});

test('discovery names each old version\'s Scale', async () => {
  for (const gv of ['extensions/v1beta1', 'apps/v1beta1', 'apps/v1beta2']) {
    const list = (await ts().request('GET', `/apis/${gv}`)).json as { resources: { name: string; group?: string; version?: string; kind: string }[] };
    const scale = list.resources.find((x) => x.name === 'deployments/scale');
    const [group, version] = gv.split('/');
    expect(scale).toMatchObject({ group, version, kind: 'Scale' });
  }
});

test('a PUT and a merge patch of the old Scale set the replicas of the one stored object', async () => {
  const path = `/apis/apps/v1beta1/namespaces/${ns}/deployments/web/scale`;
  const current = (await ts().request('GET', path)).json;
  const put = await ts().request('PUT', path, { body: { ...current, spec: { replicas: 5 } } });
  expect(put.status).toBe(200);
  expect(put.json).toMatchObject({ apiVersion: 'apps/v1beta1', kind: 'Scale', spec: { replicas: 5 } });
  expect((await ts().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`)).json.spec.replicas).toBe(5);
  // The Scale's own kind is required: an autoscaling/v1 body at this path is refused.
  const wrongKind = await ts().request('PUT', path, { body: { ...current, apiVersion: 'autoscaling/v1', spec: { replicas: 6 } } });
  expect(wrongKind.status).toBe(400);
  const patched = await ts().request('PATCH', `/apis/extensions/v1beta1/namespaces/${ns}/replicasets/rs/scale`, {
    body: { spec: { replicas: 4 } },
    headers: { 'Content-Type': 'application/merge-patch+json' },
  });
  expect(patched.status).toBe(200);
  expect(patched.json).toMatchObject({ apiVersion: 'extensions/v1beta1', kind: 'Scale', spec: { replicas: 4 }, status: { targetSelector: 'app=rs,env in (prod)' } });
  expect((await ts().request('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/rs`)).json.spec.replicas).toBe(4);
  const negative = await ts().request('PUT', path, { body: { ...put.json, spec: { replicas: -1 } } });
  expect(negative.status).toBe(422);
});

test('OpenAPI v3 documents each old Scale with its selector map and targetSelector', async () => {
  for (const [gv, pkg] of [['extensions/v1beta1', 'extensions.v1beta1'], ['apps/v1beta1', 'apps.v1beta1'], ['apps/v1beta2', 'apps.v1beta2']] as const) {
    const doc = await ts().request('GET', `/openapi/v3/apis/${gv}`);
    expect(doc.status).toBe(200);
    const status = doc.json.components.schemas[`io.k8s.api.${pkg}.ScaleStatus`];
    expect(status.properties.selector).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    expect(status.properties.targetSelector).toMatchObject({ type: 'string' });
  }
});
