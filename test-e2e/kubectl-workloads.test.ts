import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, KubeConfig, type V1PodTemplate } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { decodeProtobufObject, encodeProtobufObject } from '../packages/apimachinery/src/index.js';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';

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

const ok = async (args: string[], env: Record<string, string> = {}) => {
  const r = await kubectl(server, args, env);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
};

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** Objects differ between reads only in what the server keeps: drop nothing, compare whole. */
async function protobufGet(path: string) {
  const reply = await client.raw('GET', path, { Accept: PROTOBUF });
  expect(reply.status).toBe(200);
  expect(reply.contentType).toContain(PROTOBUF);
  return decodeProtobufObject(reply.body);
}

const deploymentManifest = (image: string, envValue: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      volumes:
      - name: cfg
        configMap: {name: api-config}
      - name: scratch
      containers:
      - name: main
        image: ${image}
        ports:
        - containerPort: 8080
        env:
        - name: MODE
          value: "${envValue}"
        volumeMounts:
        - {name: cfg, mountPath: /etc/api}
        readinessProbe:
          httpGet: {port: 8080, path: /ready}
        resources:
          limits: {cpu: 500m, memory: 128Mi}
      - name: sidecar
        image: busybox:1.36
`;

const fullPod = (image: string) => `apiVersion: v1
kind: Pod
metadata: {name: full, labels: {app: full}}
spec:
  initContainers: [{name: init, image: busybox, command: [sh, -c, 'true']}]
  containers:
  - name: main
    image: ${image}
    ports: [{containerPort: 80, name: http}]
    startupProbe: {tcpSocket: {port: http}, failureThreshold: 30}
    lifecycle: {preStop: {exec: {command: [sleep, "5"]}}}
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true}
  tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: full}}}]
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: full}}}
  volumes:
  - name: token
    projected:
      sources:
      - serviceAccountToken: {path: token}
      - configMap: {name: kube-root-ca.crt, items: [{key: ca.crt, path: ca.crt}]}
      - downwardAPI: {items: [{path: namespace, fieldRef: {fieldPath: metadata.namespace}}]}
  - name: eph
    ephemeral:
      volumeClaimTemplate:
        spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;

