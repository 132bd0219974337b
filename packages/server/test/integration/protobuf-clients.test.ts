import { decodeProtobufObject, encodeProtobufObject } from '@cluster/apimachinery';
import { useTestServer } from '../support/test-server.js';
import { cronTabCrd } from '../support/crontab-crd.js';

const ts = useTestServer(['--controllers=-namespace']);
const PB = 'application/vnd.kubernetes.protobuf';
const CM = '/api/v1/namespaces/default/configmaps';

// The bytes below are written out from the wire format by hand, field by field, exactly as
// client-go's typed clients send a DeleteOptions body (rest.Request.Body -> protobuf serializer ->
// runtime.Unknown.NestedMarshalTo -> DeleteOptions.MarshalToSizedBuffer); none of our own encoder
// is used, so the test would catch a decoder that only understands what we write ourselves. The
// first test's hex is what client-go v1.24 itself printed for the same DeleteOptions (encoded with
// runtime.NewClientNegotiator(scheme.Codecs.WithoutConversion(), v1), as rest.Request.Body does).

/** A protobuf base-128 varint (non-negative values only are needed here). */
function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** A length-delimited field: tag byte, varint length, payload. */
function bytesField(tag: number, payload: number[]): number[] {
  return [tag, ...varint(payload.length), ...payload];
}

const ascii = (s: string): number[] => [...Buffer.from(s, 'utf8')];

/**
 * "k8s\0" + runtime.Unknown{typeMeta (1) {apiVersion (1), kind (2)}, raw (2), contentEncoding (3)
 * "", contentType (4) ""}: gogo writes the two empty strings too (0x1a 0x00 0x22 0x00), and raw is
 * always present, empty (0x12 0x00) for DeleteOptions{}.
 */
function clientGoEnvelope(apiVersion: string, raw: number[]): Buffer {
  const typeMeta = [...bytesField(0x0a, ascii(apiVersion)), ...bytesField(0x12, ascii('DeleteOptions'))];
  const unknown = [...bytesField(0x0a, typeMeta), ...bytesField(0x12, raw), 0x1a, 0x00, 0x22, 0x00];
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...unknown]);
}

interface Options {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun?: string[];
}

/** meta/v1 DeleteOptions in field order 1..5, present (pointer) fields only, as gogo writes them. */
function deleteOptionsRaw(o: Options): number[] {
  const out: number[] = [];
  if (o.gracePeriodSeconds !== undefined) out.push(0x08, ...varint(o.gracePeriodSeconds));
  if (o.preconditions) {
    const pre: number[] = [];
    if (o.preconditions.uid !== undefined) pre.push(...bytesField(0x0a, ascii(o.preconditions.uid)));
    if (o.preconditions.resourceVersion !== undefined) pre.push(...bytesField(0x12, ascii(o.preconditions.resourceVersion)));
    out.push(...bytesField(0x12, pre));
  }
  if (o.orphanDependents !== undefined) out.push(0x18, o.orphanDependents ? 1 : 0);
  if (o.propagationPolicy !== undefined) out.push(...bytesField(0x22, ascii(o.propagationPolicy)));
  for (const d of o.dryRun ?? []) out.push(...bytesField(0x2a, ascii(d)));
  return out;
}

