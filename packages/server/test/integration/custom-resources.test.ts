import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, startEtcd, type EtcdProcess } from '@cluster/storage';
import { startTestServer, type Reply, type TestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-stream.js';
import { cronTabCrd } from '../support/crontab-crd.js';

// Issue 21: CRDs served through the generic machinery, on two replicas over one etcd; each
// replica learns of CRDs only through its own watch.

let etcd: EtcdProcess | undefined;
let etcdDir: string;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  etcdDir = await mkdtemp(join(tmpdir(), 'crd-etcd-'));
  const [clientPort, peerPort] = await freePorts(2);
  etcd = await startEtcd({ dataDir: etcdDir, clientPort, peerPort });
  const flags = [`--etcd-servers=${etcd.endpoint}`, '--controllers=-namespace'];
  [a, b] = await Promise.all([startTestServer(flags), startTestServer(flags)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await etcd?.stop();
  await rm(etcdDir, { recursive: true, force: true });
}, 30_000);

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const V1 = '/apis/stable.example.com/v1/namespaces/default/crontabs';
const V1BETA1 = '/apis/stable.example.com/v1beta1/namespaces/default/crontabs';
const json = (body: unknown, contentType = 'application/json') => ({ body, headers: { 'Content-Type': contentType } });
const cron = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'stable.example.com/v1',
  kind: 'CronTab',
  metadata: { name },
  spec: { cronSpec: '* * * * */5', image: 'img', ...spec },
});

