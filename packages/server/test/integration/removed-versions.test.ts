import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCsr } from '@cluster/apimachinery';
import { useTestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-stream.js';

// SPEC 9.4 removed versions served again through --runtime-config: same stored objects as v1
// (lossless round trip), the Warning header, the audit annotations and the deprecated-APIs gauge
// (SPEC 9.3 rule 10), and authorization/v1beta1's spec.group.
const dir = mkdtempSync(join(tmpdir(), 'removed-'));
const logPath = join(dir, 'audit.log');
const policyPath = join(dir, 'policy.yaml');
writeFileSync(policyPath, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: rbac.authorization.k8s.io}]\n');
const ts = useTestServer([
  '--runtime-config=rbac.authorization.k8s.io/v1beta1=true,coordination.k8s.io/v1beta1,authorization.k8s.io/v1beta1,authentication.k8s.io/v1beta1,certificates.k8s.io/v1beta1,events.k8s.io/v1beta1',
  '--controllers=-csrsigning,-csrapproving,-csrcleaner',
  '--audit-log-path',
  logPath,
  '--audit-policy-file',
  policyPath,
]);
const RBAC = 'rbac.authorization.k8s.io';
const V1BETA1 = `/apis/${RBAC}/v1beta1`;

test('a v1beta1 Role is the v1 Role: every field round-trips both ways', async () => {
  const role = {
    apiVersion: `${RBAC}/v1beta1`,
    kind: 'Role',
    metadata: { name: 'old-style', namespace: 'default', labels: { a: 'b' }, annotations: { c: 'd' } },
    rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'], verbs: ['get', 'list'] }],
  };
  const created = await ts().request('POST', `${V1BETA1}/namespaces/default/roles`, { body: role });
  expect(created.status).toBe(201);
  expect(created.json.apiVersion).toBe(`${RBAC}/v1beta1`);
  expect(String(created.headers['warning'])).toBe(
    `299 - "${RBAC}/v1beta1 Role is deprecated in v1.17+, unavailable in v1.22+; use ${RBAC}/v1 Role"`,
  );
  const v1 = await ts().request('GET', `/apis/${RBAC}/v1/namespaces/default/roles/old-style`);
  expect(v1.status).toBe(200);
  expect(v1.headers['warning']).toBeUndefined();
  expect(v1.json).toMatchObject({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { labels: { a: 'b' }, annotations: { c: 'd' } }, rules: role.rules });
  // Written through v1, read through v1beta1.
  const updated = await ts().request('PUT', `/apis/${RBAC}/v1/namespaces/default/roles/old-style`, { body: { ...v1.json, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] } });
  expect(updated.status).toBe(200);
  const back = await ts().request('GET', `${V1BETA1}/namespaces/default/roles/old-style`);
  expect(back.json).toMatchObject({ apiVersion: `${RBAC}/v1beta1`, rules: [{ resources: ['secrets'] }], metadata: { resourceVersion: updated.json.metadata.resourceVersion } });
  const list = await ts().request('GET', `${V1BETA1}/roles`);
  expect(list.json).toMatchObject({ apiVersion: `${RBAC}/v1beta1`, kind: 'RoleList' });
});

test('discovery lists the enabled removed versions; v1 stays the preferred version', async () => {
  const group = await ts().request('GET', `/apis/${RBAC}`);
  expect(group.json.versions.map((v: { version: string }) => v.version)).toEqual(['v1', 'v1beta1']);
  expect(group.json.preferredVersion.version).toBe('v1');
  const leases = await ts().request('GET', '/apis/coordination.k8s.io/v1beta1');
  expect(leases.json.resources.map((r: { name: string }) => r.name)).toContain('leases');
  // Not enabled: coordination's v1beta1 is, networking's does not exist at all.
  expect((await ts().request('GET', '/apis/networking.k8s.io/v1beta1')).status).toBe(404);
});

