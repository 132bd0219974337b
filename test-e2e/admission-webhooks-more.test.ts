import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';
import { jsonPatch, startWebhookServer, type ReceivedReview, type WebhookServer } from './support/webhook-server.js';

// Dynamic admission (issue 28), the rest of the Done-when list: a webhook on a custom resource
// registered for another version of it (matchPolicy Equivalent: the object converted, requestKind
// kept), one on the CR's scale subresource (sees and patches a Scale), reinvocationPolicy
// IfNeeded, a patched object decoded against the schema again, audit annotations in the audit
// log, credentials from --admission-control-config-file, kept-alive connections, every kind of
// garbage answer, and admissionregistration/v1beta1 behind --runtime-config.

/* eslint-disable @typescript-eslint/no-explicit-any */
const dir = mkdtempSync(join(tmpdir(), 'webhooks-more-'));
const auditLog = join(dir, 'audit.log');
let hook: WebhookServer;
let server: ServerProcess;
let client: KubeconfigClient;

const GARBAGE: Record<string, (r: ReceivedReview) => Record<string, unknown> | string> = {
  'not-json': () => '{"apiVersion":',
  'wrong-uid': () => ({ uid: 'someone-else', allowed: true }),
  'no-allowed': () => ({ patchType: 'JSONPatch' }),
  'wrong-version': (r) => JSON.stringify({ apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview', response: { uid: r.request['uid'], allowed: true } }),
  'response-array': (r) => JSON.stringify({ apiVersion: r.apiVersion, kind: 'AdmissionReview', response: [] }),
  'patch-not-base64': () => ({ allowed: true, patchType: 'JSONPatch', patch: '!!not base64' }),
  'patch-not-json': () => ({ allowed: true, patchType: 'JSONPatch', patch: 'bm90IGpzb24=' }),
  'patch-type': () => ({ allowed: true, patchType: 'MergePatch', patch: jsonPatch([]) }),
  'patch-bad-op': () => ({ allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'frobnicate', path: '/x' }]) }),
};

function handler(path: string) {
  return (r: ReceivedReview, res: import('node:http').ServerResponse): Record<string, unknown> | string | undefined => {
    const obj = r.request['object'];
    const labels = obj?.metadata?.labels ?? {};
    switch (path) {
      case '/cr-mutate':
        return { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'add', path: '/spec/size', value: `patched-as-${obj.apiVersion}` }, { op: 'add', path: '/spec/bogus', value: 'x' }]) };
      case '/cr-badtype':
        return { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'replace', path: '/spec/replicas', value: 'three' }]) };
      case '/scale-cap':
        return obj?.spec?.replicas > 5 ? { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'replace', path: '/spec/replicas', value: 5 }]), warnings: ['capped at 5'] } : { allowed: true };
      case '/first':
        return { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'add', path: '/metadata/labels/seen-b', value: labels.b ?? 'none' }]) };
      case '/second':
        return { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'add', path: '/metadata/labels/b', value: 'yes' }]) };
      case '/ev':
        return { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'replace', path: '/note', value: `seen as ${obj.apiVersion} regarding ${obj.regarding?.name}` }]) };
      case '/sneak':
        return r.request['subResource'] === 'status'
          ? { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'add', path: '/spec/size', value: 'sneaky' }]) }
          : { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'add', path: '/status', value: { replicas: 42 } }, { op: 'add', path: '/spec/size', value: 'from-webhook' }]) };
      case '/forge':
        return {
          allowed: true,
          patchType: 'JSONPatch',
          patch: jsonPatch([
            { op: 'replace', path: '/metadata/uid', value: 'forged-uid' },
            { op: 'replace', path: '/metadata/creationTimestamp', value: '2000-01-01T00:00:00Z' },
            { op: 'add', path: '/metadata/deletionTimestamp', value: '2000-01-01T00:00:00Z' },
            { op: 'add', path: '/metadata/annotations', value: { forged: 'tried' } },
          ]),
          warnings: ['x'.repeat(300), ...Array.from({ length: 30 }, (_, i) => `${i}`.padEnd(200, '.'))],
        };
      case '/audit':
        return { allowed: true, auditAnnotations: { decision: 'fine', 'not/qualified': 'dropped' }, warnings: ['audited'] };
      case '/garbage':
        // Strings go out as they are; objects as the review's response (their uid wins).
        return GARBAGE[labels.variant]!(r);
      case '/status-500':
        res.statusCode = 500;
        res.end('boom');
        return undefined;
      default:
        return { allowed: true };
    }
  };
}