describe('pods and apps/v1 workloads through kubectl (issue 20)', () => {
  test('a pod using much of the spec: strict apply, label, re-apply unchanged, image change, server-side apply', async () => {
    const file = join(server.dataDir, 'full-pod.yaml');
    await writeFile(file, fullPod('nginx:1.25'));
    expect(await ok(['apply', '-f', file, '--validate=strict'])).toContain('pod/full created');
    await ok(['label', 'pod', 'full', 'x=y']);
    // Re-applying the same manifest is accepted: the defaults the server added (for example the token's
    // expirationSeconds inside an atomic list) may make kubectl send the list again, which changes nothing.
    expect(await ok(['apply', '-f', file])).toMatch(/pod\/full (unchanged|configured)/);
    await writeFile(file, fullPod('nginx:1.26'));
    expect(await ok(['apply', '-f', file])).toContain('pod/full configured');
    expect(await ok(['apply', '--server-side', '--force-conflicts', '-f', file])).toContain('pod/full serverside-applied');
    const pod = JSON.parse(await ok(['get', 'pod', 'full', '-o', 'json']));
    expect(pod.metadata.labels).toEqual({ app: 'full', x: 'y' });
    expect(pod.spec.containers[0].image).toBe('nginx:1.26');
    expect(pod.spec.containers[0].startupProbe).toMatchObject({ tcpSocket: { port: 'http' }, failureThreshold: 30, periodSeconds: 10 });
    expect(pod.spec.volumes[0].projected.sources[0]).toEqual({ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } });
    expect(pod.spec.volumes[1].ephemeral.volumeClaimTemplate.spec).toMatchObject({ volumeMode: 'Filesystem', resources: { requests: { storage: '1Gi' } } });
    expect(pod.spec.tolerations).toEqual([{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }]);
  }, 120_000);

  test('create deployment, run, scale, set image; get all -A and pods -o wide print Tables', async () => {
    expect(await ok(['create', 'deployment', 'web', '--image=nginx'])).toContain('deployment.apps/web created');
    expect(await ok(['run', 'p', '--image=nginx'])).toContain('pod/p created');
    expect(await ok(['scale', 'deployment', 'web', '--replicas=3'])).toContain('deployment.apps/web scaled');
    expect(await ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}'])).toBe('3 2');
    expect(await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.25'])).toContain('image updated');
    const deploy = JSON.parse(await ok(['get', 'deploy', 'web', '-o', 'json']));
    expect(deploy.spec.template.spec.containers).toEqual([
      expect.objectContaining({ name: 'nginx', image: 'nginx:1.25', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }),
    ]);
    expect(deploy.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    expect(deploy.spec).toMatchObject({ revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
    expect(deploy.spec.template.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
    });

    const pod = JSON.parse(await ok(['get', 'pod', 'p', '-o', 'json']));
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(pod.spec.enableServiceLinks).toBe(true);

    const all = await ok(['get', 'all', '-A']);
    expect(all).toMatch(/NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/);
    expect(all).toMatch(/default\s+pod\/p\s+0\/1\s+Pending\s+0/);
    expect(all).toMatch(/NAMESPACE\s+NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE/);
    expect(all).toMatch(/default\s+deployment.apps\/web\s+0\/3\s+0\s+0/);
    const wide = await ok(['get', 'pods', '-A', '-o', 'wide']);
    expect(wide).toMatch(/NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES/);
    expect(wide).toMatch(/default\s+p\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s+<none>\s+<none>/);
    expect(await ok(['get', 'deploy', '-o', 'wide'])).toMatch(/web\s+0\/3\s+0\s+0\s+\S+\s+nginx\s+nginx:1.25\s+app=web/);

    // The Scale kind itself, through its own group.
    const scale = await client.call('GET', '/apis/apps/v1/namespaces/default/deployments/web/scale');
    expect(scale.json).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 3 }, status: { selector: 'app=web' } });
  }, 120_000);

  test('client-side apply, edit, apply again: strategic merge by container name keeps both containers', async () => {
    const file = join(server.dataDir, 'api.yaml');
    await writeFile(file, deploymentManifest('registry.example/api:1', 'a', 2));
    expect(await ok(['apply', '-f', file])).toContain('deployment.apps/api created');
    await writeFile(file, deploymentManifest('registry.example/api:1', 'b', 4));
    expect(await ok(['apply', '-f', file])).toContain('deployment.apps/api configured');
    const editor = join(server.dataDir, 'edit-image.sh');
    await writeFile(editor, '#!/bin/sh\nsed -i "s#busybox:1.36#busybox:1.37#" "$1"\n');
    await chmod(editor, 0o755);
    expect(await ok(['edit', 'deployment', 'api'], { EDITOR: editor, KUBE_EDITOR: editor })).toContain('deployment.apps/api edited');
    expect(await ok(['get', 'deploy', 'api', '-o', 'jsonpath={.spec.template.spec.containers[1].image}'])).toBe('busybox:1.37');
    await writeFile(file, deploymentManifest('registry.example/api:2', 'c', 4));
    expect(await ok(['apply', '-f', file])).toContain('deployment.apps/api configured');
    const d = JSON.parse(await ok(['get', 'deploy', 'api', '-o', 'json']));
    const [main, sidecar] = d.spec.template.spec.containers;
    expect(main).toMatchObject({ name: 'main', image: 'registry.example/api:2', env: [{ name: 'MODE', value: 'c' }], imagePullPolicy: 'IfNotPresent' });
    expect(main.ports).toEqual([{ containerPort: 8080, protocol: 'TCP' }]);
    expect(main.readinessProbe).toMatchObject({ httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1 });
    expect(main.resources.limits).toEqual({ cpu: '500m', memory: '128Mi' });
    // kubectl edit records the edit in last-applied-configuration, so the next apply puts the manifest's image back.
    expect(sidecar).toMatchObject({ name: 'sidecar', image: 'busybox:1.36' });
    expect(d.spec.template.spec.volumes).toEqual([
      { name: 'cfg', configMap: { name: 'api-config', defaultMode: 420 } },
      { name: 'scratch', emptyDir: {} },
    ]);
    expect(d.spec.replicas).toBe(4);
  }, 120_000);

  test('bad inputs are 422 with field causes and nothing is stored', async () => {
    const badPod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bad-pod' },
      spec: {
        restartPolicy: 'Sometimes',
        containers: [{ name: 'a' }, { name: 'a', image: 'x', ports: [{ containerPort: 70000 }], volumeMounts: [{ name: 'nope', mountPath: '/x' }] }],
      },
    };
    const r = await client.call('POST', '/api/v1/namespaces/default/pods', badPod);
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(r.json.details.causes).toEqual(
      expect.arrayContaining([
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].image' },
        expect.objectContaining({ reason: 'FieldValueInvalid', field: 'spec.containers[1].ports[0].containerPort' }),
        expect.objectContaining({ reason: 'FieldValueDuplicate', field: 'spec.containers[1].name' }),
        expect.objectContaining({ reason: 'FieldValueNotFound', field: 'spec.containers[1].volumeMounts[0].name' }),
        expect.objectContaining({ reason: 'FieldValueNotSupported', field: 'spec.restartPolicy' }),
      ]),
    );
    expect((await client.call('GET', '/api/v1/namespaces/default/pods/bad-pod')).status).toBe(404);

    const mismatched = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'bad-deploy' },
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'other' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    const d = await client.call('POST', '/apis/apps/v1/namespaces/default/deployments', mismatched);
    expect(d.status).toBe(422);
    expect(d.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.template.metadata.labels', 'spec.template.spec.restartPolicy']);
    expect((await client.call('GET', '/apis/apps/v1/namespaces/default/deployments/bad-deploy')).status).toBe(404);

    await ok(['create', 'deployment', 'fixed', '--image=nginx']);
    const selectorChange = await kubectl(server, ['patch', 'deploy', 'fixed', '-p', '{"spec":{"selector":{"matchLabels":{"app":"z"}},"template":{"metadata":{"labels":{"app":"z"}}}}}']);
    expect(selectorChange.code).not.toBe(0);
    expect(selectorChange.stderr).toContain('spec.selector: Invalid value');
    expect(selectorChange.stderr).toContain('field is immutable');

    await ok(['run', 'frozen', '--image=nginx']);
    const podChange = await kubectl(server, ['patch', 'pod', 'frozen', '-p', '{"spec":{"restartPolicy":"Never"}}']);
    expect(podChange.code).not.toBe(0);
    expect(podChange.stderr).toContain('spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`');
    // Images may change.
    await ok(['set', 'image', 'pod/frozen', 'frozen=nginx:1.27']);
    expect(await ok(['get', 'pod', 'frozen', '-o', 'jsonpath={.spec.containers[0].image} {.spec.restartPolicy}'])).toBe('nginx:1.27 Always');

    const negative = await client.call('PATCH', '/apis/apps/v1/namespaces/default/deployments/fixed/scale', { spec: { replicas: -1 } }, 'application/merge-patch+json');
    expect(negative.status).toBe(422);
    expect(await ok(['get', 'deploy', 'fixed', '-o', 'jsonpath={.spec.replicas}'])).toBe('1');

    // Strict field validation knows every field of the pod tree and still refuses unknown ones.
    const strict = await client.call('POST', '/api/v1/namespaces/default/pods?fieldValidation=Strict', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'strict' },
      spec: { containers: [{ name: 'c', image: 'i', bogus: 1 }] },
    });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toContain('unknown field "spec.containers[0].bogus"');
  }, 120_000);

  test('field selectors of pods and replica sets', async () => {
    await ok(['run', 'sel', '--image=nginx', '--restart=Never']);
    const names = async (selector: string) =>
      (await ok(['get', 'pods', '--field-selector', selector, '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').filter(Boolean);
    expect(await names('spec.restartPolicy=Never')).toEqual(['sel']);
    expect(await names('status.phase=Pending,spec.restartPolicy=Never,spec.schedulerName=default-scheduler')).toEqual(['sel']);
    expect(await names('spec.nodeName=nowhere')).toEqual([]);
    const rs = await kubectl(server, ['get', 'rs', '--field-selector', 'status.replicas=0']);
    expect(rs.code).toBe(0);
    const badField = await kubectl(server, ['get', 'pods', '--field-selector', 'spec.unknown=1']);
    expect(badField.code).not.toBe(0);
  }, 60_000);

  test('every kind round-trips through JSON, YAML and Protobuf, and its scale through Protobuf too', async () => {
    const ns = 'roundtrip';
    await ok(['create', 'namespace', ns]);
    const template = {
      metadata: { labels: { app: 'rt' } },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'img:1',
            env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'KEY', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }],
            envFrom: [{ secretRef: { name: 's' } }],
            resources: { requests: { cpu: '0.5', memory: '1Gi' } },
            livenessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 3 },
            securityContext: { runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
          },
        ],
        volumes: [
          { name: 'sec', secret: { secretName: 's', items: [{ key: 'a', path: 'a' }] } },
          { name: 'proj', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] } },
        ],
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } },
      },
    };
    const selector = { matchLabels: { app: 'rt' } };
    const objects: Array<[string, Record<string, unknown>]> = [
      [`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'rt' }, spec: template.spec }],
      [`/api/v1/namespaces/${ns}/podtemplates`, { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'rt' }, template }],
      [`/api/v1/namespaces/${ns}/replicationcontrollers`, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rt' }, spec: { template } }],
      [`/apis/apps/v1/namespaces/${ns}/deployments`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'rt' }, spec: { selector, template } }],
      [`/apis/apps/v1/namespaces/${ns}/replicasets`, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rt' }, spec: { selector, template } }],
      [
        `/apis/apps/v1/namespaces/${ns}/statefulsets`,
        {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          metadata: { name: 'rt' },
          spec: {
            selector,
            serviceName: 'rt',
            template,
            volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
          },
        },
      ],
      [`/apis/apps/v1/namespaces/${ns}/daemonsets`, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'rt' }, spec: { selector, template } }],
      [
        `/apis/apps/v1/namespaces/${ns}/controllerrevisions`,
        { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'rt' }, revision: 2, data: { spec: { template } } },
      ],
    ];
    for (const [collection, obj] of objects) {
      // Create with a Protobuf body, as stock clients do.
      const created = await client.raw('POST', collection, { 'Content-Type': PROTOBUF, Accept: 'application/json' }, encodeProtobufObject(obj as never));
      expect({ collection, status: created.status, body: created.status === 201 ? '' : created.body.toString() }).toEqual({ collection, status: 201, body: '' });
      const path = `${collection}/rt`;
      const json = (await client.call('GET', path)).json;
      expect(json.metadata.name).toBe('rt');
      // Protobuf read gives the same object as the JSON read.
      expect(await protobufGet(path)).toEqual(json);
      // kubectl -o yaml gives the same object.
      const resource = collection.split('/').pop()!;
      expect(parseYaml(await ok(['get', resource, 'rt', '-n', ns, '-o', 'yaml', '--show-managed-fields']))).toEqual(json);
      // A Protobuf PUT of what was read changes nothing but the resourceVersion.
      const put = await client.raw('PUT', path, { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, encodeProtobufObject(json));
      expect(put.status).toBe(200);
      const again = decodeProtobufObject(put.body) as typeof json;
      expect({ ...again, metadata: { ...again.metadata, resourceVersion: '' } }).toEqual({ ...json, metadata: { ...json.metadata, resourceVersion: '' } });
      // Lists too.
      const list = await protobufGet(collection);
      expect((list as unknown as { items: unknown[] }).items).toHaveLength(1);
    }
    for (const scalable of [`/api/v1/namespaces/${ns}/replicationcontrollers/rt`, `/apis/apps/v1/namespaces/${ns}/deployments/rt`, `/apis/apps/v1/namespaces/${ns}/statefulsets/rt`, `/apis/apps/v1/namespaces/${ns}/replicasets/rt`]) {
      const scale = await protobufGet(`${scalable}/scale`);
      expect(scale).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 1 } });
      const next = { ...scale, spec: { replicas: 5 } };
      const put = await client.raw('PUT', `${scalable}/scale`, { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, encodeProtobufObject(next));
      expect(put.status).toBe(200);
      expect(decodeProtobufObject(put.body)).toMatchObject({ kind: 'Scale', spec: { replicas: 5 } });
      expect((await client.call('GET', scalable)).json.spec.replicas).toBe(5);
    }
    expect((await client.call('GET', `/apis/apps/v1/namespaces/${ns}/daemonsets/rt/scale`)).status).toBe(404);

    // A status written as sparse JSON is stored in Go's shape, so both encodings still agree.
    const podPath = `/api/v1/namespaces/${ns}/pods/rt`;
    const status = await client.call('PATCH', `${podPath}/status`, { status: { phase: 'Running', podIP: '10.1.2.3', containerStatuses: [{ name: 'c' }] } }, 'application/merge-patch+json');
    expect(status.status).toBe(200);
    expect(status.json.status.containerStatuses).toEqual([{ name: 'c', state: {}, lastState: {}, ready: false, restartCount: 0, image: '', imageID: '' }]);
    expect(await protobufGet(podPath)).toEqual((await client.call('GET', podPath)).json);
    expect(await ok(['get', 'pods', '-n', ns, '--field-selector', 'status.podIP=10.1.2.3', '-o', 'name'])).toBe('pod/rt\n');

    // @kubernetes/client-node reads them into its typed models and writes them back.
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const apps = kc.makeApiClient(AppsV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    const dep = await apps.readNamespacedDeployment({ name: 'rt', namespace: ns });
    expect(dep.spec?.template.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchExpressions?.[0]?.key).toBe('zone');
    dep.spec!.template.spec!.containers[0]!.image = 'img:2';
    const replaced = await apps.replaceNamespacedDeployment({ name: 'rt', namespace: ns, body: dep });
    expect(replaced.spec?.template.spec?.containers[0]?.image).toBe('img:2');
    expect(replaced.metadata?.generation).toBe(3);
    const pod = await core.readNamespacedPod({ name: 'rt', namespace: ns });
    // ServiceAccount admission adds the API credentials volume after the pod's own, as upstream.
    expect(pod.spec?.volumes?.map((v) => v.name)).toEqual(['sec', 'proj', expect.stringMatching(/^kube-api-access-[a-z0-9]{5}$/)]);
    expect(pod.status?.qosClass).toBe('Burstable');
    const scale = await apps.readNamespacedDeploymentScale({ name: 'rt', namespace: ns });
    expect(scale.spec?.replicas).toBe(5);
  }, 180_000);

  test('chunked list of 400 pod templates through @kubernetes/client-node', async () => {
    const ns = 'chunking';
    await ok(['create', 'namespace', ns]);
    const TOTAL = 400;
    for (let start = 0; start < TOTAL; start += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          client.call('POST', `/api/v1/namespaces/${ns}/podtemplates`, {
            apiVersion: 'v1',
            kind: 'PodTemplate',
            metadata: { name: `template-${String(start + i).padStart(4, '0')}` },
            template: { metadata: { labels: { n: String(start + i) } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
          }).then((r) => expect(r.status).toBe(201)),
        ),
      );
    }
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    const seen: V1PodTemplate[] = [];
    let token: string | undefined;
    let pages = 0;
    let firstRemaining: number | undefined;
    do {
      const page = await core.listNamespacedPodTemplate({ namespace: ns, limit: 17, _continue: token });
      pages++;
      if (pages === 1) firstRemaining = page.metadata?.remainingItemCount;
      seen.push(...page.items);
      token = page.metadata?._continue || undefined;
      expect(pages).toBeLessThan(100);
    } while (token);
    expect(pages).toBe(Math.ceil(TOTAL / 17));
    expect(firstRemaining).toBe(TOTAL - 17);
    expect(new Set(seen.map((t) => t.metadata?.name)).size).toBe(TOTAL);
    expect(seen.map((t) => t.metadata?.name)).toEqual([...seen.map((t) => t.metadata?.name)].sort());
    expect(seen[0]?.template?.spec?.restartPolicy).toBe('Always');

    const table = await ok(['get', 'podtemplates', '-n', ns, '--chunk-size=50']);
    expect(table.split('\n')[0]).toMatch(/NAME\s+CONTAINERS\s+IMAGES\s+POD LABELS/);
    expect(table.trim().split('\n')).toHaveLength(TOTAL + 1);
  }, 180_000);
});
