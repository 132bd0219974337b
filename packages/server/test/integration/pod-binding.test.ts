import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeProtobufObject, encodeProtobufObject } from '@cluster/apimachinery';
import { useTestServer } from '../support/test-server.js';

// pods/binding and the namespaced bindings collection (upstream's BindingREST / LegacyBindingREST,
// v1.24): how a scheduler assigns a pod to a node. Go schedulers POST the Binding as Protobuf.
const tokenFile = join(mkdtempSync(join(tmpdir(), 'binding-test-')), 'tokens.csv');
writeFileSync(tokenFile, 'nobody-token,nobody,u1\nbinder-token,binder,u2\nscheduler-token,system:kube-scheduler,u3\n');
const ts = useTestServer(['--controllers=-namespace', '--authorization-mode=RBAC', '--token-auth-file', tokenFile]);
const PODS = '/api/v1/namespaces/default/pods';
const PB = 'application/vnd.kubernetes.protobuf';

async function pendingPod(name: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await ts().request('POST', PODS, { body: { metadata: { name, ...extra }, spec: { containers: [{ name: 'c', image: 'pause' }] } } });
  expect(res.status).toBe(201);
}

const binding = (name: string, node: string, meta: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...meta }, target: { kind: 'Node', name: node } });
const bind = (name: string, body: Record<string, unknown>, query = '', token?: string) =>
  ts().request('POST', `${PODS}/${name}/binding${query}`, { body, ...(token ? { token } : {}) });
const run = promisify(execFile);

