import { randomUUID } from 'node:crypto';
import { KubeconfigClient } from './support/http-client.js';
import { kubectl, startServerProcess, tokenKubeconfig, type ServerProcess } from './support/server-process.js';

// Issue 32: the built-in garbage collector, with stock kubectl and a raw client. A ConfigMap owns
// Secrets and a custom resource (its CRD created after the collector started, so discovery must
// pick it up); deleting the owner with each propagation policy collects, waits for or orphans them.

let server: ServerProcess;
let client: KubeconfigClient;
const NS = 'gc-e2e';
const GROUP = 'gc.example.com';
const GADGETS = `/apis/${GROUP}/v1/namespaces/${NS}/gadgets`;
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const SECRETS = `/api/v1/namespaces/${NS}/secrets`;
const HOLD = 'e2e.example.com/hold';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const ok = async (args: string[]) => {
  const r = await kubectl(server, args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;
async function create(path: string, body: Obj): Promise<Obj> {
  const r = await client.call('POST', path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}
const get = (path: string) => client.call('GET', path);
const gone = (path: string) => until(`${path} gone`, async () => ((await get(path)).status === 404 ? true : undefined));

interface OwnerRefSpec {
  owner: Obj;
  block?: boolean;
}
const refTo = ({ owner, block }: OwnerRefSpec) => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: owner.metadata.name,
  uid: owner.metadata.uid,
  ...(block === undefined ? {} : { blockOwnerDeletion: block }),
});
const meta = (name: string, owners: OwnerRefSpec[], finalizers?: string[]) => ({
  name,
  ownerReferences: owners.map(refTo),
  ...(finalizers ? { finalizers } : {}),
});
const secret = (name: string, owners: OwnerRefSpec[], finalizers?: string[]) =>
  create(SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: meta(name, owners, finalizers), data: { k: 'dg==' } });
const gadget = (name: string, owners: OwnerRefSpec[], finalizers?: string[]) =>
  create(GADGETS, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: meta(name, owners, finalizers), spec: { size: 1 } });
const configMap = (name: string, owners: OwnerRefSpec[] = []) => create(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(name, owners), data: { a: 'b' } });
const dropFinalizers = (path: string) => client.call('PATCH', path, { metadata: { finalizers: null } }, 'application/merge-patch+json');

/** An owner ConfigMap with two Secrets and a Gadget depending on it. */
async function family(name: string, block = true) {
  const owner = await configMap(name);
  const s1 = await secret(`${name}-s1`, [{ owner, block }]);
  const s2 = await secret(`${name}-s2`, [{ owner, block }]);
  const g = await gadget(`${name}-g`, [{ owner, block }]);
  return { owner, dependents: [`${SECRETS}/${s1.metadata.name}`, `${SECRETS}/${s2.metadata.name}`, `${GADGETS}/${g.metadata.name}`] };
}

beforeAll(async () => {
  server = await startServerProcess(['--workers=1', '--authorization-mode=Node,RBAC', '--enable-admission-plugins=OwnerReferencesPermissionEnforcement']);
  client = new KubeconfigClient(server.kubeconfig, 4);
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD);
  await until('the Gadget CRD served', async () => ((await get(GADGETS)).status === 200 ? true : undefined));
}, 90_000);

afterAll(async () => {
  client?.close();
  expect(await server?.stop()).toBe(0);
}, 30_000);