async function createConfigMap(name: string, labels: Record<string, string> = {}): Promise<{ uid: string; resourceVersion: string }> {
  const r = await ts().request('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } } });
  expect(r.status).toBe(201);
  return { uid: r.json.metadata.uid, resourceVersion: r.json.metadata.resourceVersion };
}

describe("Protobuf DeleteOptions bodies, byte for byte as client-go sends them", () => {
  test('the hand-built bytes are the documented client-go form', () => {
    const raw = deleteOptionsRaw({ gracePeriodSeconds: 0, preconditions: { uid: 'u', resourceVersion: '7' }, propagationPolicy: 'Background' });
    expect(Buffer.from(clientGoEnvelope('v1', raw)).toString('hex')).toBe(
      '6b387300' + // magic
        '0a' + '13' + '0a02' + '7631' + '120d' + Buffer.from('DeleteOptions').toString('hex') + // typeMeta
        '12' + '16' + '0800' + '1206' + '0a0175' + '120137' + '220a' + Buffer.from('Background').toString('hex') + // raw
        '1a00' + '2200',
    );
  });

  test('DELETE of a configmap honours gracePeriodSeconds, propagationPolicy and preconditions', async () => {
    const { uid, resourceVersion } = await createConfigMap('pb-del');
    const wrongUid = clientGoEnvelope('v1', deleteOptionsRaw({ gracePeriodSeconds: 0, preconditions: { uid: 'not-the-uid' }, propagationPolicy: 'Background' }));
    const conflict = await ts().request('DELETE', `${CM}/pb-del`, { body: wrongUid, headers: { 'Content-Type': PB } });
    expect(conflict.status).toBe(409);
    expect(conflict.json).toMatchObject({ kind: 'Status', reason: 'Conflict' });
    expect(conflict.json.message).toContain('Precondition failed: UID in precondition: not-the-uid');

    const body = clientGoEnvelope('v1', deleteOptionsRaw({ gracePeriodSeconds: 0, preconditions: { uid, resourceVersion }, propagationPolicy: 'Background' }));
    const del = await ts().request('DELETE', `${CM}/pb-del`, { body, headers: { 'Content-Type': PB, Accept: `${PB}, application/json` } });
    expect(del.status).toBe(200);
    expect(decodeProtobufObject(del.body)).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'pb-del', kind: 'configmaps' } });
    expect((await ts().request('GET', `${CM}/pb-del`)).status).toBe(404);
  });

  test('the server\'s own media type name and dryRun in the body work too', async () => {
    await createConfigMap('pb-dry');
    const body = clientGoEnvelope('v1', deleteOptionsRaw({ dryRun: ['All'] }));
    const del = await ts().request('DELETE', `${CM}/pb-dry`, { body, headers: { 'Content-Type': 'application/vnd.cluster.protobuf' } });
    expect(del.status).toBe(200);
    expect((await ts().request('GET', `${CM}/pb-dry`)).status).toBe(200);
    const bad = clientGoEnvelope('v1', deleteOptionsRaw({ dryRun: ['Some'] }));
    const refused = await ts().request('DELETE', `${CM}/pb-dry`, { body: bad, headers: { 'Content-Type': PB } });
    expect(refused.status).toBe(422);
    expect(refused.json.details).toMatchObject({ group: 'meta.k8s.io', kind: 'DeleteOptions' });
  });

  test('orphanDependents (field 3) is read, and refused beside a propagationPolicy', async () => {
    await createConfigMap('pb-orphan');
    const both = clientGoEnvelope('v1', deleteOptionsRaw({ orphanDependents: true, propagationPolicy: 'Foreground' }));
    const refused = await ts().request('DELETE', `${CM}/pb-orphan`, { body: both, headers: { 'Content-Type': PB } });
    expect(refused.status).toBe(422);
    expect(refused.json.message).toContain('orphanDependents and deletionPropagation cannot be both set');
    const ok = await ts().request('DELETE', `${CM}/pb-orphan`, { body: clientGoEnvelope('v1', deleteOptionsRaw({ orphanDependents: false })), headers: { 'Content-Type': PB } });
    expect(ok.status).toBe(200);
  });

  test('a YAML DeleteOptions body is read too, as upstream negotiates every meta serializer', async () => {
    await createConfigMap('yaml-del');
    const bad = await ts().request('DELETE', `${CM}/yaml-del`, { body: 'propagationPolicy: Sideways\n', headers: { 'Content-Type': 'application/yaml' } });
    expect(bad.status).toBe(422);
    const ok = await ts().request('DELETE', `${CM}/yaml-del`, { body: 'kind: DeleteOptions\napiVersion: v1\npropagationPolicy: Foreground\n', headers: { 'Content-Type': 'application/yaml' } });
    expect(ok.status).toBe(200);
  });

  test('deletecollection with DeleteOptions{} (an empty raw, as the e2e framework sends)', async () => {
    await createConfigMap('pb-coll-a', { set: 'pb' });
    await createConfigMap('pb-coll-b', { set: 'pb' });
    await createConfigMap('pb-coll-keep');
    const body = clientGoEnvelope('v1', []);
    expect(body.subarray(-6).toString('hex')).toBe('12001a002200');
    const del = await ts().request('DELETE', `${CM}?labelSelector=set%3Dpb`, { body, headers: { 'Content-Type': PB } });
    expect(del.status).toBe(200);
    const left = await ts().request('GET', CM);
    const names = left.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    expect(names).toContain('pb-coll-keep');
    expect(names).not.toContain('pb-coll-a');
    expect(names).not.toContain('pb-coll-b');
  });

  test('a namespace delete (the e2e framework\'s teardown) starts termination', async () => {
    expect((await ts().request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pb-ns' } } })).status).toBe(201);
    const del = await ts().request('DELETE', '/api/v1/namespaces/pb-ns', {
      body: clientGoEnvelope('v1', deleteOptionsRaw({ propagationPolicy: 'Background' })),
      headers: { 'Content-Type': PB },
    });
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
  });

  test('DeleteOptions naming the request\'s own group version (coordination.k8s.io/v1) is accepted', async () => {
    const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const created = await ts().request('POST', leases, { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'pb-lease' } } });
    expect(created.status).toBe(201);
    const body = clientGoEnvelope('coordination.k8s.io/v1', deleteOptionsRaw({ preconditions: { uid: created.json.metadata.uid } }));
    const del = await ts().request('DELETE', `${leases}/pb-lease`, { body, headers: { 'Content-Type': PB } });
    expect(del.status).toBe(200);
    expect((await ts().request('GET', `${leases}/pb-lease`)).status).toBe(404);
  });

  test('malformed Protobuf is 400, another kind is 400, another media type is 415', async () => {
    await createConfigMap('pb-bad');
    const good = clientGoEnvelope('v1', deleteOptionsRaw({ gracePeriodSeconds: 5 }));
    const truncated = await ts().request('DELETE', `${CM}/pb-bad`, { body: good.subarray(0, 12), headers: { 'Content-Type': PB } });
    expect(truncated.status).toBe(400);
    expect(truncated.json).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    const noMagic = await ts().request('DELETE', `${CM}/pb-bad`, { body: good.subarray(4), headers: { 'Content-Type': PB } });
    expect(noMagic.status).toBe(400);
    expect(noMagic.json.message).toContain('provided data does not appear to be a protobuf message');
    const configMap = Buffer.from(encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }));
    const wrongKind = await ts().request('DELETE', `${CM}/pb-bad`, { body: configMap, headers: { 'Content-Type': PB } });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.json.message).toContain('no kind "ConfigMap" is registered for version "v1"');
    const text = await ts().request('DELETE', `${CM}/pb-bad`, { body: '{}', headers: { 'Content-Type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.json).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType' });
    // None of these deleted anything.
    expect((await ts().request('GET', `${CM}/pb-bad`)).status).toBe(200);
  });
  test('custom resources take Protobuf DeleteOptions too (upstream decodes them with the meta scheme)', async () => {
    const crd = await ts().request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: cronTabCrd('pb.example.com') });
    expect(crd.status).toBe(201);
    const crs = '/apis/pb.example.com/v1/namespaces/default/crontabs';
    const cr = { apiVersion: 'pb.example.com/v1', kind: 'CronTab', metadata: { name: 'pb-cr' }, spec: { cronSpec: '* * * * */5', image: 'i' } };
    let created = await ts().request('POST', crs, { body: cr });
    for (let i = 0; i < 100 && created.status === 404; i++) {
      await new Promise((r) => setTimeout(r, 100));
      created = await ts().request('POST', crs, { body: cr });
    }
    expect(created.status).toBe(201);
    const body = clientGoEnvelope('pb.example.com/v1', deleteOptionsRaw({ preconditions: { uid: created.json.metadata.uid }, propagationPolicy: 'Foreground' }));
    const del = await ts().request('DELETE', `${crs}/pb-cr`, { body, headers: { 'Content-Type': PB } });
    expect(del.status).toBe(200);
  }, 30_000);
});