test('authorization/v1beta1 SubjectAccessReview takes spec.group and answers with it', async () => {
  const r = await ts().request('POST', '/apis/authorization.k8s.io/v1beta1/subjectaccessreviews', {
    body: {
      apiVersion: 'authorization.k8s.io/v1beta1',
      kind: 'SubjectAccessReview',
      spec: { user: 'x', group: ['system:masters'], resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' } },
    },
  });
  expect(r.status).toBe(201);
  expect(r.json).toMatchObject({ apiVersion: 'authorization.k8s.io/v1beta1', spec: { group: ['system:masters'] }, status: { allowed: true } });
  expect(r.json.spec.groups).toBeUndefined();
  expect(String(r.headers['warning'])).toContain('authorization.k8s.io/v1beta1 SubjectAccessReview is deprecated in v1.19+, unavailable in v1.22+');
});

test('the gauge and the audit annotations record the deprecated request', async () => {
  const metrics = (await ts().request('GET', '/metrics')).text;
  expect(metrics).toMatch(/^apiserver_requested_deprecated_apis\{group="rbac\.authorization\.k8s\.io",version="v1beta1",resource="roles",subresource="",removed_release="1\.22"\} 1$/m);
  const r = await ts().request('GET', `${V1BETA1}/clusterroles/view`);
  expect(r.status).toBe(200);
  const id = String(r.headers['audit-id']);
  let event: { annotations?: Record<string, string> } | undefined;
  for (let i = 0; i < 100 && !event; i++) {
    event = readFileSync(logPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.auditID === id && e.stage === 'ResponseComplete');
    if (!event) await new Promise((res) => setTimeout(res, 20));
  }
  expect(event?.annotations).toMatchObject({ 'k8s.io/deprecated': 'true', 'k8s.io/removed-release': '1.22' });
});

test('certificates/v1beta1 keeps its defaults: usages, the signer from the request, legacy-unknown allowed', async () => {
  const CSRS = '/apis/certificates.k8s.io/v1beta1/certificatesigningrequests';
  const node = makeTestCsr({ commonName: 'system:node:n9', organizations: ['system:nodes'] }).request;
  const nodeCsr = await ts().request('POST', CSRS, {
    body: { apiVersion: 'certificates.k8s.io/v1beta1', kind: 'CertificateSigningRequest', metadata: { name: 'old-node' }, spec: { request: node, usages: ['digital signature', 'key encipherment', 'client auth'] } },
  });
  expect(nodeCsr.status).toBe(201);
  expect(nodeCsr.json.spec.signerName).toBe('k8s.io/api-server-client-node-agent');
  const plain = await ts().request('POST', CSRS, {
    body: { apiVersion: 'certificates.k8s.io/v1beta1', kind: 'CertificateSigningRequest', metadata: { name: 'old-plain' }, spec: { request: makeTestCsr({ commonName: 'x' }).request } },
  });
  expect(plain.status).toBe(201);
  expect(plain.json.spec).toMatchObject({ signerName: 'k8s.io/legacy-unknown', usages: ['digital signature', 'key encipherment'] });
  // Read through v1, the same object.
  const v1 = await ts().request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/old-plain');
  expect(v1.json).toMatchObject({ apiVersion: 'certificates.k8s.io/v1', spec: { signerName: 'k8s.io/legacy-unknown' } });
  // v1 itself still refuses the legacy signer on create.
  const refused = await ts().request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
    body: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'new-legacy' }, spec: { request: makeTestCsr({ commonName: 'y' }).request, signerName: 'k8s.io/legacy-unknown', usages: ['client auth'] } },
  });
  expect(refused.status).toBe(422);
});

test('events/v1beta1 reads and writes the stored core events, with its deprecation warning', async () => {
  const created = await ts().request('POST', '/apis/events.k8s.io/v1beta1/namespaces/default/events', {
    body: {
      apiVersion: 'events.k8s.io/v1beta1',
      kind: 'Event',
      metadata: { name: 'old-style' },
      eventTime: '2024-01-02T03:04:05.000000Z',
      reportingController: 'example.com/c',
      reportingInstance: 'c-1',
      action: 'Doing',
      reason: 'Done',
      regarding: { kind: 'Node', name: 'n1' },
      note: 'hello',
      type: 'Normal',
    },
  });
  expect(created.status).toBe(201);
  expect(created.json.apiVersion).toBe('events.k8s.io/v1beta1');
  expect(created.headers['warning']).toContain('events.k8s.io/v1beta1 Event is deprecated in v1.22+, unavailable in v1.25+; use events.k8s.io/v1 Event');
  const core = await ts().request('GET', '/api/v1/namespaces/default/events/old-style');
  expect(core.json).toMatchObject({ apiVersion: 'v1', involvedObject: { kind: 'Node', name: 'n1' }, message: 'hello', reportingComponent: 'example.com/c' });
  const list = await ts().request('GET', '/apis/events.k8s.io/v1beta1/namespaces/default/events');
  expect(list.json).toMatchObject({ apiVersion: 'events.k8s.io/v1beta1', kind: 'EventList', items: [{ apiVersion: 'events.k8s.io/v1beta1', note: 'hello' }] });
});

test('watches of one resource through v1 and v1beta1 each get their own apiVersion', async () => {
  // Both versions are served from one watch cache, so the two watchers share each event object;
  // the bytes encoded for one version must not be reused for the other.
  const ns = 'default';
  const v1 = await openWatch(ts(), `/apis/${RBAC}/v1/namespaces/${ns}/roles?watch=true&fieldSelector=metadata.name%3Dshared-event`);
  const old = await openWatch(ts(), `${V1BETA1}/namespaces/${ns}/roles?watch=true&fieldSelector=metadata.name%3Dshared-event`);
  try {
    const role = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'shared-event', namespace: ns }, rules: [] };
    expect((await ts().request('POST', `/apis/${RBAC}/v1/namespaces/${ns}/roles`, { body: role })).status).toBe(201);
    const [fromV1, fromOld] = await Promise.all([v1.nextEvent(10_000), old.nextEvent(10_000)]);
    expect(fromV1).toMatchObject({ type: 'ADDED', object: { apiVersion: `${RBAC}/v1`, kind: 'Role' } });
    expect(fromOld).toMatchObject({ type: 'ADDED', object: { apiVersion: `${RBAC}/v1beta1`, kind: 'Role' } });
  } finally {
    v1.close();
    old.close();
  }
});
