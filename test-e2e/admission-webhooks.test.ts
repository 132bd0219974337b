import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { decodeProtobufObject, encodeProtobufObject, type KubeObject } from '../packages/apimachinery/src/index.js';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';
import { hostAddress } from './support/host-address.js';

// Dynamic admission webhooks end to end (issue 28): a real HTTPS webhook server in this process,
// with its own CA made here by openssl, answering AdmissionReviews for ConfigMaps. Each case has
// its own configuration, told apart by an objectSelector on the label `case`.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Review = { apiVersion: string; request: Record<string, any>; path: string; serverName: string | false };

// The webhook listens on a non-loopback address of this host: the `svc` case reaches it through
// Endpoints, which refuse loopback addresses as upstream's do.
const HOST = hostAddress();
const dir = mkdtempSync(join(tmpdir(), 'webhooks-e2e-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=webhook-test-ca', '-days', '2');
ssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'hook.key', '-out', 'hook.csr', '-subj', '/CN=hook',
  '-addext', `subjectAltName=IP:${HOST},DNS:hook.webhooks.svc`);
ssl('x509', '-req', '-in', 'hook.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '7', '-out', 'hook.crt', '-days', '1', '-copy_extensions', 'copy');
const caBundle = readFileSync(join(dir, 'ca.crt')).toString('base64');
ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'other.key', '-out', 'other.crt', '-subj', '/CN=other-ca', '-days', '2');
const otherCaBundle = readFileSync(join(dir, 'other.crt')).toString('base64');

const reviews: Review[] = [];
const sleeps: Array<NodeJS.Timeout> = [];
let hook: Server;
let hookPort = 0;
let closedPort = 0;
let server: ServerProcess;
let client: KubeconfigClient;

/** Answers in the AdmissionReview version asked in. */
function answer(res: import('node:http').ServerResponse, apiVersion: string, uid: string, response: Record<string, unknown>): void {
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ apiVersion, kind: 'AdmissionReview', response: { uid, ...response } }));
}

function startHook(): Promise<void> {
  hook = createServer({ key: readFileSync(join(dir, 'hook.key')), cert: readFileSync(join(dir, 'hook.crt')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: Record<string, any> };
      const url = new URL(req.url ?? '/', 'https://x');
      const r = review.request;
      reviews.push({ apiVersion: review.apiVersion, request: r, path: `${url.pathname}${url.search}`, serverName: (req.socket as TLSSocket).servername });
      const labels = (r['object'] ?? r['oldObject'])?.metadata?.labels ?? {};
      switch (url.pathname) {
        case '/validate':
          if (labels.deny === 'yes') return answer(res, review.apiVersion, r['uid'], { allowed: false, status: { code: 403, message: 'no ConfigMaps with deny=yes' } });
          return answer(res, review.apiVersion, r['uid'], { allowed: true, warnings: [`careful with ${r['name']}`] });
        case '/mutate': {
          const data = { ...(r['object']?.data ?? {}), added: 'by-webhook' };
          const patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/data', value: data }])).toString('base64');
          return answer(res, review.apiVersion, r['uid'], { allowed: true, patchType: 'JSONPatch', patch });
        }
        case '/rename': {
          const patch = Buffer.from(JSON.stringify([{ op: 'replace', path: '/metadata/name', value: 'elsewhere' }])).toString('base64');
          return answer(res, review.apiVersion, r['uid'], { allowed: true, patchType: 'JSONPatch', patch });
        }
        case '/slow':
          sleeps.push(setTimeout(() => answer(res, review.apiVersion, r['uid'], { allowed: true }), 5000));
          return;
        case '/garbage':
          res.end('not a review');
          return;
        default:
          return answer(res, review.apiVersion, r['uid'], { allowed: true });
      }
    });
  });
  return new Promise((resolve) => hook.listen(0, HOST, () => resolve()));
}

