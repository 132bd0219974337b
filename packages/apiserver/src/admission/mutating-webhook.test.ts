import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import { runMutatingAdmission, type AdmissionAttributes } from './admission.js';
import { mutatingWebhookAdmission } from './mutating-webhook.js';
import { closeWebhookConnections } from './webhook-call.js';
import { WebhookSource } from './webhook-source.js';

// The mutating webhook plugin against a real HTTPS webhook in this process (its own CA, made by
// openssl): what a patch may change on create, and the second round of reinvocationPolicy IfNeeded.

/* eslint-disable @typescript-eslint/no-explicit-any */
const dir = mkdtempSync(join(tmpdir(), 'mutating-webhook-'));
const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
let server: Server;
let port = 0;
const calls: string[] = [];
const patch = (ops: unknown[]) => Buffer.from(JSON.stringify(ops)).toString('base64');

beforeAll(async () => {
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-subj', '/CN=hook', '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1');
  server = createServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: Record<string, any> };
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      calls.push(path);
      const labels = review.request['object']?.metadata?.labels ?? {};
      const ops =
        path === '/forge'
          ? [{ op: 'replace', path: '/metadata/uid', value: 'forged' }, { op: 'replace', path: '/metadata/creationTimestamp', value: '2000-01-01T00:00:00Z' }, { op: 'add', path: '/metadata/deletionTimestamp', value: '2000-01-01T00:00:00Z' }]
          : path === '/first'
            ? [{ op: 'add', path: '/metadata/labels/seen', value: labels.b ?? 'none' }]
            : [{ op: 'add', path: '/metadata/labels/b', value: 'yes' }];
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request['uid'], allowed: true, patchType: 'JSONPatch', patch: patch(ops) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  closeWebhookConnections();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const info = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as unknown as ResourceInfo;
const hook = (name: string, path: string, reinvocationPolicy = 'Never') => ({
  name: `${name}.example.com`,
  clientConfig: { url: `https://127.0.0.1:${port}${path}`, caBundle: readFileSync(join(dir, 'c.pem')).toString('base64') },
  rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  reinvocationPolicy,
});

function plugin(webhooks: unknown[]) {
  const source = new WebhookSource(() => { throw new Error('not started'); }, { apiDomain: 'k8s.io' });
  source.set(true, [{ metadata: { name: 'c' }, webhooks } as unknown as KubeObject]);
  return mutatingWebhookAdmission(source, { apiDomain: 'k8s.io', namespaceLabels: async () => ({}), resolveService: async () => { throw new Error('no services'); } });
}

const created = (): AdmissionAttributes => ({
  operation: 'CREATE',
  resource: info,
  subresource: '',
  namespace: 'default',
  name: 'cm',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', uid: 'server-uid', creationTimestamp: '2026-01-01T00:00:00Z', labels: {} } },
  dryRun: false,
});

test('on create, the uid, creation time and deletion fields stay the server’s', async () => {
  const a = created();
  await runMutatingAdmission([plugin([hook('forge', '/forge')])], a);
  expect(a.object!.metadata).toEqual({ name: 'cm', namespace: 'default', uid: 'server-uid', creationTimestamp: '2026-01-01T00:00:00Z', labels: {} });
});

test('IfNeeded: called again after a later webhook changed the object; Never: once', async () => {
  calls.length = 0;
  const again = created();
  await runMutatingAdmission([plugin([hook('first', '/first', 'IfNeeded'), hook('second', '/second')])], again);
  expect(calls).toEqual(['/first', '/second', '/first']);
  expect(again.object!.metadata.labels).toEqual({ seen: 'yes', b: 'yes' });
  calls.length = 0;
  const once = created();
  await runMutatingAdmission([plugin([hook('first', '/first'), hook('second', '/second')])], once);
  expect(calls).toEqual(['/first', '/second']);
  expect(once.object!.metadata.labels).toEqual({ seen: 'none', b: 'yes' });
});