describe('Protobuf bodies on the other verbs', () => {
  test('PUT of a configmap and of the namespace finalize subresource', async () => {
    await createConfigMap('pb-put');
    const current = (await ts().request('GET', `${CM}/pb-put`)).json;
    const body = Buffer.from(encodeProtobufObject({ ...current, data: { k: 'v' } }));
    const put = await ts().request('PUT', `${CM}/pb-put`, { body, headers: { 'Content-Type': PB } });
    expect(put.status).toBe(200);
    expect(put.json.data).toEqual({ k: 'v' });
    expect((await ts().request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pb-fin' } } })).status).toBe(201);
    const ns = (await ts().request('GET', '/api/v1/namespaces/pb-fin')).json;
    const fin = await ts().request('PUT', '/api/v1/namespaces/pb-fin/finalize', {
      body: Buffer.from(encodeProtobufObject({ ...ns, spec: { finalizers: [] } })),
      headers: { 'Content-Type': PB },
    });
    expect(fin.status).toBe(200);
    expect(fin.json.spec.finalizers ?? []).toEqual([]);
  });

  test('POST of review kinds and of a TokenRequest', async () => {
    const sar = await ts().request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: Buffer.from(
        encodeProtobufObject({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          metadata: {},
          spec: { user: 'nobody', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' } },
        } as never),
      ),
      headers: { 'Content-Type': PB },
    });
    expect(sar.status).toBe(201);
    expect(sar.json.spec).toMatchObject({ user: 'nobody', resourceAttributes: { verb: 'get', resource: 'configmaps' } });
    expect(typeof sar.json.status.allowed).toBe('boolean');
    const self = await ts().request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      body: Buffer.from(
        encodeProtobufObject({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          metadata: {},
          spec: { resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' } },
        } as never),
      ),
      headers: { 'Content-Type': PB },
    });
    expect(self.status).toBe(201);
    expect(self.json.status.allowed).toBe(true);
    expect((await ts().request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'pb-sa' } } })).status).toBe(201);
    const tr = await ts().request('POST', '/api/v1/namespaces/default/serviceaccounts/pb-sa/token', {
      body: Buffer.from(
        encodeProtobufObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {}, spec: { audiences: [] } } as never),
      ),
      headers: { 'Content-Type': PB },
    });
    expect(tr.status).toBe(201);
    expect(typeof tr.json.status.token).toBe('string');
  });
});

