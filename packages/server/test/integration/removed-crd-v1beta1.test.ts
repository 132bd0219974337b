import { useTestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-stream.js';

// SPEC 9.4: apiextensions/v1beta1 CustomResourceDefinition served again through --runtime-config,
// over the same stored v1 objects: top-level version/validation/subresources/columns converted
// (upstream's v1 <-> v1beta1 conversions), v1beta1's defaults and checks, the Warning, and a
// top-level schema that really validates the custom resources.
const ts = useTestServer(['--runtime-config=apiextensions.k8s.io/v1beta1=true', '--controllers=-namespace']);
const V1 = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const V1BETA1 = '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions';
const WARNING = '299 - "apiextensions.k8s.io/v1beta1 CustomResourceDefinition is deprecated in v1.16+, unavailable in v1.22+; use apiextensions.k8s.io/v1 CustomResourceDefinition"';

const gadgetSchema = {
  openAPIV3Schema: {
    type: 'object',
    properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 }, color: { type: 'string', default: 'red' } }, required: ['size'] } },
  },
};
const gadgets = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1beta1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.old.example.com' },
  spec: {
    group: 'old.example.com',
    version: 'v1',
    names: { plural: 'gadgets', kind: 'Gadget', shortNames: ['gd'] },
    validation: gadgetSchema,
    subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' } },
    additionalPrinterColumns: [{ name: 'Size', type: 'integer', JSONPath: '.spec.size' }],
    preserveUnknownFields: false,
    ...extra,
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

test('a CRD created through v1beta1 reads back through v1 with the top-level fields on its version, and back', async () => {
  const created = await ts().request('POST', V1BETA1, { body: gadgets() });
  expect(created.status).toBe(201);
  expect(created.headers['warning']).toBe(WARNING);
  expect(created.json).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition' });
  expect(created.json.spec).toEqual({
    group: 'old.example.com',
    version: 'v1',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList', shortNames: ['gd'] },
    scope: 'Namespaced',
    validation: gadgetSchema,
    subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' } },
    versions: [{ name: 'v1', served: true, storage: true }],
    additionalPrinterColumns: [{ name: 'Size', type: 'integer', JSONPath: '.spec.size' }],
    conversion: { strategy: 'None' },
    preserveUnknownFields: false,
  });
  const v1 = await ts().request('GET', `${V1}/gadgets.old.example.com`);
  expect(v1.headers['warning']).toBeUndefined();
  expect(v1.json.spec.versions).toEqual([
    {
      name: 'v1',
      served: true,
      storage: true,
      schema: gadgetSchema,
      subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' } },
      additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
    },
  ]);
  expect(v1.json.spec.version).toBeUndefined();
  expect(v1.json.spec.validation).toBeUndefined();
  expect(v1.json.status.storedVersions).toEqual(['v1']);

  // A v1 write (a second, different version) reads back through v1beta1 with per-version schemas.
  const v2Schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
  const versions = [v1.json.spec.versions[0], { name: 'v2', served: true, storage: false, schema: v2Schema, subresources: v1.json.spec.versions[0].subresources }];
  const updated = await ts().request('PUT', `${V1}/gadgets.old.example.com`, { body: { ...v1.json, spec: { ...v1.json.spec, versions } } });
  expect(updated.status).toBe(200);
  const old = await ts().request('GET', `${V1BETA1}/gadgets.old.example.com`);
  expect(old.json.spec).toMatchObject({
    version: 'v1',
    subresources: { status: {} },
    versions: [
      { name: 'v1', schema: gadgetSchema, additionalPrinterColumns: [{ name: 'Size', type: 'integer', JSONPath: '.spec.size' }] },
      { name: 'v2', schema: v2Schema },
    ],
  });
  expect(old.json.spec.validation).toBeUndefined();
  expect(old.json.metadata.resourceVersion).toBe(updated.json.metadata.resourceVersion);
  const list = await ts().request('GET', V1BETA1);
  expect(list.json).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinitionList' });
});

test('a v1 CRD reads through v1beta1 with its one version\'s schema on top, and a v1beta1 PUT of that keeps it', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.new.example.com' },
    spec: {
      group: 'new.example.com',
      names: { plural: 'things', kind: 'Thing' },
      scope: 'Cluster',
      versions: [{ name: 'v1', served: true, storage: true, schema: gadgetSchema, additionalPrinterColumns: [{ name: 'Color', type: 'string', jsonPath: '.spec.color' }] }],
    },
  };
  expect((await ts().request('POST', V1, { body: crd })).status).toBe(201);
  // The CRD controllers write its status (NamesAccepted, Established) just after the create: a PUT
  // of a copy read before that is a conflict (409), so read it once they have.
  let established = false;
  for (let i = 0; i < 100 && !established; i++) {
    const conditions = ((await ts().request('GET', `${V1}/things.new.example.com`)).json.status?.conditions ?? []) as { type: string; status: string }[];
    established = conditions.some((c) => c.type === 'Established' && c.status === 'True');
    if (!established) await new Promise((r) => setTimeout(r, 50));
  }
  expect(established).toBe(true);
  const old = await ts().request('GET', `${V1BETA1}/things.new.example.com`);
  expect(old.headers['warning']).toBe(WARNING);
  expect(old.json.spec).toMatchObject({
    version: 'v1',
    validation: gadgetSchema,
    versions: [{ name: 'v1', served: true, storage: true }],
    additionalPrinterColumns: [{ name: 'Color', type: 'string', JSONPath: '.spec.color' }],
    // v1's absent boolean is v1beta1's explicit false.
    preserveUnknownFields: false,
  });
  const labelled = { ...old.json, metadata: { ...old.json.metadata, labels: { via: 'v1beta1' } } };
  const put = await ts().request('PUT', `${V1BETA1}/things.new.example.com`, { body: labelled });
  expect(put.status).toBe(200);
  const v1 = await ts().request('GET', `${V1}/things.new.example.com`);
  expect(v1.json.metadata.labels).toEqual({ via: 'v1beta1' });
  expect(v1.json.metadata.generation).toBe(1);
  expect(v1.json.spec.versions).toEqual(crd.spec.versions);
});