test('Background (raw client): the owner goes at once, its Secrets and custom resource follow', async () => {
  const { owner, dependents } = await family('bg');
  const r = await client.call('DELETE', `${CMS}/bg`, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' });
  expect(r.status).toBe(200);
  expect((await get(`${CMS}/bg`)).status).toBe(404);
  for (const d of dependents) await gone(d);
  expect(owner.metadata.uid).toBeTruthy();
}, 60_000);

test('kubectl delete (its default, Background) collects the dependents', async () => {
  const { dependents } = await family('kd');
  await ok(['delete', 'configmap', 'kd', '-n', NS]);
  for (const d of dependents) await gone(d);
}, 60_000);

test('Foreground (kubectl --cascade=foreground): the owner stays until its blocking dependents are gone', async () => {
  const owner = await configMap('fg');
  // A blocking dependent held by its own finalizer, a non-blocking one held too, a plain one.
  await secret('fg-blocking', [{ owner, block: true }], [HOLD]);
  await gadget('fg-free', [{ owner, block: false }], [HOLD]);
  await secret('fg-plain', [{ owner, block: true }]);
  await ok(['delete', 'configmap', 'fg', '-n', NS, '--cascade=foreground', '--wait=false']);
  // Every dependent is deleted; the plain one goes, the held ones are marked.
  await gone(`${SECRETS}/fg-plain`);
  await until('dependents marked', async () => {
    const a = (await get(`${SECRETS}/fg-blocking`)).json;
    const b = (await get(`${GADGETS}/fg-free`)).json;
    return a.metadata?.deletionTimestamp && b.metadata?.deletionTimestamp ? true : undefined;
  });
  // The blocking one keeps the owner, under foregroundDeletion.
  await new Promise((r) => setTimeout(r, 1_500));
  const held = await get(`${CMS}/fg`);
  expect(held.status).toBe(200);
  expect(held.json.metadata.deletionTimestamp).toBeTruthy();
  expect(held.json.metadata.finalizers).toEqual(['foregroundDeletion']);
  // Releasing the blocking dependent releases the owner; the non-blocking one never held it.
  expect((await dropFinalizers(`${SECRETS}/fg-blocking`)).status).toBe(200);
  await gone(`${CMS}/fg`);
  expect((await get(`${GADGETS}/fg-free`)).status).toBe(200);
  expect((await dropFinalizers(`${GADGETS}/fg-free`)).status).toBe(200);
  await gone(`${GADGETS}/fg-free`);
}, 60_000);

test('Orphan (kubectl --cascade=orphan): the owner goes, the dependents stay without the reference', async () => {
  const other = await configMap('orph-other');
  const owner = await configMap('orph');
  await secret('orph-s', [{ owner, block: true }, { owner: other }]);
  await gadget('orph-g', [{ owner, block: true }]);
  await ok(['delete', 'configmap', 'orph', '-n', NS, '--cascade=orphan']);
  await gone(`${CMS}/orph`);
  const s = (await get(`${SECRETS}/orph-s`)).json;
  expect(s.metadata.ownerReferences.map((r: Obj) => r.uid)).toEqual([other.metadata.uid]);
  const g = (await get(`${GADGETS}/orph-g`)).json;
  expect(g.metadata.ownerReferences).toBeUndefined();
  // Still there a while later: orphans are not collected.
  await new Promise((r) => setTimeout(r, 1_500));
  expect((await get(`${GADGETS}/orph-g`)).status).toBe(200);
}, 60_000);

test('Orphan with the raw client and the deprecated orphanDependents', async () => {
  const owner = await configMap('orph-raw');
  await secret('orph-raw-s', [{ owner }]);
  const r = await client.call('DELETE', `${CMS}/orph-raw`, { apiVersion: 'v1', kind: 'DeleteOptions', orphanDependents: true });
  expect(r.status).toBe(200);
  await gone(`${CMS}/orph-raw`);
  expect((await get(`${SECRETS}/orph-raw-s`)).json.metadata.ownerReferences).toBeUndefined();
}, 60_000);

test('owners that never existed, live owners, owners elsewhere', async () => {
  const ghost = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ghost', uid: randomUUID() } };
  const live = await configMap('live');
  // Never-existing owner uid: collected.
  await secret('orphan-of-ghost', [{ owner: ghost }]);
  // Same name as a live owner but another uid: collected.
  await gadget('wrong-uid', [{ owner: { ...live, metadata: { ...live.metadata, uid: randomUUID() } } }]);
  // One live owner beside a ghost: kept, only the ghost reference goes.
  await secret('half-orphan', [{ owner: ghost }, { owner: live }]);
  // A namespaced owner in another namespace does not count (as upstream): collected.
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${NS}-other` } });
  await create(`/api/v1/namespaces/${NS}-other/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: meta('cross-ns', [{ owner: live }]) });
  // A cluster-scoped owner of a namespaced dependent counts.
  const ns = (await get(`/api/v1/namespaces/${NS}`)).json;
  await secret('owned-by-namespace', [{ owner: ns }]);
  // A cluster-scoped dependent naming a namespaced kind is left alone (as upstream since 1.20).
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: meta(`${NS}-invalid-owner`, [{ owner: ghost }]) });

  await gone(`${SECRETS}/orphan-of-ghost`);
  await gone(`${GADGETS}/wrong-uid`);
  await gone(`/api/v1/namespaces/${NS}-other/secrets/cross-ns`);
  await until('the ghost reference removed', async () => {
    const refs = (await get(`${SECRETS}/half-orphan`)).json.metadata.ownerReferences;
    return refs?.length === 1 && refs[0].uid === live.metadata.uid ? true : undefined;
  });
  expect((await get(`${SECRETS}/owned-by-namespace`)).status).toBe(200);
  const invalid = (await get(`/api/v1/namespaces/${NS}-invalid-owner`)).json;
  expect(invalid.metadata.deletionTimestamp).toBeUndefined();
}, 60_000);