/** Polls until `check` holds (bounded), for changes that reach a replica through its watch. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const causes = (r: Reply) => (r.json.details?.causes ?? []).map((c: { field: string }) => c.field).sort();

describe('CustomResourceDefinitions', () => {
  test('a CRD is validated as upstream does (422 naming the field)', async () => {
    const bad = cronTabCrd();
    (bad.spec as { scope: string }).scope = 'Global';
    bad.spec.versions[1]!.storage = true;
    const r = await a.request('POST', CRDS, json(bad));
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(r.json.message).toContain('spec.scope: Unsupported value: "Global"');
    expect(r.json.message).toContain('must have exactly one version marked as storage version');
    expect((await a.request('GET', `${CRDS}/crontabs.stable.example.com`)).status).toBe(404);
  });

  test('created on one replica, it is established and served on both', async () => {
    const created = await a.request('POST', CRDS, json(cronTabCrd()));
    expect(created.status).toBe(201);
    expect(created.json.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(created.json.spec.names.listKind).toBe('CronTabList');
    for (const ts of [a, b]) {
      await eventually('the CRD served', async () => (await ts.request('GET', '/apis/stable.example.com/v1')).status === 200);
    }
    await eventually('Established', async () => {
      const r = await b.request('GET', `${CRDS}/crontabs.stable.example.com`);
      const conditions = (r.json.status?.conditions ?? []) as { type: string; status: string }[];
      return ['NamesAccepted', 'Established'].every((t) => conditions.some((c) => c.type === t && c.status === 'True'));
    });
    const crd = await b.request('GET', `${CRDS}/crontabs.stable.example.com`);
    expect(crd.json.status.acceptedNames).toMatchObject({ plural: 'crontabs', kind: 'CronTab', shortNames: ['ct'] });
    expect(crd.json.status.storedVersions).toEqual(['v1']);
    const resources = await b.request('GET', '/apis/stable.example.com/v1');
    expect(resources.json.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'crontabs', kind: 'CronTab', namespaced: true, shortNames: ['ct'] }),
        expect.objectContaining({ name: 'crontabs/status', kind: 'CronTab' }),
      ]),
    );
    const groups = await b.request('GET', '/apis');
    const group = groups.json.groups.find((g: { name: string }) => g.name === 'stable.example.com');
    expect(group.versions.map((v: { version: string }) => v.version)).toEqual(['v1', 'v1beta1']);
    expect(group.preferredVersion.version).toBe('v1');
    const aggregated = await b.request('GET', '/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    expect(JSON.stringify(aggregated.json)).toContain('"crontabs"');
    const v3 = await a.request('GET', '/openapi/v3');
    expect(Object.keys(v3.json.paths)).toEqual(expect.arrayContaining(['apis/stable.example.com/v1', 'apis/stable.example.com/v1beta1']));
    const doc = await a.request('GET', v3.json.paths['apis/stable.example.com/v1'].serverRelativeURL);
    const schema = doc.json.components.schemas['com.example.stable.v1.CronTab'];
    expect(schema.properties.spec.properties.ports['x-kubernetes-list-type']).toBe('map');
    const v2 = await b.request('GET', '/openapi/v2');
    expect(Object.keys(v2.json.paths)).toContain('/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}');
  }, 30_000);

  test('objects are defaulted, pruned and validated against the schema', async () => {
    const created = await b.request('POST', V1, json({ ...cron('one'), spec: { ...cron('one').spec, extra: 1 } }));
    expect(created.status).toBe(201);
    expect(created.json.spec).toEqual({ cronSpec: '* * * * */5', image: 'img', replicas: 1 });
    expect(created.headers['warning']).toContain('unknown field \\"spec.extra\\"');
    expect(created.json.metadata.generation).toBe(1);
    const strict = await b.request('POST', `${V1}?fieldValidation=Strict`, json({ ...cron('two'), spec: { extra: 1 } }));
    expect(strict.status).toBe(400);
    expect(strict.json.message).toContain('unknown field "spec.extra"');
    const invalid = await a.request('POST', V1, json(cron('bad', { cronSpec: 'nope', replicas: 20, image: 5, ports: [{ port: 1 }] })));
    expect(invalid.status).toBe(422);
    expect(invalid.json).toMatchObject({ reason: 'Invalid', details: { name: 'bad', group: 'stable.example.com', kind: 'CronTab' } });
    expect(causes(invalid)).toEqual(['spec.cronSpec', 'spec.image', 'spec.ports[0].name', 'spec.replicas']);
    expect(invalid.json.message).toContain('spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10');
    expect((await a.request('GET', `${V1}/bad`)).status).toBe(404);
    const dry = await a.request('POST', `${V1}?dryRun=All`, json(cron('dry')));
    expect(dry.status).toBe(201);
    expect((await a.request('GET', `${V1}/dry`)).status).toBe(404);
  });

  test('versions share objects with apiVersion rewritten (None conversion)', async () => {
    const viaBeta = await a.request('GET', `${V1BETA1}/one`);
    expect(viaBeta.status).toBe(200);
    expect(viaBeta.json.apiVersion).toBe('stable.example.com/v1beta1');
    const list = await a.request('GET', V1BETA1);
    expect(list.json.items.map((i: { apiVersion: string }) => i.apiVersion)).toEqual(['stable.example.com/v1beta1']);
    const createdBeta = await a.request('POST', V1BETA1, json({ apiVersion: 'stable.example.com/v1beta1', kind: 'CronTab', metadata: { name: 'beta' }, spec: { any: 'thing' } }));
    expect(createdBeta.status).toBe(201);
    const viaV1 = await b.request('GET', `${V1}/beta`);
    expect(viaV1.json.apiVersion).toBe('stable.example.com/v1');
    // Stored as written through v1beta1, read with the storage version's (v1) defaults, as upstream
    // defaults what it decodes from storage.
    expect(createdBeta.json.spec).toEqual({ any: 'thing', replicas: 1 });
    expect(viaV1.json.spec).toEqual({ any: 'thing', replicas: 1 });
  });

  test('status changes only through the status subresource; generation counts spec changes', async () => {
    const current = (await a.request('GET', `${V1}/one`)).json;
    const put = await a.request('PUT', `${V1}/one`, json({ ...current, spec: { ...current.spec, image: 'img2' }, status: { phase: 'ignored' } }));
    expect(put.status).toBe(200);
    expect(put.json.status).toBeUndefined();
    expect(put.json.metadata.generation).toBe(2);
    const status = await a.request('PATCH', `${V1}/one/status`, json({ status: { phase: 'Running' } }, 'application/merge-patch+json'));
    expect(status.status).toBe(200);
    expect(status.json.status).toEqual({ phase: 'Running' });
    expect(status.json.metadata.generation).toBe(2);
    const badStatus = await a.request('PATCH', `${V1}/one/status`, json({ status: { phase: 5 } }, 'application/merge-patch+json'));
    expect(badStatus.status).toBe(422);
    expect(causes(badStatus)).toEqual(['status.phase']);
  });

  test('the scale subresource reads and writes the replica paths as autoscaling/v1 Scale', async () => {
    await a.request('PATCH', `${V1}/one/status`, json({ status: { replicas: 2, selector: 'app=cron' } }, 'application/merge-patch+json'));
    const scale = await b.request('GET', `${V1}/one/scale`);
    expect(scale.status).toBe(200);
    expect(scale.json).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'one', namespace: 'default' }, spec: { replicas: 1 }, status: { replicas: 2, selector: 'app=cron' } });
    const put = await b.request('PUT', `${V1}/one/scale`, json({ ...scale.json, spec: { replicas: 5 } }));
    expect(put.status).toBe(200);
    expect(put.json.spec.replicas).toBe(5);
    expect((await a.request('GET', `${V1}/one`)).json.spec.replicas).toBe(5);
    const patched = await a.request('PATCH', `${V1}/one/scale`, json({ spec: { replicas: 6 } }, 'application/merge-patch+json'));
    expect(patched.json).toMatchObject({ kind: 'Scale', spec: { replicas: 6 } });
    const stale = await b.request('PUT', `${V1}/one/scale`, json({ ...scale.json, spec: { replicas: 4 } }));
    expect(stale.status).toBe(409);
    const tooMany = await a.request('PATCH', `${V1}/one/scale`, json({ spec: { replicas: 20 } }, 'application/merge-patch+json'));
    expect(tooMany.status).toBe(422);
    expect(causes(tooMany)).toEqual(['spec.replicas']);
    const negative = await a.request('PATCH', `${V1}/one/scale`, json({ spec: { replicas: -1 } }, 'application/merge-patch+json'));
    expect(negative.status).toBe(422);
    expect(negative.json.message).toBe('Scale.autoscaling "one" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    const discovery = await a.request('GET', '/apis/stable.example.com/v1');
    expect(discovery.json.resources).toContainEqual(expect.objectContaining({ name: 'crontabs/scale', group: 'autoscaling', version: 'v1', kind: 'Scale' }));
  });

  test('patches: JSON and merge work, strategic merge is 415; server-side apply merges list-map entries of two managers', async () => {
    const merge = await b.request('PATCH', `${V1}/one`, json({ spec: { replicas: 3 } }, 'application/merge-patch+json'));
    expect(merge.json.metadata.generation).toBe(5);
    expect(merge.status).toBe(200);
    expect(merge.json.spec.replicas).toBe(3);
    const jsonPatch = await b.request('PATCH', `${V1}/one`, json([{ op: 'replace', path: '/spec/image', value: 'img3' }], 'application/json-patch+json'));
    expect(jsonPatch.json.spec.image).toBe('img3');
    const smp = await b.request('PATCH', `${V1}/one`, json({ spec: { replicas: 4 } }, 'application/strategic-merge-patch+json'));
    expect(smp.status).toBe(415);
    expect(smp.json.reason).toBe('UnsupportedMediaType');
    const apply = (manager: string, ports: string) =>
      a.request('PATCH', `${V1}/applied?fieldManager=${manager}`, {
        body: `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: applied\nspec:\n  ports:\n${ports}`,
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
    expect((await apply('one', '  - name: a\n    port: 1\n')).status).toBe(201);
    const second = await apply('two', '  - name: b\n    port: 2\n');
    expect(second.status).toBe(200);
    expect(second.json.spec.ports).toEqual([{ name: 'a', port: 1 }, { name: 'b', port: 2 }]);
    const conflict = await apply('two', '  - name: a\n    port: 9\n');
    expect(conflict.status).toBe(409);
    expect(conflict.json.message).toContain('.spec.ports[name="a"].port');
  });

  test('Protobuf is refused: 406 for a response, 415 for a body', async () => {
    const accept = await a.request('GET', V1, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    expect(accept.status).toBe(406);
    const body = await a.request('POST', V1, { body: Buffer.from([0x6b, 0x38, 0x73, 0x00]), headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' } });
    expect(body.status).toBe(415);
    const fallback = await a.request('GET', V1, { headers: { Accept: 'application/vnd.kubernetes.protobuf, application/json' } });
    expect(fallback.status).toBe(200);
    expect(fallback.headers['content-type']).toBe('application/json');
  });

  test('tables show the printer columns; lists are chunked', async () => {
    const table = await b.request('GET', V1, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.json.kind).toBe('Table');
    expect(table.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Spec', 'Replicas']);
    const row = table.json.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'one');
    expect(row.cells).toEqual(['one', '* * * * */5', 3]);
    const page = await b.request('GET', `${V1}?limit=1`);
    expect(page.json.items).toHaveLength(1);
    expect(page.json.metadata.continue).toBeTruthy();
    const rest = await b.request('GET', `${V1}?limit=10&continue=${encodeURIComponent(page.json.metadata.continue)}`);
    expect(rest.json.items.length).toBeGreaterThanOrEqual(2);
  });

  test('a watch on one replica sees writes made through the other', async () => {
    const list = await a.request('GET', V1);
    const watch = await openWatch(a, `${V1}?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`);
    try {
      expect(watch.status).toBe(200);
      await b.request('POST', V1, json(cron('watched')));
      const ev = await watch.nextMatching((e) => e.object?.metadata?.name === 'watched', 10_000);
      expect(ev.type).toBe('ADDED');
      expect(ev.object.apiVersion).toBe('stable.example.com/v1');
    } finally {
      watch.close();
    }
  });

  test('a CRD whose names conflict is not served', async () => {
    const other = cronTabCrd();
    other.metadata.name = 'crontabs2.stable.example.com';
    other.spec.names = { ...other.spec.names, plural: 'crontabs2', singular: 'crontab2', shortNames: [] };
    expect((await a.request('POST', CRDS, json(other))).status).toBe(201);
    await eventually('KindConflict', async () => {
      const r = await b.request('GET', `${CRDS}/crontabs2.stable.example.com`);
      return (r.json.status?.conditions ?? []).some((c: { type: string; reason: string }) => c.type === 'NamesAccepted' && c.reason === 'KindConflict');
    });
    expect((await b.request('GET', '/apis/stable.example.com/v1/namespaces/default/crontabs2')).status).toBe(404);
    expect((await a.request('DELETE', `${CRDS}/crontabs2.stable.example.com`)).status).toBe(200);
  });

  test('deleting the CRD deletes its objects, then its discovery and OpenAPI on every replica', async () => {
    const watch = await openWatch(b, `${V1}?watch=1`);
    try {
      const del = await a.request('DELETE', `${CRDS}/crontabs.stable.example.com`);
      expect(del.status).toBe(200);
      for (const ts of [a, b]) {
        await eventually('the CRD gone', async () => (await ts.request('GET', `${CRDS}/crontabs.stable.example.com`)).status === 404);
        await eventually('discovery gone', async () => (await ts.request('GET', '/apis/stable.example.com/v1')).status === 404);
        expect((await ts.request('GET', V1)).status).toBe(404);
        const groups = await ts.request('GET', '/apis');
        expect(groups.json.groups.map((g: { name: string }) => g.name)).not.toContain('stable.example.com');
        const v3 = await ts.request('GET', '/openapi/v3');
        expect(Object.keys(v3.json.paths)).not.toContain('apis/stable.example.com/v1');
      }
      const deleted = watch.received.filter((e) => e.type === 'DELETED').map((e) => e.object.metadata.name);
      expect(deleted.sort()).toEqual(['applied', 'beta', 'one', 'watched']);
    } finally {
      watch.close();
    }
    // Recreated, the CRD starts empty: the objects were removed from storage, not just hidden.
    expect((await a.request('POST', CRDS, json(cronTabCrd()))).status).toBe(201);
    await eventually('served again', async () => (await b.request('GET', V1)).status === 200);
    expect((await b.request('GET', V1)).json.items).toEqual([]);
  }, 40_000);
});