/** A port nothing listens on (bound, then closed). */
async function freeClosedPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const webhook = (name: string, caseLabel: string, clientConfig: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: `${name}.webhooks.test`,
  clientConfig: { caBundle, ...clientConfig },
  rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  objectSelector: { matchLabels: { case: caseLabel } },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
const url = (path: string) => ({ url: `https://${HOST}:${hookPort}${path}` });
const configMap = (name: string, caseLabel: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels: { case: caseLabel, ...((extra['labels'] as object) ?? {}) } },
  data: { k: 'v', ...((extra['data'] as object) ?? {}) },
});
const CM = '/api/v1/namespaces/default/configmaps';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const reviewsFor = (name: string) => reviews.filter((r) => r.request['name'] === name);

/** Retries until `check` passes: a configuration applies once this replica's watch has seen it. */
async function eventually(check: () => Promise<void>, tries = 50): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await check();
    } catch (e) {
      if (i >= tries) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

beforeAll(async () => {
  await startHook();
  hookPort = (hook.address() as AddressInfo).port;
  closedPort = await freeClosedPort();
  server = await startServerProcess(['--controllers=-namespace']);
  client = new KubeconfigClient(server.kubeconfig);
  const created = [
    await client.call('POST', VWC, {
      metadata: { name: 'a-validate' },
      webhooks: [
        webhook('deny', 'deny', url('/validate')),
        webhook('record', 'record', url('/record'), { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }),
        webhook('ignore', 'ignore', { url: `https://127.0.0.1:${closedPort}/` }, { failurePolicy: 'Ignore' }),
        webhook('fail', 'fail', { url: `https://127.0.0.1:${closedPort}/` }),
        webhook('garbage', 'garbage', url('/garbage')),
        webhook('slow', 'slow', url('/slow'), { timeoutSeconds: 1 }),
        webhook('svc', 'svc', { service: { namespace: 'webhooks', name: 'hook', path: '/record' } }),
        webhook('wrongca', 'wrongca', { ...url('/record'), caBundle: otherCaBundle }),
        webhook('ns', 'ns', url('/record'), { namespaceSelector: { matchLabels: { team: 'a' } } }),
        webhook('beta', 'beta', url('/record'), { admissionReviewVersions: ['v1beta1', 'v1'] }),
      ],
    }),
    await client.call('POST', MWC, { metadata: { name: 'mutate' }, webhooks: [webhook('mutate', 'mutate', url('/mutate')), webhook('rename', 'rename', url('/rename'))] }),
    await client.call('POST', '/api/v1/namespaces', { metadata: { name: 'webhooks', labels: { team: 'a' } } }),
    await client.call('POST', '/api/v1/namespaces/webhooks/services', { metadata: { name: 'hook' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } }),
    await client.call('POST', '/api/v1/namespaces/webhooks/endpoints', {
      metadata: { name: 'hook' },
      subsets: [{ addresses: [{ ip: HOST }], ports: [{ name: 'https', port: hookPort }] }],
    }),
  ];
  for (const c of created) if (c.status !== 201) throw new Error(`set-up failed: ${JSON.stringify(c.json)}`);
  // Both configurations are in force once dry-run probes (which store nothing) reach the webhooks.
  await eventually(async () => {
    await client.call('POST', `${CM}?dryRun=All`, configMap('probe', 'record'));
    expect(reviewsFor('probe').length).toBeGreaterThan(0);
    expect((await client.call('POST', `${CM}?dryRun=All`, configMap('probe', 'mutate'))).json.data.added).toBe('by-webhook');
  });
}, 90_000);

afterAll(async () => {
  for (const t of sleeps) clearTimeout(t);
  client?.close();
  await server?.stop();
  hook?.closeAllConnections();
  await new Promise<void>((resolve) => (hook ? hook.close(() => resolve()) : resolve()));
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

test('a configuration is defaulted as upstream and a bad one is 422 naming the fields', async () => {
  const got = await client.call('GET', `${MWC}/mutate`);
  expect(got.json.webhooks[0]).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, namespaceSelector: {}, reinvocationPolicy: 'Never', rules: [{ scope: '*' }] });
  const bad = await client.call('POST', VWC, {
    metadata: { name: 'bad' },
    webhooks: [{ name: 'bad', clientConfig: { url: 'http://u:p@example.com/?q=1' }, sideEffects: 'Some', admissionReviewVersions: ['v9'], timeoutSeconds: 40 }],
  });
  expect(bad.status).toBe(422);
  expect(bad.json.reason).toBe('Invalid');
  expect(bad.json.details.causes.map((c: { field: string }) => c.field).sort()).toEqual(
    expect.arrayContaining(['webhooks[0].name', 'webhooks[0].sideEffects', 'webhooks[0].timeoutSeconds', 'webhooks[0].admissionReviewVersions', 'webhooks[0].clientConfig.url']),
  );
  expect((await client.call('GET', `${VWC}/bad`)).status).toBe(404);
  const k = await kubectl(server, ['get', 'mutatingwebhookconfigurations,validatingwebhookconfigurations']);
  expect(k.stderr).toBe('');
  expect(k.stdout).toMatch(/NAME\s+WEBHOOKS\s+AGE/);
  expect(k.stdout).toMatch(/a-validate\s+10\s/);
  expect((await kubectl(server, ['get', 'api-extensions', '-o', 'name'])).stdout).toContain('mutatingwebhookconfiguration.admissionregistration.k8s.io/mutate');
});

test('a denial answers with the webhook code and message and stores nothing (kubectl too)', async () => {
  const r = await client.call('POST', CM, configMap('denied', 'deny', { labels: { deny: 'yes' } }));
  expect(r.status).toBe(403);
  expect(r.json.message).toBe('admission webhook "deny.webhooks.test" denied the request: no ConfigMaps with deny=yes');
  expect((await client.call('GET', `${CM}/denied`)).status).toBe(404);
  const file = join(dir, 'denied.yaml');
  writeFileSync(file, JSON.stringify(configMap('denied-kubectl', 'deny', { labels: { deny: 'yes' } })));
  const k = await kubectl(server, ['apply', '-f', file]);
  expect(k.code).not.toBe(0);
  expect(k.stderr).toContain('admission webhook "deny.webhooks.test" denied the request: no ConfigMaps with deny=yes');
  expect((await client.call('GET', `${CM}/denied-kubectl`)).status).toBe(404);
});

test('warnings of a webhook reach kubectl as Warning headers', async () => {
  const file = join(dir, 'warned.yaml');
  writeFileSync(file, JSON.stringify(configMap('warned', 'deny')));
  const k = await kubectl(server, ['apply', '-f', file]);
  expect(k.code).toBe(0);
  expect(k.stderr).toContain('Warning: careful with warned');
  // Every write path hands the request's warnings to admission: a patch, an update and a delete too.
  const label = await kubectl(server, ['label', 'configmap', 'warned', 'extra=1']);
  expect(label.code).toBe(0);
  expect(label.stderr).toContain('Warning: careful with warned');
  const cur = await client.call('GET', `${CM}/warned`);
  const replaced = join(dir, 'warned-replaced.yaml');
  writeFileSync(replaced, JSON.stringify({ ...cur.json, data: { k: 'v2' } }));
  const replace = await kubectl(server, ['replace', '-f', replaced]);
  expect(replace.code).toBe(0);
  expect(replace.stderr).toContain('Warning: careful with warned');
  const del = await kubectl(server, ['delete', 'configmap', 'warned']);
  expect(del.code).toBe(0);
  expect(del.stderr).toContain('Warning: careful with warned');
});

test('the AdmissionReview carries the request, and ?timeout=<n>s is on the URL', async () => {
  expect((await client.call('POST', CM, configMap('recorded', 'record'))).status).toBe(201);
  const [create] = reviewsFor('recorded');
  expect(create!.path).toBe('/record?timeout=10s');
  expect(create!.apiVersion).toBe('admission.k8s.io/v1');
  expect(create!.request).toMatchObject({
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
    name: 'recorded',
    namespace: 'default',
    operation: 'CREATE',
    dryRun: false,
    object: { metadata: { name: 'recorded' }, data: { k: 'v' } },
    oldObject: null,
    options: { kind: 'CreateOptions' },
  });
  expect(create!.request['userInfo'].username).toBeTruthy();
});

test('UPDATE and DELETE carry oldObject', async () => {
  const cur = await client.call('GET', `${CM}/recorded`);
  const upd = await client.call('PUT', `${CM}/recorded`, { ...cur.json, data: { k: 'v2' } });
  expect(upd.status).toBe(200);
  const update = reviewsFor('recorded').find((r) => r.request['operation'] === 'UPDATE')!;
  expect(update.request['object'].data).toEqual({ k: 'v2' });
  expect(update.request['oldObject'].data).toEqual({ k: 'v' });
  expect((await client.call('DELETE', `${CM}/recorded`)).status).toBe(200);
  const del = reviewsFor('recorded').find((r) => r.request['operation'] === 'DELETE')!;
  expect(del.request['oldObject'].data).toEqual({ k: 'v2' });
  expect(del.request['object']).toBeNull();
  expect(del.request['options'].kind).toBe('DeleteOptions');
});

test('a dry-run request reaches the webhook with dryRun true and stores nothing', async () => {
  const r = await client.call('POST', `${CM}?dryRun=All`, configMap('dry', 'record'));
  expect(r.status).toBe(201);
  const review = reviewsFor('dry')[0]!;
  expect(review.request['dryRun']).toBe(true);
  expect((await client.call('GET', `${CM}/dry`)).status).toBe(404);
});

test('a mutating webhook JSONPatch is stored, on create and update', async () => {
  const r = await client.call('POST', CM, configMap('mutated', 'mutate'));
  expect(r.status).toBe(201);
  expect(r.json.data).toEqual({ k: 'v', added: 'by-webhook' });
  expect((await client.call('GET', `${CM}/mutated`)).json.data).toEqual({ k: 'v', added: 'by-webhook' });
  const cur = await client.call('GET', `${CM}/mutated`);
  const upd = await client.call('PUT', `${CM}/mutated`, { ...cur.json, data: { only: 'this' } });
  expect(upd.json.data).toEqual({ only: 'this', added: 'by-webhook' });
});

test('a patch that renames the object is refused and stores nothing', async () => {
  const r = await client.call('POST', CM, configMap('renamed', 'rename'));
  expect(r.status).toBe(500);
  expect(r.json.message).toContain('failed calling webhook "rename.webhooks.test"');
  expect((await client.call('GET', `${CM}/renamed`)).status).toBe(404);
  expect((await client.call('GET', `${CM}/elsewhere`)).status).toBe(404);
});

test('an unreachable webhook: failurePolicy Ignore admits, Fail answers 500', async () => {
  expect((await client.call('POST', CM, configMap('ignored', 'ignore'))).status).toBe(201);
  const failed = await client.call('POST', CM, configMap('failed', 'fail'));
  expect(failed.status).toBe(500);
  expect(failed.json.message).toContain('failed calling webhook "fail.webhooks.test"');
  expect((await client.call('GET', `${CM}/failed`)).status).toBe(404);
  const garbage = await client.call('POST', CM, configMap('garbage', 'garbage'));
  expect(garbage.status).toBe(500);
  expect(garbage.json.message).toContain('failed calling webhook "garbage.webhooks.test"');
});

test('a slow webhook is bounded by timeoutSeconds', async () => {
  const started = Date.now();
  const r = await client.call('POST', CM, configMap('slowpoke', 'slow'));
  const took = Date.now() - started;
  expect(r.status).toBe(500);
  expect(r.json.message).toContain('failed calling webhook "slow.webhooks.test"');
  expect(took).toBeLessThan(4000);
  expect(reviewsFor('slowpoke')[0]!.path).toBe('/slow?timeout=1s');
});

test('objectSelector: objects without the label are not sent', async () => {
  const before = reviews.length;
  expect((await client.call('POST', CM, configMap('other', 'none'))).status).toBe(201);
  expect(reviews.length).toBe(before);
});

test('a webhook behind a Service is reached through its Endpoints with the service TLS name', async () => {
  expect((await client.call('POST', CM, configMap('via-service', 'svc'))).status).toBe(201);
  const [r] = reviewsFor('via-service');
  expect(r!.path).toBe('/record?timeout=10s');
  expect(r!.serverName).toBe('hook.webhooks.svc');
});

test('a webhook whose certificate the caBundle does not verify is a failed call (nothing is sent)', async () => {
  const r = await client.call('POST', CM, configMap('untrusted', 'wrongca'));
  expect(r.status).toBe(500);
  expect(r.json.message).toContain('failed calling webhook "wrongca.webhooks.test"');
  expect(reviewsFor('untrusted')).toEqual([]);
  expect((await client.call('GET', `${CM}/untrusted`)).status).toBe(404);
});

test('namespaceSelector matches the labels of the object namespace', async () => {
  expect((await client.call('POST', CM, configMap('ns-default', 'ns'))).status).toBe(201);
  expect(reviewsFor('ns-default')).toEqual([]);
  expect((await client.call('POST', '/api/v1/namespaces/webhooks/configmaps', configMap('ns-team', 'ns'))).status).toBe(201);
  expect(reviewsFor('ns-team').map((r) => r.request['namespace'])).toEqual(['webhooks']);
});

test('webhook configurations themselves are never sent to webhooks', async () => {
  const before = reviews.length;
  const r = await client.call('POST', VWC, {
    metadata: { name: 'z-everything', labels: { case: 'record' } },
    webhooks: [webhook('all', 'record', url('/record'), { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] })],
  });
  expect(r.status).toBe(201);
  // In force once a dry-run ConfigMap reaches both the `record` webhook and this catch-all one.
  await eventually(async () => {
    await client.call('POST', `${CM}?dryRun=All`, configMap('probe-all', 'record'));
    expect(new Set(reviewsFor('probe-all').map((x) => x.request['uid'])).size).toBeGreaterThanOrEqual(2);
  });
  const cur = await client.call('GET', `${VWC}/z-everything`);
  expect((await client.call('PUT', `${VWC}/z-everything`, cur.json)).status).toBe(200);
  expect((await client.call('DELETE', `${VWC}/z-everything`)).status).toBe(200);
  expect(reviews.slice(before).filter((x) => x.request['resource'].resource.endsWith('webhookconfigurations'))).toEqual([]);
});