const CM = '/api/v1/namespaces/default/configmaps';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const WIDGETS = (v: string) => `/apis/example.com/${v}/namespaces/default/widgets`;
const configMapRule = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];

const webhook = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
  name: `${name}.webhooks.test`,
  clientConfig: { url: hook.url(path), caBundle: hook.caBundle },
  rules: configMapRule,
  objectSelector: { matchLabels: { case: name } },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
const configMap = (name: string, caseLabel: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels: { case: caseLabel, ...labels } },
  data: { k: 'v' },
});
const widget = (name: string, apiVersion: string, caseLabel: string) => ({
  apiVersion,
  kind: 'Widget',
  metadata: { name, labels: { case: caseLabel } },
  spec: { replicas: 1 },
});
const reviewsFor = (name: string) => hook.reviews.filter((r) => (r.request['name'] as string) === name);

async function eventually(check: () => Promise<void>, tries = 60): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await check();
    } catch (e) {
      if (i >= tries) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const versionSchema = {
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { replicas: { type: 'integer' }, size: { type: 'string' } } },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
    },
  },
};
const subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } };

beforeAll(async () => {
  hook = await startWebhookServer(handler);
  const kubeconfig = join(dir, 'webhook-kubeconfig.yaml');
  writeFileSync(kubeconfig, JSON.stringify({ apiVersion: 'v1', kind: 'Config', users: [{ name: `127.0.0.1:${hook.port}`, user: { token: 's3cret-for-webhooks' } }] }));
  const admissionConfig = join(dir, 'admission.yaml');
  writeFileSync(
    admissionConfig,
    [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: AdmissionConfiguration',
      'plugins:',
      '- name: ValidatingAdmissionWebhook',
      '  configuration:',
      '    apiVersion: apiserver.config.k8s.io/v1',
      '    kind: WebhookAdmissionConfiguration',
      `    kubeConfigFile: ${kubeconfig}`,
      '- name: MutatingAdmissionWebhook',
      '  path: mutating.yaml',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'mutating.yaml'), `apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nkubeConfigFile: ${kubeconfig}\n`);
  const policy = join(dir, 'policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "", resources: [configmaps]}]\n');
  server = await startServerProcess([
    '--controllers=-namespace',
    '--runtime-config=admissionregistration.k8s.io/v1beta1=true',
    `--admission-control-config-file=${admissionConfig}`,
    `--audit-log-path=${auditLog}`,
    `--audit-policy-file=${policy}`,
  ]);
  client = new KubeconfigClient(server.kubeconfig);
  const crd = await client.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: versionSchema, subresources },
        { name: 'v2', served: true, storage: false, schema: versionSchema, subresources },
      ],
    },
  });
  expect(crd.status).toBe(201);
  const crRule = (versions: string[], resources = ['widgets']) => [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['example.com'], apiVersions: versions, resources }];
  const created = [
    await client.call('POST', MWC, {
      metadata: { name: 'm-cr' },
      webhooks: [
        webhook('cr', '/cr-mutate', { rules: crRule(['v1']) }),
        webhook('cr-exact', '/record', { rules: crRule(['v1']), matchPolicy: 'Exact', objectSelector: { matchLabels: { case: 'cr' } } }),
        webhook('cr-badtype', '/cr-badtype', { rules: crRule(['v1']) }),
        webhook('sneak', '/sneak', { rules: [{ operations: ['UPDATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets', 'widgets/status'] }] }),
        webhook('scale', '/scale-cap', { rules: crRule(['*'], ['widgets/scale']), objectSelector: {} }),
      ],
    }),
    await client.call('POST', MWC, {
      metadata: { name: 'm-reinvoke' },
      webhooks: [
        webhook('first', '/first', { reinvocationPolicy: 'IfNeeded', objectSelector: { matchLabels: { case: 'reinvoke' } } }),
        webhook('never', '/first', { objectSelector: { matchLabels: { case: 'never' } } }),
        webhook('second', '/second', { objectSelector: { matchExpressions: [{ key: 'case', operator: 'In', values: ['reinvoke', 'never'] }] } }),
        webhook('forge', '/forge'),
        webhook('ev', '/ev', { rules: [{ operations: ['CREATE'], apiGroups: ['events.k8s.io'], apiVersions: ['v1'], resources: ['events'] }] }),
        webhook('m-garbage-fail', '/garbage', { objectSelector: { matchLabels: { case: 'm-garbage-fail' } } }),
        webhook('m-garbage-ignore', '/garbage', { failurePolicy: 'Ignore', objectSelector: { matchLabels: { case: 'm-garbage-ignore' } } }),
      ],
    }),
    await client.call('POST', '/apis/admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations', {
      metadata: { name: 'v-beta' },
      webhooks: [{ name: 'beta.webhooks.test', clientConfig: { url: hook.url('/record'), caBundle: hook.caBundle }, rules: configMapRule, objectSelector: { matchLabels: { case: 'beta' } } }],
    }),
    await client.call('POST', VWC, {
      metadata: { name: 'v-extra' },
      webhooks: [
        webhook('audit', '/audit'),
        webhook('garbage-fail', '/garbage'),
        webhook('garbage-ignore', '/garbage', { failurePolicy: 'Ignore' }),
        webhook('status-fail', '/status-500'),
      ],
    }),
  ];
  for (const c of created) if (c.status !== 201) throw new Error(`set-up failed: ${JSON.stringify(c.json)}`);
  await eventually(async () => {
    await client.call('POST', `${CM}?dryRun=All`, configMap('probe', 'audit'));
    expect(reviewsFor('probe').length).toBeGreaterThan(0);
    expect((await client.call('POST', `${CM}?dryRun=All`, configMap('probe-m', 'reinvoke'))).json.metadata.labels.b).toBe('yes');
    // The CRD's resource is served once its names are accepted.
    expect((await client.call('GET', WIDGETS('v2'))).status).toBe(200);
  });
}, 120_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  await hook?.close();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