/** kubectl (v1.32) against the test server as admin. */
async function kubectl(...args: string[]): Promise<string> {
  const dir = ts().dataDir;
  const ca = join(dir, 'binding-ca.crt');
  writeFileSync(ca, ts().server.caPem ?? '');
  const kubeconfig = join(dir, 'binding.kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: ts().server.url, 'certificate-authority': ca } }],
      users: [{ name: 'u', user: { token: ts().server.adminToken } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return (await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 })).stdout;
}
const podOf = async (name: string) => (await ts().request('GET', `${PODS}/${name}`)).json;

describe('pods/binding and bindings', () => {
  test('discovery lists pods/binding and bindings as Binding, create only', async () => {
    const resources = (await ts().request('GET', '/api/v1')).json.resources as { name: string }[];
    expect(resources.find((r) => r.name === 'pods/binding')).toMatchObject({ kind: 'Binding', verbs: ['create'], namespaced: true });
    expect(resources.find((r) => r.name === 'bindings')).toMatchObject({ kind: 'Binding', verbs: ['create'], namespaced: true });
  });

  test('OpenAPI v2 describes both POST operations with the Binding definition', async () => {
    const doc = (await ts().request('GET', '/openapi/v2')).json;
    for (const path of ['/api/v1/namespaces/{namespace}/pods/{name}/binding', '/api/v1/namespaces/{namespace}/bindings']) {
      expect(doc.paths[path]?.post?.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'body', schema: { $ref: '#/definitions/io.k8s.api.core.v1.Binding' } })]));
    }
    expect(doc.definitions['io.k8s.api.core.v1.Binding'].required).toEqual(['target']);
  });

  test('binds an unbound pod: nodeName, the Binding annotations, PodScheduled=True; 201 Success', async () => {
    await pendingPod('p1', { annotations: { keep: 'me' } });
    const res = await bind('p1', binding('p1', 'node-a', { annotations: { 'scheduler.example/by': 'test' } }));
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 });
    const pod = await podOf('p1');
    expect(pod.spec.nodeName).toBe('node-a');
    expect(pod.metadata.annotations).toEqual({ keep: 'me', 'scheduler.example/by': 'test' });
    expect(pod.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]);
  });

  test('a pod already bound: 409 Conflict on pods/binding with upstream\'s message', async () => {
    const res = await bind('p1', binding('p1', 'node-b'));
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ reason: 'Conflict', message: 'Operation cannot be fulfilled on pods/binding "p1": pod p1 is already assigned to node "node-a"' });
    expect((await podOf('p1')).spec.nodeName).toBe('node-a');
  });

  test('a terminating pod: 409 Conflict, it is not assigned', async () => {
    await pendingPod('going', { finalizers: ['example.com/hold'] });
    expect((await ts().request('DELETE', `${PODS}/going`)).status).toBe(200);
    const res = await bind('going', binding('going', 'node-a'));
    expect(res.status).toBe(409);
    expect(res.json.message).toBe('Operation cannot be fulfilled on pods/binding "going": pod going is being deleted, cannot be assigned to a host');
    expect((await podOf('going')).spec.nodeName).toBeUndefined();
    const release = await ts().request('PATCH', `${PODS}/going`, { headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { finalizers: null } } });
    expect(release.status).toBe(200);
  });

  test('dry run answers Success and binds nothing', async () => {
    await pendingPod('dry');
    const res = await bind('dry', binding('dry', 'node-a'), '?dryRun=All');
    expect(res.status).toBe(201);
    expect((await podOf('dry')).spec.nodeName).toBeUndefined();
  });

  test('bad bodies: name mismatch 400, a non-Node target or no target name refused, missing pod 404', async () => {
    await pendingPod('bad');
    const mismatch = await bind('bad', binding('other', 'node-a'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.message).toBe('name in URL does not match name in Binding object');
    // Upstream's REST storage returns these as a plain aggregate error, answered as 500 with the field messages.
    const kind = await bind('bad', { ...binding('bad', 'node-a'), target: { kind: 'Pod', name: 'x' } });
    expect(kind.json).toMatchObject({ status: 'Failure', code: 500, message: 'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"' });
    const noName = await bind('bad', { ...binding('bad', ''), target: {} });
    expect(noName.json).toMatchObject({ code: 500, message: 'target.name: Required value' });
    expect((await podOf('bad')).spec.nodeName).toBeUndefined();
    expect((await bind('ghost', binding('ghost', 'node-a'))).status).toBe(404);
  });

  test('the Binding uid and resourceVersion are preconditions on the pod (409 when stale)', async () => {
    await pendingPod('pre');
    const stale = await bind('pre', binding('pre', 'node-a', { uid: '00000000-0000-0000-0000-000000000000' }));
    expect(stale.status).toBe(409);
    expect((await podOf('pre')).spec.nodeName).toBeUndefined();
    const pod = await podOf('pre');
    expect((await bind('pre', binding('pre', 'node-a', { uid: pod.metadata.uid, resourceVersion: pod.metadata.resourceVersion }))).status).toBe(201);
  });

  test('a Protobuf Binding (as Go schedulers send it) binds, answered as a Protobuf Status', async () => {
    await pendingPod('pb');
    const body = Buffer.from(encodeProtobufObject(binding('pb', 'node-pb')));
    const res = await ts().request('POST', `${PODS}/pb/binding`, { body, headers: { 'Content-Type': PB, Accept: PB } });
    expect(res.status).toBe(201);
    expect(decodeProtobufObject(res.body)).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await podOf('pb')).spec.nodeName).toBe('node-pb');
    // The bound pod (with its PodScheduled condition) reads back as Protobuf too.
    const read = await ts().request('GET', `${PODS}/pb`, { headers: { Accept: PB } });
    expect(read.status).toBe(200);
    expect(decodeProtobufObject(read.body)).toMatchObject({ spec: { nodeName: 'node-pb' }, status: { conditions: [expect.objectContaining({ type: 'PodScheduled', status: 'True' })] } });
  });

  test('POST to the namespaced bindings collection binds the pod the body names', async () => {
    await pendingPod('legacy');
    const res = await ts().request('POST', '/api/v1/namespaces/default/bindings', { body: binding('legacy', 'node-l') });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await podOf('legacy')).spec.nodeName).toBe('node-l');
    const again = await ts().request('POST', '/api/v1/namespaces/default/bindings', { body: binding('legacy', 'node-m') });
    expect(again.status).toBe(409);
    // A body naming another namespace is refused (as newer upstream create handlers do).
    const otherNs = await ts().request('POST', '/api/v1/namespaces/default/bindings', { body: binding('legacy', 'node-m', { namespace: 'kube-system' }) });
    expect(otherNs.status).toBe(400);
    // Create only: nothing is stored to list.
    expect((await ts().request('GET', '/api/v1/namespaces/default/bindings')).status).toBe(405);
  });

  test('authorization: create on pods/binding (or bindings) is needed', async () => {
    await pendingPod('authz');
    const denied = await bind('authz', binding('authz', 'node-a'), '', 'nobody-token');
    expect(denied.status).toBe(403);
    expect(denied.json.message).toBe('pods "authz" is forbidden: User "nobody" cannot create resource "pods/binding" in API group "" in the namespace "default"');
    const deniedLegacy = await ts().request('POST', '/api/v1/namespaces/default/bindings', { body: binding('authz', 'node-a'), token: 'nobody-token' });
    expect(deniedLegacy.status).toBe(403);
    expect((await podOf('authz')).spec.nodeName).toBeUndefined();
    const G = 'rbac.authorization.k8s.io';
    const role = { metadata: { name: 'bind' }, rules: [{ apiGroups: [''], resources: ['pods/binding'], verbs: ['create'] }] };
    expect((await ts().request('POST', `/apis/${G}/v1/namespaces/default/roles`, { body: role })).status).toBe(201);
    const rb = { metadata: { name: 'bind' }, roleRef: { apiGroup: G, kind: 'Role', name: 'bind' }, subjects: [{ kind: 'User', apiGroup: G, name: 'binder' }] };
    expect((await ts().request('POST', `/apis/${G}/v1/namespaces/default/rolebindings`, { body: rb })).status).toBe(201);
    let res = await bind('authz', binding('authz', 'node-a'), '', 'binder-token');
    for (let i = 0; i < 20 && res.status === 403; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await bind('authz', binding('authz', 'node-a'), '', 'binder-token');
    }
    expect(res.status).toBe(201);
    expect((await podOf('authz')).spec.nodeName).toBe('node-a');
  });

  test('the default system:kube-scheduler role lets the scheduler user bind, through either endpoint', async () => {
    await pendingPod('sched1');
    await pendingPod('sched2');
    expect((await bind('sched1', binding('sched1', 'node-s'), '', 'scheduler-token')).status).toBe(201);
    const legacy = await ts().request('POST', '/api/v1/namespaces/default/bindings', { body: binding('sched2', 'node-s'), token: 'scheduler-token' });
    expect(legacy.status).toBe(201);
    expect((await podOf('sched1')).spec.nodeName).toBe('node-s');
    expect((await podOf('sched2')).spec.nodeName).toBe('node-s');
    // The role grants no pod creation or updates beyond pods/status.
    expect((await ts().request('POST', PODS, { body: { metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'pause' }] } }, token: 'scheduler-token' })).status).toBe(403);
  });

  test('kubectl create --raw posts a Binding', async () => {
    await pendingPod('kc');
    const file = join(ts().dataDir, 'binding.json');
    writeFileSync(file, JSON.stringify(binding('kc', 'node-k')));
    const out = await kubectl('create', '--raw', `${PODS}/kc/binding`, '-f', file);
    expect(await kubectl('api-resources', '--api-group=')).toMatch(/\nbindings\s+v1\s+true\s+Binding\n/);
    expect(await kubectl('explain', 'binding.target')).toContain('KIND:       Binding');
    expect(JSON.parse(out)).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await podOf('kc')).spec.nodeName).toBe('node-k');
  });
});