test('v1beta1 validation: preserveUnknownFields defaults to true and is refused; mixed top-level and per-version fields are refused', async () => {
  const spec = { ...gadgets().spec, preserveUnknownFields: undefined };
  const defaulted = await ts().request('POST', V1BETA1, { body: { ...gadgets(), metadata: { name: 'gadgets.old2.example.com' }, spec: { ...spec, group: 'old2.example.com' } } });
  expect(defaulted.status).toBe(422);
  expect(defaulted.json.details.causes).toContainEqual(expect.objectContaining({ field: 'spec.preserveUnknownFields' }));
  const mixed = await ts().request('POST', V1BETA1, {
    body: gadgets({ group: 'old3.example.com', versions: [{ name: 'v1', served: true, storage: true, schema: gadgetSchema }] }),
  });
  expect(mixed.status).toBe(422);
  expect(mixed.json.message).toContain('spec.validation: Forbidden: top-level and per-version schemas are mutually exclusive');
  // v1's rules on the converted object name the top-level field the request used.
  const badColumn = await ts().request('POST', V1BETA1, {
    body: { ...gadgets({ group: 'old4.example.com', additionalPrinterColumns: [{ name: 'Size', type: 'integer', JSONPath: 'spec.size' }] }), metadata: { name: 'gadgets.old4.example.com' } },
  });
  expect(badColumn.status).toBe(422);
  expect(badColumn.json.details.causes).toEqual([expect.objectContaining({ field: 'spec.additionalPrinterColumns[0].JSONPath', reason: 'FieldValueInvalid' })]);
});

test('a top-level v1beta1 schema validates and defaults the custom resources; its columns and scale are served', async () => {
  const base = '/apis/old.example.com/v1/namespaces/default/gadgets';
  await eventually('the gadgets served', async () => (await ts().request('GET', base)).status === 200);
  const bad = await ts().request('POST', base, { body: { apiVersion: 'old.example.com/v1', kind: 'Gadget', metadata: { name: 'tiny' }, spec: { size: 0 } } });
  expect(bad.status).toBe(422);
  expect(bad.json.message).toContain('spec.size');
  const missing = await ts().request('POST', base, { body: { apiVersion: 'old.example.com/v1', kind: 'Gadget', metadata: { name: 'none' }, spec: {} } });
  expect(missing.status).toBe(422);
  const good = await ts().request('POST', base, { body: { apiVersion: 'old.example.com/v1', kind: 'Gadget', metadata: { name: 'big' }, spec: { size: 3 } } });
  expect(good.status).toBe(201);
  expect(good.json.spec).toEqual({ size: 3, color: 'red' });
  const table = await ts().request('GET', `${base}/big`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  expect(table.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Size']);
  expect(table.json.rows[0].cells).toEqual(['big', 3]);
  const scale = await ts().request('GET', `${base}/big/scale`);
  expect(scale.json).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 3 } });
});

test('OpenAPI v3 documents v1beta1\'s own spec (top-level validation, JSONPath columns, webhook settings)', async () => {
  const doc = await ts().request('GET', '/openapi/v3/apis/apiextensions.k8s.io/v1beta1');
  expect(doc.status).toBe(200);
  const schemas = doc.json.components.schemas;
  const spec = schemas['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.CustomResourceDefinitionSpec'];
  expect(Object.keys(spec.properties)).toEqual(expect.arrayContaining(['version', 'validation', 'subresources', 'additionalPrinterColumns', 'versions', 'conversion', 'preserveUnknownFields']));
  expect(Object.keys(schemas['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.CustomResourceColumnDefinition'].properties)).toContain('JSONPath');
  expect(Object.keys(schemas['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.CustomResourceConversion'].properties).sort()).toEqual(['conversionReviewVersions', 'strategy', 'webhookClientConfig']);
  expect(doc.json.paths['/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions/{name}/status']).toBeDefined();
});

test('a v1beta1 watch sees a v1 write in v1beta1\'s form; status writes through v1beta1 keep the spec', async () => {
  const watch = await openWatch(ts(), `${V1BETA1}?watch=true&fieldSelector=metadata.name%3Dwatched.new.example.com`);
  try {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'watched.new.example.com' },
      spec: { group: 'new.example.com', names: { plural: 'watched', kind: 'Watched' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: gadgetSchema }] },
    };
    expect((await ts().request('POST', V1, { body: crd })).status).toBe(201);
    const added = await watch.nextMatching((e) => e.type === 'ADDED', 10_000);
    expect(added.object).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1beta1', spec: { version: 'v1', validation: gadgetSchema, versions: [{ name: 'v1' }] } });
  } finally {
    watch.close();
  }
  const current = (await ts().request('GET', `${V1BETA1}/watched.new.example.com`)).json;
  const status = await ts().request('PUT', `${V1BETA1}/watched.new.example.com/status`, {
    body: { ...current, spec: { ...current.spec, scope: 'Cluster' }, status: { ...current.status, acceptedNames: { plural: 'watched', kind: 'Watched' } } },
  });
  expect(status.status).toBe(200);
  expect(status.json).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1beta1', spec: { scope: 'Namespaced', validation: gadgetSchema } });
});