test('a custom resource: the webhook registered for v1 sees a v2 request as v1 (matchPolicy Equivalent), its patch is stored and pruned', async () => {
  const r = await client.call('POST', WIDGETS('v2'), widget('w1', 'example.com/v2', 'cr'));
  expect(r.status).toBe(201);
  expect(r.json.apiVersion).toBe('example.com/v2');
  expect(r.json.spec).toEqual({ replicas: 1, size: 'patched-as-example.com/v1' });
  const seen = reviewsFor('w1');
  // The Exact webhook names only v1: it is not called for a v2 request.
  expect(seen.map((x) => x.path)).toEqual(['/cr-mutate?timeout=10s']);
  expect(seen[0]!.request).toMatchObject({
    kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
    resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
    requestKind: { group: 'example.com', version: 'v2', kind: 'Widget' },
    requestResource: { group: 'example.com', version: 'v2', resource: 'widgets' },
    object: { apiVersion: 'example.com/v1', kind: 'Widget' },
  });
  const stored = await client.call('GET', `${WIDGETS('v1')}/w1`);
  expect(stored.json.spec).toEqual({ replicas: 1, size: 'patched-as-example.com/v1' });
  // Through v1 both webhooks match exactly.
  expect((await client.call('POST', WIDGETS('v1'), widget('w1b', 'example.com/v1', 'cr'))).status).toBe(201);
  expect(reviewsFor('w1b').map((x) => x.path).sort()).toEqual(['/cr-mutate?timeout=10s', '/record?timeout=10s']);
  expect(reviewsFor('w1b')[0]!.request['requestKind'].version).toBe('v1');
});