test('a custom resource owns a ConfigMap: deleting it collects the ConfigMap', async () => {
  const g = await gadget('owner-gadget', []);
  await configMap('owned-by-gadget', [{ owner: g, block: true }]);
  await ok(['delete', `gadgets.${GROUP}`, 'owner-gadget', '-n', NS, '--cascade=foreground']);
  await gone(`${CMS}/owned-by-gadget`);
  await gone(`${GADGETS}/owner-gadget`);
}, 60_000);

test('a cycle under Foreground finishes', async () => {
  const a = await configMap('cyc-a');
  const b = await configMap('cyc-b', [{ owner: a, block: true }]);
  const patched = await client.call('PATCH', `${CMS}/cyc-a`, { metadata: { ownerReferences: [refTo({ owner: b, block: true })] } }, 'application/merge-patch+json');
  expect(patched.status).toBe(200);
  const r = await client.call('DELETE', `${CMS}/cyc-a`, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' });
  expect(r.status).toBe(200);
  await gone(`${CMS}/cyc-a`);
  await gone(`${CMS}/cyc-b`);
}, 60_000);

test('deleting a namespace removes every kind in it, custom resources and held objects included', async () => {
  const ns = `${NS}-doomed`;
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await create(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  await create(`/apis/${GROUP}/v1/namespaces/${ns}/gadgets`, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g' } });
  await create(`/apis/${GROUP}/v1/namespaces/${ns}/gadgets`, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'held', finalizers: [HOLD] } });
  await ok(['delete', 'namespace', ns, '--wait=false']);
  await gone(`/apis/${GROUP}/v1/namespaces/${ns}/gadgets/g`);
  // A finalizer keeps the namespace Terminating until it is removed.
  await until('held gadget marked', async () => ((await get(`/apis/${GROUP}/v1/namespaces/${ns}/gadgets/held`)).json.metadata?.deletionTimestamp ? true : undefined));
  expect((await get(`/api/v1/namespaces/${ns}`)).json.status.phase).toBe('Terminating');
  expect((await dropFinalizers(`/apis/${GROUP}/v1/namespaces/${ns}/gadgets/held`)).status).toBe(200);
  await gone(`/api/v1/namespaces/${ns}`);
}, 60_000);

test('metrics: the resources sync error counter and the collector work queues', async () => {
  const text = String((await client.call('GET', '/metrics')).json);
  expect(text).toMatch(/^garbagecollector_controller_resources_sync_error_total(\{[^}]*\})? \d+$/m);
  expect(text).toMatch(/^workqueue_adds_total\{name="garbage_collector_attempt_to_delete"[^}]*\} [1-9]\d*$/m);
  expect(text).toMatch(/^workqueue_adds_total\{name="garbage_collector_attempt_to_orphan"[^}]*\} [1-9]\d*$/m);
}, 30_000);

test('OwnerReferencesPermissionEnforcement: a blocking reference needs update on the owner\'s finalizers', async () => {
  const owner = await configMap('guarded');
  await create(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'limited' } });
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'secrets-writer' },
    rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['create', 'get', 'update', 'patch', 'delete'] }],
  });
  const bind = (name: string, role: string) =>
    create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role },
      subjects: [{ kind: 'ServiceAccount', name: 'limited', namespace: NS }],
    });
  await bind('secrets-writer', 'secrets-writer');
  const tr = await create(`/api/v1/namespaces/${NS}/serviceaccounts/limited/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  const limited = new KubeconfigClient((await tokenKubeconfig(server, 'limited', tr.status.token, NS)).KUBECONFIG!, 2);
  try {
    const body = (name: string, block: boolean) => ({ apiVersion: 'v1', kind: 'Secret', metadata: meta(name, [{ owner, block }]) });
    // A plain owner reference on a create: allowed (once the binding is seen).
    await until('the binding in force', async () => ((await limited.call('POST', SECRETS, body('plain-ref', false))).status === 201 ? true : undefined));
    // A blocking one: refused, on create and when switched on by an update.
    const refused = await limited.call('POST', SECRETS, body('blocking-ref', true));
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(`secrets "blocking-ref" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`);
    const current = (await limited.call('GET', `${SECRETS}/plain-ref`)).json;
    current.metadata.ownerReferences[0].blockOwnerDeletion = true;
    expect((await limited.call('PUT', `${SECRETS}/plain-ref`, current)).status).toBe(403);
    // With update on configmaps/finalizers it is allowed.
    await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'cm-finalizers' },
      rules: [{ apiGroups: [''], resources: ['configmaps/finalizers'], verbs: ['update'], resourceNames: ['guarded'] }],
    });
    await bind('cm-finalizers', 'cm-finalizers');
    await until('blocking reference allowed', async () => ((await limited.call('POST', SECRETS, body('blocking-ref', true))).status === 201 ? true : undefined));
    expect((await limited.call('PUT', `${SECRETS}/plain-ref`, current)).status).toBe(200);
  } finally {
    limited.close();
  }
}, 60_000);
