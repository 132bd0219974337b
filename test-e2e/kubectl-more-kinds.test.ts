import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { decodeProtobufObject, encodeProtobufObject, type KubeObject } from '../packages/apimachinery/src/index.js';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';

// Job, CronJob, PodDisruptionBudget, Ingress, IngressClass, NetworkPolicy and RuntimeClass with
// stock kubectl 1.32 (which sends Protobuf for `kubectl create <kind>`) and raw Protobuf requests
// shaped like upstream's conformance specs (create, get, list, watch, patch, update, status,
// delete, deletecollection).

let server: ServerProcess;
let client: KubeconfigClient;
beforeAll(async () => {
  server = await startServerProcess(['--controllers=-namespace']);
  client = new KubeconfigClient(server.kubeconfig);
}, 60_000);
afterAll(async () => {
  client?.close();
  await server?.stop();
}, 30_000);

const ok = async (args: string[]) => {
  const r = await kubectl(server, args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};
const fails = async (args: string[]) => {
  const r = await kubectl(server, args);
  expect(r.code).not.toBe(0);
  return r.stderr;
};

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

async function protobuf(method: string, path: string, obj?: KubeObject) {
  const reply = await client.raw(method, path, { Accept: PROTOBUF, ...(obj ? { 'Content-Type': PROTOBUF } : {}) }, obj ? encodeProtobufObject(obj) : undefined);
  const body = reply.contentType.includes(PROTOBUF) ? decodeProtobufObject(reply.body) : JSON.parse(reply.body.toString('utf8'));
  return { status: reply.status, body: body as KubeObject & Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const manifests = `apiVersion: batch/v1
kind: Job
metadata: {name: pi}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: pi, image: busybox, command: [sh, -c, 'echo 3.14']}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "@hourly"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: c, image: busybox, command: [date]}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: example.com/ingress-nginx}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all}
spec: {podSelector: {}}
`;

describe('kubectl with the batch, policy, networking and node kinds', () => {
  test('create -f, get (server-side table columns), get -o yaml, delete', async () => {
    const file = join(server.dataDir, 'more-kinds.yaml');
    await writeFile(file, manifests);
    const created = await ok(['create', '-f', file]);
    for (const line of ['job.batch/pi created', 'cronjob.batch/nightly created', 'poddisruptionbudget.policy/web created', 'ingress.networking.k8s.io/web created', 'runtimeclass.node.k8s.io/gvisor created']) {
      expect(created).toContain(line);
    }

    expect((await ok(['get', 'jobs'])).split('\n')[0]).toMatch(/^NAME\s+COMPLETIONS\s+DURATION\s+AGE$/);
    expect(await ok(['get', 'jobs', '-o', 'wide'])).toMatch(/pi\s+0\/1\s+\S+\s+pi\s+busybox\s+batch.kubernetes.io\/controller-uid=/);
    const cj = await ok(['get', 'cj']);
    expect(cj.split('\n')[0]).toMatch(/^NAME\s+SCHEDULE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/);
    expect(cj).toMatch(/nightly\s+@hourly\s+False\s+0\s+<none>/);
    const pdb = await ok(['get', 'pdb']);
    expect(pdb.split('\n')[0]).toMatch(/^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/);
    expect(pdb).toMatch(/web\s+N\/A\s+1\s+0/);
    const ing = await ok(['get', 'ing']);
    expect(ing.split('\n')[0]).toMatch(/^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE$/);
    expect(ing).toMatch(/web\s+nginx\s+web.example.com\s+80\s/);
    expect(await ok(['get', 'ingressclass'])).toMatch(/nginx\s+example.com\/ingress-nginx\s+<none>/);
    expect(await ok(['get', 'runtimeclass'])).toMatch(/gvisor\s+runsc/);
    expect(await ok(['get', 'netpol'])).toMatch(/deny-all\s+<none>/);

    // The stored Job carries upstream's defaults and generated selector.
    const job = parseYaml(await ok(['get', 'job', 'pi', '-o', 'yaml']));
    expect(job.spec).toMatchObject({ backoffLimit: 6, completions: 1, parallelism: 1, completionMode: 'NonIndexed', suspend: false });
    expect(job.spec.selector.matchLabels['batch.kubernetes.io/controller-uid']).toBe(job.metadata.uid);
    expect(job.spec.template.metadata.labels['job-name']).toBe('pi');
    const netpol = parseYaml(await ok(['get', 'netpol', 'deny-all', '-o', 'yaml']));
    expect(netpol.spec.policyTypes).toEqual(['Ingress']);

    // `get all` lists Jobs and CronJobs (category all).
    expect(await ok(['get', 'all'])).toContain('job.batch/pi');

    await ok(['delete', '-f', file]);
    expect(await ok(['get', 'jobs,cj,pdb,ing,netpol', '--ignore-not-found'])).toBe('');
  }, 120_000);

  test('kubectl create <kind> sends Protobuf; bad input is 422 naming the field', async () => {
    expect(await ok(['create', 'job', 'once', '--image=busybox', '--', 'true'])).toContain('job.batch/once created');
    expect(await ok(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * ?', '--', 'date'])).toContain('cronjob.batch/tick created');
    expect(await ok(['create', 'pdb', 'half', '--selector=app=web', '--min-available=50%'])).toContain('poddisruptionbudget.policy/half created');
    expect(await ok(['create', 'ingress', 'api', '--class=nginx', '--rule=api.example.com/v1*=api:http'])).toContain('ingress.networking.k8s.io/api created');

    expect(await fails(['create', 'cronjob', 'bad', '--image=busybox', '--schedule=61 * * * *'])).toContain(
      'spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
    );
    expect(await fails(['create', 'pdb', 'both', '--selector=app=web', '--min-available=150%'])).toContain('spec.minAvailable: Invalid value: "150%": must not be greater than 100%');
    // A Job's pod template may not change.
    expect(await fails(['set', 'image', 'job/once', 'once=other'])).toContain('field is immutable');

    const reply = await client.call('POST', '/apis/batch/v1/namespaces/default/cronjobs', {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'tz' },
      spec: { schedule: '0 3 * * *', timeZone: 'bad-time-zone', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } } },
    });
    expect(reply.status).toBe(422);
    expect(reply.json.reason).toBe('Invalid');
    expect(reply.json.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "bad-time-zone": unknown time zone bad-time-zone', field: 'spec.timeZone' }]);
  }, 120_000);

  test('apply --server-side creates and changes a CronJob and an Ingress', async () => {
    const file = join(server.dataDir, 'ssa.yaml');
    const cronJob = (schedule: string) => `apiVersion: batch/v1
kind: CronJob
metadata: {name: ssa}
spec:
  schedule: "${schedule}"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
`;
    await writeFile(file, cronJob('0 * * * *'));
    expect(await ok(['apply', '--server-side', '-f', file])).toContain('cronjob.batch/ssa serverside-applied');
    await writeFile(file, cronJob('30 * * * *'));
    await ok(['apply', '--server-side', '-f', file]);
    const cj = parseYaml(await ok(['get', 'cj', 'ssa', '-o', 'yaml', '--show-managed-fields']));
    expect(cj.spec.schedule).toBe('30 * * * *');
    expect(cj.metadata.generation).toBe(2);
    expect(cj.metadata.managedFields.map((m: { manager: string }) => m.manager)).toContain('kubectl');

    const ing = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ssa}
spec:
  defaultBackend: {service: {name: web, port: {name: http}}}
`;
    await writeFile(file, ing);
    expect(await ok(['apply', '--server-side', '-f', file])).toContain('ingress.networking.k8s.io/ssa serverside-applied');
    await ok(['delete', 'cronjob/ssa', 'ingress/ssa']);
  }, 120_000);
});

describe('DefaultIngressClass admission', () => {
  test('an Ingress without a class gets the default IngressClass; two defaults refuse it', async () => {
    const annotate = 'ingressclass.kubernetes.io/is-default-class=true';
    await ok(['create', 'ingress', 'before', '--rule=a.example.com/=web:80']);
    expect(parseYaml(await ok(['get', 'ing', 'before', '-o', 'yaml'])).spec.ingressClassName).toBeUndefined();
    const file = join(server.dataDir, 'classes.yaml');
    await writeFile(file, ['one', 'two'].map((n) => `apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: ${n}}\nspec: {controller: example.com/${n}}\n`).join('---\n'));
    await ok(['create', '-f', file]);
    await ok(['annotate', 'ingressclass', 'one', annotate]);
    await ok(['create', 'ingress', 'after', '--rule=a.example.com/=web:80']);
    expect(parseYaml(await ok(['get', 'ing', 'after', '-o', 'yaml'])).spec.ingressClassName).toBe('one');
    await ok(['create', 'ingress', 'mine', '--class=two', '--rule=a.example.com/=web:80']);
    expect(parseYaml(await ok(['get', 'ing', 'mine', '-o', 'yaml'])).spec.ingressClassName).toBe('two');
    await ok(['annotate', 'ingressclass', 'two', annotate]);
    const refused = await client.call('POST', '/apis/networking.k8s.io/v1/namespaces/default/ingresses', {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'third' },
      spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe('ingresses.networking.k8s.io "third" is forbidden: 2 default IngressClasses were found, only 1 allowed');
    await ok(['delete', 'ingress', 'before', 'after', 'mine']);
    await ok(['delete', '-f', file]);
  }, 60_000);
});

describe('conformance-shaped API operations over Protobuf', () => {
  const cronJob = (name: string): KubeObject => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, labels: { 'special-label': 'pb' } },
    spec: {
      schedule: '* */1 * * ?',
      concurrencyPolicy: 'Allow',
      successfulJobsHistoryLimit: 1,
      failedJobsHistoryLimit: 0,
      jobTemplate: {
        spec: {
          parallelism: 1,
          completions: 1,
          backoffLimit: 1,
          template: {
            spec: {
              restartPolicy: 'OnFailure',
              volumes: [{ name: 'data', emptyDir: {} }],
              containers: [{ name: 'c', image: 'busybox', command: ['/bin/true'], volumeMounts: [{ mountPath: '/data', name: 'data' }] }],
            },
          },
        },
      },
    },
  });

  test('CronJob: create, get, list, watch, patch, update, status get/patch/update, delete, deletecollection', async () => {
    const base = '/apis/batch/v1/namespaces/default/cronjobs';
    const created = await protobuf('POST', base, cronJob('test-api'));
    expect(created.status).toBe(201);
    expect(created.body.kind).toBe('CronJob');
    const got = await protobuf('GET', `${base}/test-api`);
    expect(got.body.metadata.uid).toBe(created.body.metadata.uid);
    const list = await protobuf('GET', `${base}?labelSelector=special-label%3Dpb`);
    expect(list.body.kind).toBe('CronJobList');
    expect(list.body['items']).toHaveLength(1);

    const events: string[] = [];
    const watch = client.watch(`${base}?watch=1&labelSelector=special-label%3Dpb&resourceVersion=${list.body.metadata.resourceVersion}`, (e: { type: string; object: KubeObject }) => {
      if (e.object.metadata.annotations?.['patched'] === 'true') events.push(e.type);
    });

    const patched = await client.call('PATCH', `${base}/test-api`, { metadata: { annotations: { patched: 'true' } } }, 'application/merge-patch+json');
    expect(patched.json.metadata.annotations.patched).toBe('true');
    const current = (await protobuf('GET', `${base}/test-api`)).body;
    current.metadata.annotations = { ...current.metadata.annotations, updated: 'true' };
    const updated = await protobuf('PUT', `${base}/test-api`, current);
    expect(updated.status).toBe(200);
    expect(updated.body.metadata.annotations?.['updated']).toBe('true');

    const now = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000', '');
    const statusPatch = await client.call('PATCH', `${base}/test-api/status`, { status: { lastScheduleTime: now } }, 'application/merge-patch+json');
    expect(statusPatch.status).toBe(200);
    expect(statusPatch.json.status.lastScheduleTime).toBe(now);
    const forStatus = (await protobuf('GET', `${base}/test-api`)).body;
    forStatus['status'] = { lastScheduleTime: '2024-01-02T03:04:05Z' };
    const statusUpdate = await protobuf('PUT', `${base}/test-api/status`, forStatus);
    expect(statusUpdate.status).toBe(200);
    expect(statusUpdate.body['status'].lastScheduleTime).toBe('2024-01-02T03:04:05Z');
    const statusGet = await protobuf('GET', `${base}/test-api/status`);
    expect(statusGet.body.metadata.uid).toBe(created.body.metadata.uid);

    for (let i = 0; i < 50 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    watch.stop();
    expect(events[0]).toBe('MODIFIED');

    expect((await protobuf('POST', base, cronJob('for-removal'))).status).toBe(201);
    expect((await protobuf('DELETE', `${base}/for-removal`)).status).toBe(200);
    expect((await protobuf('GET', `${base}/for-removal`)).status).toBe(404);
    expect((await protobuf('DELETE', `${base}?labelSelector=special-label%3Dpb`)).status).toBe(200);
    expect((await protobuf('GET', `${base}?labelSelector=special-label%3Dpb`)).body['items'] ?? []).toHaveLength(0);
  }, 60_000);

  test('Job, PodDisruptionBudget and Ingress status updates keep the spec; RuntimeClass list and delete over Protobuf', async () => {
    const jobs = '/apis/batch/v1/namespaces/default/jobs';
    const job = await protobuf('POST', jobs, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'st' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    expect(job.status).toBe(201);
    const withStatus = { ...job.body, spec: { ...job.body['spec'], parallelism: 9 }, status: { active: 1, startTime: '2024-01-02T03:04:05Z' } };
    const st = await protobuf('PUT', `${jobs}/st/status`, withStatus);
    expect(st.status).toBe(200);
    expect(st.body['status']).toMatchObject({ active: 1, startTime: '2024-01-02T03:04:05Z' });
    expect(st.body['spec'].parallelism).toBe(1);
    const bad = await client.call('PATCH', `${jobs}/st/status`, { status: { active: -1 } }, 'application/merge-patch+json');
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes[0].field).toBe('status.active');
    expect((await client.call('GET', `${jobs}?fieldSelector=status.successful%3D0`)).json.items.map((j: KubeObject) => j.metadata.name)).toContain('st');

    const pdbs = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
    const pdb = await protobuf('POST', pdbs, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'x' } } } });
    expect(pdb.status).toBe(201);
    const pdbStatus = await protobuf('PUT', `${pdbs}/p/status`, { ...pdb.body, status: { disruptionsAllowed: 2, currentHealthy: 3, desiredHealthy: 1, expectedPods: 3, observedGeneration: 1 } });
    expect(pdbStatus.status).toBe(200);
    expect(pdbStatus.body['status'].disruptionsAllowed).toBe(2);
    // PodDisruptionBudget updates need a resourceVersion, as upstream.
    const unconditional = await client.call('PUT', `${pdbs}/p`, { ...pdb.body, metadata: { name: 'p' } });
    expect(unconditional.status).toBe(422);

    const ings = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
    const ing = await protobuf('POST', ings, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'lb' },
      spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    });
    expect(ing.status).toBe(201);
    const ingStatus = await client.call('PATCH', `${ings}/lb/status`, { status: { loadBalancer: { ingress: [{ ip: '192.168.1.5' }] } } }, 'application/merge-patch+json');
    expect(ingStatus.status).toBe(200);
    expect(await ok(['get', 'ing', 'lb'])).toMatch(/lb\s+<none>\s+\*\s+192.168.1.5\s+80/);

    const rcs = '/apis/node.k8s.io/v1/runtimeclasses';
    expect((await protobuf('POST', rcs, { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'rc1', labels: { t: 'x' } }, handler: 'h1' } as KubeObject)).status).toBe(201);
    const rcList = await protobuf('GET', `${rcs}?labelSelector=t%3Dx`);
    expect(rcList.body.kind).toBe('RuntimeClassList');
    expect(rcList.body['items'][0].handler).toBe('h1');
    expect((await protobuf('DELETE', `${rcs}?labelSelector=t%3Dx`)).status).toBe(200);
    await ok(['delete', 'job/st', 'pdb/p', 'ingress/lb']);
  }, 60_000);
});