test('matchPolicy Equivalent across groups: a webhook for events.k8s.io/v1 events gets a core Event converted', async () => {
  const r = await client.call('POST', '/api/v1/namespaces/default/events', {
    metadata: { name: 'ev1', labels: { case: 'ev' } },
    involvedObject: { kind: 'ConfigMap', name: 'target', namespace: 'default' },
    reason: 'Tested',
    message: 'original',
    type: 'Normal',
  });
  expect(r.status).toBe(201);
  // The patch to `note` comes back as the core Event's `message`.
  expect(r.json.message).toBe('seen as events.k8s.io/v1 regarding target');
  const [review] = reviewsFor('ev1');
  expect(review!.request).toMatchObject({
    kind: { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
    requestKind: { group: '', version: 'v1', kind: 'Event' },
    requestResource: { group: '', version: 'v1', resource: 'events' },
    object: { apiVersion: 'events.k8s.io/v1', regarding: { name: 'target' }, note: 'original' },
  });
});

test('a patch that breaks the custom resource schema is refused and nothing is stored', async () => {
  const r = await client.call('POST', WIDGETS('v1'), widget('w-bad', 'example.com/v1', 'cr-badtype'));
  expect(r.status).toBe(422);
  expect(r.json.message).toContain('spec.replicas');
  expect((await client.call('GET', `${WIDGETS('v1')}/w-bad`)).status).toBe(404);
});

test('a webhook cannot change the status through the main resource, nor the spec through status (the strategy prepares after admission)', async () => {
  const created = await client.call('POST', WIDGETS('v1'), widget('w-sneak', 'example.com/v1', 'sneak'));
  expect(created.status).toBe(201);
  const updated = await client.call('PUT', `${WIDGETS('v1')}/w-sneak`, { ...created.json, spec: { replicas: 2 } });
  expect(updated.status).toBe(200);
  expect(updated.json.spec).toEqual({ replicas: 2, size: 'from-webhook' });
  expect(updated.json.status).toBeUndefined();
  const status = await client.call('PUT', `${WIDGETS('v1')}/w-sneak/status`, { ...updated.json, status: { replicas: 3 } });
  expect(status.status).toBe(200);
  expect(status.json.status).toEqual({ replicas: 3 });
  expect(status.json.spec).toEqual({ replicas: 2, size: 'from-webhook' });
  const stored = await client.call('GET', `${WIDGETS('v1')}/w-sneak`);
  expect(stored.json.spec).toEqual({ replicas: 2, size: 'from-webhook' });
  expect(stored.json.status).toEqual({ replicas: 3 });
  expect(reviewsFor('w-sneak').map((x) => x.request['subResource'] ?? '')).toEqual(['', 'status']);
});

test('a webhook on the scale subresource sees a Scale and its patch caps kubectl scale', async () => {
  expect((await client.call('POST', WIDGETS('v1'), widget('w-scale', 'example.com/v1', 'plain'))).status).toBe(201);
  const k = await kubectl(server, ['scale', 'widgets.example.com/w-scale', '--replicas=9']);
  expect(k.code).toBe(0);
  expect(k.stderr).toContain('Warning: capped at 5');
  expect((await client.call('GET', `${WIDGETS('v1')}/w-scale`)).json.spec.replicas).toBe(5);
  const review = reviewsFor('w-scale').find((x) => x.path.startsWith('/scale-cap'))!;
  expect(review.request).toMatchObject({
    kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    resource: { group: 'example.com', resource: 'widgets' },
    subResource: 'scale',
    operation: 'UPDATE',
    object: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 9 } },
    oldObject: { kind: 'Scale', spec: { replicas: 1 } },
  });
  // Within the cap the patch changes nothing.
  expect((await kubectl(server, ['scale', 'widgets.example.com/w-scale', '--replicas=3'])).code).toBe(0);
  expect((await client.call('GET', `${WIDGETS('v1')}/w-scale`)).json.spec.replicas).toBe(3);
});

test('reinvocationPolicy IfNeeded calls a webhook again after a later one changed the object; Never does not', async () => {
  const again = await client.call('POST', CM, configMap('reinvoked', 'reinvoke'));
  expect(again.status).toBe(201);
  expect(again.json.metadata.labels).toMatchObject({ b: 'yes', 'seen-b': 'yes' });
  expect(reviewsFor('reinvoked').map((x) => x.path.split('?')[0])).toEqual(['/first', '/second', '/first']);
  const once = await client.call('POST', CM, configMap('not-reinvoked', 'never'));
  expect(once.json.metadata.labels).toMatchObject({ b: 'yes', 'seen-b': 'none' });
  expect(reviewsFor('not-reinvoked').map((x) => x.path.split('?')[0])).toEqual(['/first', '/second']);
});

test('a mutating webhook cannot choose the uid or creation time of a created object (nor create it deleted)', async () => {
  const r = await client.call('POST', CM, configMap('forged', 'forge'));
  expect(r.status).toBe(201);
  expect(r.json.metadata.annotations).toEqual({ forged: 'tried' });
  expect(r.json.metadata.uid).not.toBe('forged-uid');
  expect(r.json.metadata.creationTimestamp).not.toBe('2000-01-01T00:00:00Z');
  expect(r.json.metadata.deletionTimestamp).toBeUndefined();
  const stored = await client.call('GET', `${CM}/forged`);
  expect(stored.json.metadata.uid).toBe(r.json.metadata.uid);
  expect(stored.json.metadata.deletionTimestamp).toBeUndefined();
  // Warnings are cut at 256 characters each, and past 4,096 in all the rest are dropped.
  const file = join(dir, 'forged.yaml');
  writeFileSync(file, JSON.stringify(configMap('forged-kubectl', 'forge')));
  const k = await kubectl(server, ['create', '-f', file]);
  const warnings = k.stderr.split('\n').filter((l) => l.startsWith('Warning: '));
  expect(warnings[0]).toBe(`Warning: ${'x'.repeat(256)}`);
  expect(warnings.length).toBeGreaterThan(10);
  expect(warnings.length).toBeLessThan(31);
});