describe('CustomResourceDefinitions in Protobuf (the apiextensions clientset of a Protobuf client)', () => {
  test('create, get, list and delete with Protobuf bodies and answers', async () => {
    const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const crd = cronTabCrd('pbcrd.example.com');
    const body = Buffer.from(encodeProtobufObject(crd as never));
    const created = await ts().request('POST', CRDS, { body, headers: { 'Content-Type': PB, Accept: `${PB}, application/json` } });
    expect(created.status).toBe(201);
    expect(String(created.headers['content-type'])).toContain(PB);
    const obj = decodeProtobufObject(created.body) as unknown as typeof crd & { metadata: { uid: string } };
    expect(obj.spec).toMatchObject({ group: 'pbcrd.example.com', scope: 'Namespaced', names: { plural: 'crontabs', kind: 'CronTab' } });
    expect(obj.spec.versions[0]!.schema).toEqual(crd.spec.versions[0]!.schema);
    let got = await ts().request('GET', `${CRDS}/crontabs.pbcrd.example.com`, { headers: { Accept: PB } });
    for (let i = 0; i < 50 && !JSON.stringify(decodeProtobufObject(got.body)).includes('Established'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      got = await ts().request('GET', `${CRDS}/crontabs.pbcrd.example.com`, { headers: { Accept: PB } });
    }
    expect(decodeProtobufObject(got.body)).toMatchObject({ status: { conditions: expect.arrayContaining([expect.objectContaining({ type: 'Established', status: 'True' })]) } });
    const list = await ts().request('GET', CRDS, { headers: { Accept: PB } });
    expect(list.status).toBe(200);
    expect(decodeProtobufObject(list.body).kind).toBe('CustomResourceDefinitionList');
    const del = await ts().request('DELETE', `${CRDS}/crontabs.pbcrd.example.com`, {
      body: clientGoEnvelope('apiextensions.k8s.io/v1', deleteOptionsRaw({ preconditions: { uid: obj.metadata.uid } })),
      headers: { 'Content-Type': PB },
    });
    expect(del.status).toBe(200);
    // Gone for good (its finalizer done), so later tests see a settled catalog.
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      gone = (await ts().request('GET', `${CRDS}/crontabs.pbcrd.example.com`)).status === 404;
      if (!gone) await new Promise((r) => setTimeout(r, 100));
    }
    expect(gone).toBe(true);
  }, 30_000);
});

describe('GET /openapi/v2 for Go clients', () => {
  const PB_OPENAPI = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
  test('the Protobuf form: parseable Content-Type, its own ETag, 304 when unchanged, Vary: Accept', async () => {
    // The CRD tests above change the document while their CRDs come and go: wait until it settles.
    let pb = await ts().request('GET', '/openapi/v2', { headers: { Accept: PB_OPENAPI } });
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const next = await ts().request('GET', '/openapi/v2', { headers: { Accept: PB_OPENAPI } });
      if (next.headers.etag === pb.headers.etag) break;
      pb = next;
    }
    expect(pb.status).toBe(200);
    // client-go parses the answer's Content-Type with Go's mime package, which refuses the '@'.
    expect(pb.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(pb.headers.vary).toContain('Accept');
    expect(pb.body[0]).toBe(0x0a); // field 1 (swagger), length-delimited
    expect(pb.body.subarray(2, 2 + pb.body[1]!).toString()).toBe('2.0');
    const etag = String(pb.headers.etag);
    const json = await ts().request('GET', '/openapi/v2', { headers: { Accept: 'application/json' } });
    expect(json.headers['content-type']).toContain('application/json');
    expect(json.json.swagger).toBe('2.0');
    expect(json.headers.etag).not.toBe(etag);
    const again = await ts().request('GET', '/openapi/v2', { headers: { Accept: PB_OPENAPI, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const dotted = await ts().request('GET', '/openapi/v2', { headers: { Accept: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf' } });
    expect(dotted.headers.etag).toBe(etag);
    expect((await ts().request('GET', '/openapi/v2', { headers: { Accept: 'text/html' } })).status).toBe(406);
  });
});
