import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestServer } from '../support/test-server.js';

// The audit log against a real replica: stages, user, verb, objectRef, response codes and
// annotations for a create, a denied request, a watch and an impersonated request, at the
// RequestResponse and Metadata levels.
const dir = mkdtempSync(join(tmpdir(), 'audit-test-'));
const logPath = join(dir, 'audit.log');
const policyPath = join(dir, 'policy.yaml');
const tokenFile = join(dir, 'tokens.csv');
writeFileSync(tokenFile, 'bob-token,bob,u2\n');
writeFileSync(
  policyPath,
  [
    'apiVersion: audit.k8s.io/v1',
    'kind: Policy',
    'rules:',
    '- level: None',
    '  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]',
    '- level: None',
    '  users: ["system:apiserver"]',
    '- level: RequestResponse',
    '  resources: [{group: "", resources: ["configmaps"]}]',
    '- level: Metadata',
  ].join('\n'),
);
const ts = useTestServer([
  '--authorization-mode=RBAC',
  '--token-auth-file',
  tokenFile,
  '--audit-log-path',
  logPath,
  '--audit-policy-file',
  policyPath,
  '--controllers=-namespace,-csrsigning,-csrapproving,-csrcleaner',
]);

interface Event {
  level: string;
  stage: string;
  auditID: string;
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[] };
  impersonatedUser?: { username: string };
  objectRef?: Record<string, string>;
  responseStatus?: { code: number; reason?: string; message?: string };
  requestObject?: { metadata?: { name?: string } };
  responseObject?: { metadata?: { name?: string } };
  annotations?: Record<string, string>;
  sourceIPs: string[];
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}

async function eventsOf(auditID: string, stages: number): Promise<Event[]> {
  const start = Date.now();
  for (;;) {
    const events = readFileSync(logPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Event)
      .filter((e) => e.auditID === auditID);
    if (events.length >= stages) return events;
    if (Date.now() - start > 5000) throw new Error(`only ${events.length} events for ${auditID}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a create at RequestResponse: both stages, user, objectRef, objects, decision', async () => {
  const r = await ts().request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'audited' }, data: { k: 'v' } } });
  expect(r.status).toBe(201);
  const id = String(r.headers['audit-id']);
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  const [received, complete] = await eventsOf(id, 2);
  expect(received).toMatchObject({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', stage: 'RequestReceived', verb: 'create' });
  expect(received!.responseStatus).toBeUndefined();
  expect(complete).toMatchObject({
    stage: 'ResponseComplete',
    verb: 'create',
    requestURI: '/api/v1/namespaces/default/configmaps',
    user: { username: 'admin' },
    objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1', apiGroup: '' },
    responseStatus: { code: 201 },
    requestObject: { metadata: { name: 'audited' } },
    responseObject: { metadata: { name: 'audited' } },
    annotations: { 'authorization.k8s.io/decision': 'allow' },
  });
  expect(complete!.sourceIPs).toEqual([expect.stringMatching(/127\.0\.0\.1/)]);
  expect(complete!.stageTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
});

// Security review: objectRef.name of a create comes from the body, even at Metadata level (upstream's
// LogRequestObject), and no error message in an event quotes a Secret's value.
test('a create at Metadata level names its object in objectRef; a cluster-scoped one too', async () => {
  const r = await ts().request('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'audited-secret' }, stringData: { k: 'v' } } });
  expect(r.status).toBe(201);
  const [received, complete] = await eventsOf(String(r.headers['audit-id']), 2);
  expect(received!.objectRef).toEqual({ resource: 'secrets', namespace: 'default', apiGroup: '', apiVersion: 'v1' });
  expect(complete).toMatchObject({ level: 'Metadata', stage: 'ResponseComplete', objectRef: { resource: 'secrets', namespace: 'default', name: 'audited-secret' } });
  expect(complete!.requestObject).toBeUndefined();
  const ns = await ts().request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'audited-ns' } } });
  expect(ns.status).toBe(201);
  const nsEvents = await eventsOf(String(ns.headers['audit-id']), 2);
  expect(nsEvents[1]!.objectRef).toMatchObject({ resource: 'namespaces', name: 'audited-ns' });
  expect(nsEvents[1]!.objectRef!['namespace']).toBeUndefined();
});

test('a refused docker config Secret: neither the answer nor its event quote the value', async () => {
  const value = Buffer.from('hunter2-registry-password').toString('base64');
  const r = await ts().request('POST', '/api/v1/namespaces/default/secrets', {
    body: { metadata: { name: 'bad-docker' }, type: 'k8s.io/dockerconfigjson', data: { '.dockerconfigjson': value } },
  });
  expect(r.status).toBe(422);
  expect(r.text).not.toContain('hunter2');
  expect(r.json.message).toContain('invalid character \'h\' looking for beginning of value');
  const complete = (await eventsOf(String(r.headers['audit-id']), 2))[1]!;
  expect(complete.responseStatus).toMatchObject({ code: 422 });
  expect(complete.objectRef).toMatchObject({ name: 'bad-docker' });
  expect(JSON.stringify(complete)).not.toContain('hunter2');
});

test('a denied request: 403 with the forbid decision', async () => {
  const r = await ts().request('GET', '/api/v1/namespaces/default/secrets', { token: 'bob-token', headers: { 'Audit-ID': 'client-chosen-id' } });
  expect(r.status).toBe(403);
  expect(r.headers['audit-id']).toBe('client-chosen-id');
  const events = await eventsOf('client-chosen-id', 2);
  const complete = events.find((e) => e.stage === 'ResponseComplete')!;
  expect(complete).toMatchObject({
    level: 'Metadata',
    verb: 'list',
    user: { username: 'bob' },
    objectRef: { resource: 'secrets', namespace: 'default' },
    responseStatus: { code: 403, reason: 'Forbidden' },
    annotations: { 'authorization.k8s.io/decision': 'forbid' },
  });
  expect(complete.requestObject).toBeUndefined();
});

test('a watch: RequestReceived, ResponseStarted and ResponseComplete', async () => {
  const r = await ts().request('GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1');
  expect(r.status).toBe(200);
  const events = await eventsOf(String(r.headers['audit-id']), 3);
  expect(events.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
  expect(events[1]).toMatchObject({ verb: 'watch', responseStatus: { code: 200 } });
  expect(events[2]!.responseObject).toBeUndefined();
});

test('an impersonated request names both users', async () => {
  const r = await ts().request('GET', '/api/v1/namespaces', { headers: { 'Impersonate-User': 'jane' } });
  expect(r.status).toBe(403);
  const complete = (await eventsOf(String(r.headers['audit-id']), 2)).find((e) => e.stage === 'ResponseComplete')!;
  expect(complete).toMatchObject({
    user: { username: 'admin' },
    impersonatedUser: { username: 'jane' },
    verb: 'list',
    responseStatus: { code: 403 },
    annotations: { 'authorization.k8s.io/decision': 'forbid' },
  });
});

test('requests the policy puts at None are not logged but still get an Audit-ID', async () => {
  const r = await ts().request('GET', '/healthz');
  expect(r.status).toBe(200);
  const id = String(r.headers['audit-id']);
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  await new Promise((res) => setTimeout(res, 200));
  expect(readFileSync(logPath, 'utf8')).not.toContain(id);
});