test('audit annotations of webhooks reach the audit event; warnings the client', async () => {
  expect((await client.call('POST', CM, configMap('audited', 'audit'))).status).toBe(201);
  expect((await client.call('POST', CM, configMap('mutated-audited', 'reinvoke'))).status).toBe(201);
  expect((await client.call('POST', CM, configMap('failed-open', 'garbage-ignore', { variant: 'not-json' }))).status).toBe(201);
  await eventually(async () => {
    const events = readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as any);
    const audited = events.find((e) => e.stage === 'ResponseComplete' && e.objectRef?.name === 'audited' && e.verb === 'create');
    expect(audited?.annotations?.['audit.webhooks.test/decision']).toBe('fine');
    expect(Object.keys(audited.annotations).filter((k) => k.includes('not/qualified'))).toEqual([]);
    const mutated = events.find((e) => e.stage === 'ResponseComplete' && e.objectRef?.name === 'mutated-audited' && e.verb === 'create');
    expect(JSON.parse(mutated.annotations['mutation.webhook.admission.k8s.io/round_0_index_0'])).toEqual({ configuration: 'm-reinvoke', webhook: 'first.webhooks.test', mutated: true });
    expect(JSON.parse(mutated.annotations['mutation.webhook.admission.k8s.io/round_1_index_0'])).toMatchObject({ webhook: 'first.webhooks.test' });
    const failedOpen = events.find((e) => e.stage === 'ResponseComplete' && e.objectRef?.name === 'failed-open' && e.verb === 'create');
    expect(failedOpen.annotations['failed-open.validating.webhook.admission.k8s.io/round_0_index_0']).toBe('garbage-ignore.webhooks.test');
  });
  const file = join(dir, 'warned.yaml');
  writeFileSync(file, JSON.stringify(configMap('warned-audit', 'audit')));
  expect((await kubectl(server, ['create', '-f', file])).stderr).toContain('Warning: audited');
});

test('credentials of --admission-control-config-file are presented to the webhook host', async () => {
  expect((await client.call('POST', CM, configMap('with-token', 'audit'))).status).toBe(201);
  expect(reviewsFor('with-token')[0]!.headers['authorization']).toBe('Bearer s3cret-for-webhooks');
  expect((await client.call('POST', CM, configMap('with-token-m', 'reinvoke'))).status).toBe(201);
  expect(reviewsFor('with-token-m').every((x) => x.headers['authorization'] === 'Bearer s3cret-for-webhooks')).toBe(true);
});

test('connections to a webhook are kept open and reused', async () => {
  await client.call('POST', CM, configMap('warm-up', 'audit'));
  const before = hook.connections();
  for (let i = 0; i < 8; i++) expect((await client.call('POST', CM, configMap(`reuse-${i}`, 'audit'))).status).toBe(201);
  expect(reviewsFor('reuse-7')).toHaveLength(1);
  expect(hook.connections() - before).toBeLessThanOrEqual(1);
});

test('every garbage answer is a 500 under Fail and admitted under Ignore, mutating and validating', async () => {
  for (const variant of Object.keys(GARBAGE)) {
    for (const [caseLabel, ignore] of [['garbage-fail', false], ['garbage-ignore', true], ['m-garbage-fail', false], ['m-garbage-ignore', true]] as const) {
      const name = `${caseLabel}-${variant}`;
      const r = await client.call('POST', CM, configMap(name, caseLabel, { variant }));
      // A validating webhook's patch is never read (it must still be base64, as any review field
      // must decode); a mutating webhook's patch that decodes but does not apply is the server's
      // 500 whatever the failure policy, as upstream's.
      const mutating = caseLabel.startsWith('m-');
      const admitted = (ignore && !(mutating && (variant === 'patch-not-json' || variant === 'patch-bad-op'))) || (!mutating && variant.startsWith('patch-') && variant !== 'patch-not-base64');
      if (admitted) {
        expect({ name, status: r.status }).toEqual({ name, status: 201 });
      } else {
        expect({ name, status: r.status }).toEqual({ name, status: 500 });
        expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError' });
        expect(r.json.message).toContain(`webhook "${caseLabel}.webhooks.test"`);
        expect((await client.call('GET', `${CM}/${name}`)).status).toBe(404);
      }
    }
  }
  const status = await client.call('POST', CM, configMap('status-500', 'status-fail'));
  expect(status.status).toBe(500);
  expect(status.json.message).toContain('failed calling webhook "status-fail.webhooks.test"');
});