test('the first AdmissionReview version the webhook lists is sent', async () => {
  expect((await client.call('POST', CM, configMap('beta', 'beta'))).status).toBe(201);
  expect(reviewsFor('beta').map((r) => r.apiVersion)).toEqual(['admission.k8s.io/v1beta1']);
});

test('webhook calls are counted in the admission webhook metrics', async () => {
  const reply = await client.raw('GET', '/metrics', {});
  const text = reply.body.toString('utf8');
  expect(text).toMatch(/apiserver_admission_webhook_rejection_count\{[^}]*name="deny.webhooks.test"[^}]*\} [1-9]/);
  expect(text).toMatch(/apiserver_admission_webhook_admission_duration_seconds_count\{[^}]*name="mutate.webhooks.test"[^}]*\} [1-9]/);
});

test('Protobuf clients (client-go) create and read a configuration', async () => {
  const PB = 'application/vnd.kubernetes.protobuf';
  const obj = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'from-protobuf' },
    webhooks: [webhook('pb', 'pb', url('/record'))],
  } as unknown as KubeObject;
  const created = await client.raw('POST', VWC, { Accept: PB, 'Content-Type': PB }, encodeProtobufObject(obj));
  expect(created.status).toBe(201);
  const back = decodeProtobufObject((await client.raw('GET', `${VWC}/from-protobuf`, { Accept: PB })).body) as KubeObject & { webhooks: any[] };
  expect(back.webhooks[0]).toMatchObject({ name: 'pb.webhooks.test', failurePolicy: 'Fail', timeoutSeconds: 10, sideEffects: 'None', clientConfig: { caBundle } });
});