test('admissionregistration/v1beta1 behind --runtime-config: its own defaults, the same stored objects', async () => {
  const v1 = await client.call('GET', `${VWC}/v-beta`);
  expect(v1.status).toBe(200);
  expect(v1.json.webhooks[0]).toMatchObject({
    failurePolicy: 'Ignore',
    matchPolicy: 'Exact',
    timeoutSeconds: 30,
    sideEffects: 'Unknown',
    admissionReviewVersions: ['v1beta1'],
  });
  const k = await kubectl(server, ['get', 'validatingwebhookconfigurations.v1beta1.admissionregistration.k8s.io', 'v-beta', '-o', 'json']);
  expect(JSON.parse(k.stdout).apiVersion).toBe('admissionregistration.k8s.io/v1beta1');
  expect(k.stderr).toContain('admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration is deprecated');
  // Called with a v1beta1 AdmissionReview; a dry run cannot reach a webhook of unknown side effects.
  expect((await client.call('POST', CM, configMap('beta-call', 'beta'))).status).toBe(201);
  expect(reviewsFor('beta-call').map((x) => x.apiVersion)).toEqual(['admission.k8s.io/v1beta1']);
  const dry = await client.call('POST', `${CM}?dryRun=All`, configMap('beta-dry', 'beta'));
  expect(dry.status).toBe(400);
  expect(dry.json.message).toBe('admission webhook "beta.webhooks.test" does not support dry run');
  // v1 still refuses what v1beta1 allows, except what the stored object already had.
  const refused = await client.call('POST', VWC, { metadata: { name: 'v1-unknown' }, webhooks: [{ ...v1.json.webhooks[0], name: 'x.webhooks.test' }] });
  expect(refused.status).toBe(422);
  expect(refused.json.details.causes.map((c: { field: string }) => c.field).sort()).toEqual(['webhooks[0].sideEffects']);
  expect((await client.call('PUT', `${VWC}/v-beta`, v1.json)).status).toBe(200);
  // kubectl apply of a v1beta1 configuration: created, then patched.
  const file = join(dir, 'beta-mwc.yaml');
  const mwc = (timeoutSeconds: number) => ({
    apiVersion: 'admissionregistration.k8s.io/v1beta1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'm-beta-applied' },
    webhooks: [{ name: 'applied.webhooks.test', clientConfig: { url: hook.url('/record'), caBundle: hook.caBundle }, rules: configMapRule, objectSelector: { matchLabels: { case: 'applied' } }, timeoutSeconds }],
  });
  writeFileSync(file, JSON.stringify(mwc(5)));
  const first = await kubectl(server, ['apply', '-f', file]);
  expect(first.code).toBe(0);
  writeFileSync(file, JSON.stringify(mwc(7)));
  const second = await kubectl(server, ['apply', '-f', file]);
  expect(second.code).toBe(0);
  expect(second.stdout).toContain('configured');
  const applied = await client.call('GET', `${MWC}/m-beta-applied`);
  expect(applied.json.webhooks[0]).toMatchObject({ timeoutSeconds: 7, failurePolicy: 'Ignore', reinvocationPolicy: 'Never', sideEffects: 'Unknown' });
});

test('the admission step duration is measured', async () => {
  const text = (await client.raw('GET', '/metrics', {})).body.toString('utf8');
  expect(text).toMatch(/apiserver_admission_step_admission_duration_seconds_count\{type="admit",operation="CREATE",rejected="false"\} [1-9]/);
  expect(text).toMatch(/apiserver_admission_step_admission_duration_seconds_count\{type="validate",operation="CREATE",rejected="true"\} [1-9]/);
  expect(text).toMatch(/apiserver_admission_webhook_rejection_count\{[^}]*name="garbage-fail.webhooks.test"[^}]*error_type="calling_webhook_error"[^}]*\} [1-9]/);
});
