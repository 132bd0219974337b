import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { decodeProtobufObject, encodeProtobufObject, type KubeObject } from '../packages/apimachinery/src/index.js';
import { kubectl, startServerProcess, type ServerProcess } from './support/server-process.js';
import { KubeconfigClient } from './support/http-client.js';

// PriorityClass (and the Priority admission plugin), PersistentVolume and PersistentVolumeClaim,
// the storage/v1 kinds, HorizontalPodAutoscaler (autoscaling/v2 and v1 over one stored object)
// and ComponentStatus, with stock kubectl 1.32 and raw JSON and Protobuf requests.

let server: ServerProcess;
let client: KubeconfigClient;
beforeAll(async () => {
  // Two removed versions served again (SPEC 9.4), for the round-trip test at the end.
  server = await startServerProcess(['--controllers=-namespace', '--runtime-config=batch/v1beta1=true,storage.k8s.io/v1beta1/storageclasses=true,policy/v1beta1=true,networking.k8s.io/v1beta1=true,extensions/v1beta1=true,discovery.k8s.io/v1beta1=true,autoscaling/v2beta1=true,apps/v1beta2=true,apps/v1beta1=true']);
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
const applyFile = async (name: string, text: string, verb: string[] = ['create']) => {
  const file = join(server.dataDir, name);
  await writeFile(file, text);
  return ok([...verb, '-f', file]);
};

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

async function protobuf(method: string, path: string, obj?: KubeObject) {
  const reply = await client.raw(method, path, { Accept: PROTOBUF, ...(obj ? { 'Content-Type': PROTOBUF } : {}) }, obj ? encodeProtobufObject(obj) : undefined);
  const body = reply.contentType.includes(PROTOBUF) ? decodeProtobufObject(reply.body) : JSON.parse(reply.body.toString('utf8'));
  return { status: reply.status, body: body as KubeObject & Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('scheduling.k8s.io/v1 PriorityClass and the Priority admission plugin', () => {
  test('system classes exist and are protected; kubectl create/get/delete; 422 naming the field', async () => {
    const table = await ok(['get', 'pc']);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE$/);
    expect(table).toMatch(/system-cluster-critical\s+2000000000\s+false/);
    expect(table).toMatch(/system-node-critical\s+2000001000\s+false/);
    expect(await fails(['delete', 'pc', 'system-node-critical'])).toContain(
      'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted',
    );
    expect(await fails(['patch', 'pc', 'system-cluster-critical', '-p', '{"value":5}'])).toContain('value: Forbidden: may not be changed in an update.');
    expect(await fails(['create', 'priorityclass', 'system-mine', '--value=5'])).toContain(
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    );
    expect(await fails(['create', 'priorityclass', 'huge', '--value=1000000001'])).toContain('value: Forbidden: maximum allowed value of a user defined priority is 1000000000');

    // kubectl create priorityclass sends Protobuf.
    expect(await ok(['create', 'priorityclass', 'batch-low', '--value=100', '--global-default', '--description=batch'])).toContain('priorityclass.scheduling.k8s.io/batch-low created');
    const stored = parseYaml(await ok(['get', 'pc', 'batch-low', '-o', 'yaml']));
    expect(stored).toMatchObject({ value: 100, globalDefault: true, preemptionPolicy: 'PreemptLowerPriority', description: 'batch' });
    expect(await fails(['create', 'priorityclass', 'second-default', '--value=1', '--global-default'])).toContain(
      'PriorityClass batch-low is already marked as default. Only one default can exist',
    );

    // Pods: the default class, a named class, an unknown class.
    await applyFile('pods.yaml', ['plain', 'critical'].map((n) => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${n}}\nspec:\n${n === 'critical' ? '  priorityClassName: system-node-critical\n' : ''}  containers: [{name: c, image: busybox}]\n`).join('---\n'));
    expect(parseYaml(await ok(['get', 'pod', 'plain', '-o', 'yaml'])).spec).toMatchObject({ priorityClassName: 'batch-low', priority: 100, preemptionPolicy: 'PreemptLowerPriority' });
    expect(parseYaml(await ok(['get', 'pod', 'critical', '-o', 'yaml'])).spec).toMatchObject({ priorityClassName: 'system-node-critical', priority: 2000001000 });
    expect(await fails(['run', 'orphan', '--image=busybox', '--overrides={"spec":{"priorityClassName":"nope"}}'])).toContain('no PriorityClass with name nope was found');
    await ok(['delete', 'pod', 'plain', 'critical', '--grace-period=0']);

    // Server-side apply and the Protobuf round trip of a class.
    await applyFile('pc.yaml', 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: ssa}\nvalue: 7\npreemptionPolicy: Never\n', ['apply', '--server-side']);
    const pb = await protobuf('GET', '/apis/scheduling.k8s.io/v1/priorityclasses/ssa');
    expect(pb.body).toMatchObject({ kind: 'PriorityClass', value: 7, preemptionPolicy: 'Never' });
    const bad = await client.call('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'bad' }, value: 1, preemptionPolicy: 'Sometimes' });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes).toEqual([{ reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"', field: 'preemptionPolicy' }]);
    await ok(['delete', 'pc', 'ssa', 'batch-low']);
  }, 120_000);
});

describe('PriorityClass endpoints, shaped like upstream\'s conformance spec (Protobuf, as Go clients send)', () => {
  test('immutable value refused by patch and update; description patched and updated; list, get, deletecollection', async () => {
    const base = '/apis/scheduling.k8s.io/v1/priorityclasses';
    for (const [name, value] of [['p1', 1], ['p2', 2]] as const) {
      const created = await protobuf('POST', base, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name, labels: { e2e: 'pc-endpoints' } }, value } as KubeObject);
      expect(created.status).toBe(201);
    }
    const valuePatch = await client.call('PATCH', `${base}/p1`, { value: 10 }, 'application/strategic-merge-patch+json');
    expect(valuePatch.status).toBe(422);
    const p2 = (await protobuf('GET', `${base}/p2`)).body;
    expect((await protobuf('PUT', `${base}/p2`, { ...p2, value: 20 } as KubeObject)).status).toBe(422);
    expect((await client.call('PATCH', `${base}/p1`, { description: 'updated description' }, 'application/strategic-merge-patch+json')).status).toBe(200);
    expect((await protobuf('PUT', `${base}/p2`, { ...p2, description: 'updated description' } as KubeObject)).status).toBe(200);
    const list = await protobuf('GET', base);
    expect(list.body.kind).toBe('PriorityClassList');
    for (const [name, value] of [['p1', 1], ['p2', 2]] as const) {
      expect((await protobuf('GET', `${base}/${name}`)).body).toMatchObject({ value, description: 'updated description' });
    }
    expect((await protobuf('DELETE', `${base}?labelSelector=e2e%3Dpc-endpoints`)).status).toBe(200);
    expect((await client.call('GET', `${base}?labelSelector=e2e%3Dpc-endpoints`)).json.items).toEqual([]);
  }, 60_000);
});

describe('core/v1 PersistentVolume and PersistentVolumeClaim', () => {
  test('kubectl create/get/apply/delete, table columns, status subresource, 422 naming the field', async () => {
    const created = await applyFile(
      'volumes.yaml',
      `apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: fast
  hostPath: {path: /data/pv1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: claim1}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources: {requests: {storage: 1Gi}}
`,
    );
    expect(created).toContain('persistentvolume/pv1 created');
    expect(created).toContain('persistentvolumeclaim/claim1 created');
    const pvTable = await ok(['get', 'pv']);
    expect(pvTable.split('\n')[0]).toMatch(/^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+(VOLUMEATTRIBUTESCLASS\s+)?REASON\s+AGE$/);
    expect(pvTable).toMatch(/pv1\s+5Gi\s+RWO,ROX\s+Retain\s+Pending\s+fast/);
    const pvcTable = await ok(['get', 'pvc', '-o', 'wide']);
    expect(pvcTable.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+(VOLUMEATTRIBUTESCLASS\s+)?AGE\s+VOLUMEMODE$/);
    expect(pvcTable).toMatch(/claim1\s+Pending\s+fast\s+\S+\s+Filesystem/);
    const pv = parseYaml(await ok(['get', 'pv', 'pv1', '-o', 'yaml']));
    expect(pv.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', hostPath: { path: '/data/pv1', type: '' } });
    expect(pv.status).toEqual({ phase: 'Pending' });

    // Binding as the controller does: spec.volumeName once, then status through the subresource.
    await ok(['patch', 'pvc', 'claim1', '-p', '{"spec":{"volumeName":"pv1"}}']);
    await ok(['patch', 'pvc', 'claim1', '--subresource=status', '-p', '{"status":{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{"storage":"5Gi"}}}']);
    await ok(['patch', 'pv', 'pv1', '--subresource=status', '-p', '{"status":{"phase":"Bound"},"spec":{"capacity":{"storage":"9Gi"}}}']);
    expect(await ok(['get', 'pvc', 'claim1'])).toMatch(/claim1\s+Bound\s+pv1\s+5Gi\s+RWO\s+fast/);
    expect(await ok(['get', 'pv', 'pv1'])).toMatch(/pv1\s+5Gi\s+RWO,ROX\s+Retain\s+Bound/);
    expect(await fails(['patch', 'pvc', 'claim1', '-p', '{"spec":{"volumeName":"other"}}'])).toContain('spec: Forbidden: spec is immutable after creation except resources.requests for bound claims');
    expect(await fails(['patch', 'pv', 'pv1', '-p', '{"spec":{"hostPath":{"path":"/elsewhere"}}}'])).toContain('spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation');
    // A bound claim may grow, never shrink.
    await ok(['patch', 'pvc', 'claim1', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    expect(await fails(['patch', 'pvc', 'claim1', '-p', '{"spec":{"resources":{"requests":{"storage":"1Gi"}}}}'])).toContain('spec.resources.requests.storage: Forbidden: field can not be less than previous value');

    const bad = await client.call('POST', '/api/v1/persistentvolumes', { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'bad' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteSometimes'], nfs: { server: 'nfs.example.com', path: 'relative' } } });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"', field: 'spec.accessModes' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "relative": must be an absolute path', field: 'spec.nfs.path' },
    ]);
    const badClaim = await client.call('POST', '/api/v1/namespaces/default/persistentvolumeclaims', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'bad' }, spec: { resources: { requests: { storage: '0' } } } });
    expect(badClaim.status).toBe(422);
    expect(badClaim.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.accessModes', 'spec.resources[storage]']);

    // Protobuf: list with a field selector, and a server-side apply.
    const list = await protobuf('GET', '/api/v1/persistentvolumes?fieldSelector=name%3Dpv1');
    expect(list.body.kind).toBe('PersistentVolumeList');
    expect(list.body['items'].map((i: KubeObject) => i.metadata.name)).toEqual(['pv1']);
    await applyFile('pvc-ssa.yaml', 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: claim2}\nspec: {accessModes: [ReadWriteMany], resources: {requests: {storage: 3Gi}}, volumeMode: Block}\n', ['apply', '--server-side']);
    expect(parseYaml(await ok(['get', 'pvc', 'claim2', '-o', 'yaml'])).spec.volumeMode).toBe('Block');
    await ok(['delete', 'pvc', 'claim1', 'claim2']);
    await ok(['delete', 'pv', 'pv1']);
  }, 120_000);
});

describe('storage.k8s.io/v1 kinds and DefaultStorageClass admission', () => {
  test('StorageClass, CSIDriver, CSINode, VolumeAttachment, CSIStorageCapacity: create, table columns, defaults, update rules', async () => {
    const created = await applyFile(
      'storage.yaml',
      `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: example.com/hostpath
allowVolumeExpansion: true
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: hostpath.csi.example.com}
spec:
  tokenRequests: [{audience: vault}]
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-1}
spec:
  drivers: [{name: hostpath.csi.example.com, nodeID: node-1, topologyKeys: [topology.kubernetes.io/zone]}]
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-1}
spec: {attacher: hostpath.csi.example.com, nodeName: node-1, source: {persistentVolumeName: pv-1}}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap-1}
storageClassName: standard
capacity: 10Gi
nodeTopology: {matchLabels: {topology.kubernetes.io/zone: a}}
`,
    );
    for (const line of ['storageclass.storage.k8s.io/standard created', 'csidriver.storage.k8s.io/hostpath.csi.example.com created', 'csinode.storage.k8s.io/node-1 created', 'volumeattachment.storage.k8s.io/va-1 created', 'csistoragecapacity.storage.k8s.io/cap-1 created']) {
      expect(created).toContain(line);
    }
    const sc = await ok(['get', 'sc']);
    expect(sc.split('\n')[0]).toMatch(/^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE$/);
    expect(sc).toMatch(/standard \(default\)\s+example.com\/hostpath\s+Delete\s+Immediate\s+true/);
    expect(await ok(['get', 'csidrivers'])).toMatch(/hostpath.csi.example.com\s+true\s+false\s+false\s+vault\s+false\s+Persistent/);
    expect(await ok(['get', 'csinodes'])).toMatch(/node-1\s+1\s/);
    expect(await ok(['get', 'volumeattachments'])).toMatch(/va-1\s+hostpath.csi.example.com\s+pv-1\s+node-1\s+false/);
    expect(await ok(['get', 'csistoragecapacities'])).toMatch(/cap-1\s+standard\s+10Gi/);
    const driver = parseYaml(await ok(['get', 'csidriver', 'hostpath.csi.example.com', '-o', 'yaml']));
    expect(driver.spec).toMatchObject({ attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', volumeLifecycleModes: ['Persistent'], requiresRepublish: false });

    // Update rules and the status subresource.
    expect(await fails(['patch', 'sc', 'standard', '-p', '{"provisioner":"other.example.com/x"}'])).toContain('provisioner: Forbidden: updates to provisioner are forbidden.');
    expect(await fails(['patch', 'csidriver', 'hostpath.csi.example.com', '-p', '{"spec":{"attachRequired":false}}'])).toContain('spec.attachedRequired: Invalid value: false: field is immutable');
    await ok(['patch', 'csidriver', 'hostpath.csi.example.com', '-p', '{"spec":{"requiresRepublish":true}}']);
    expect(parseYaml(await ok(['get', 'csidriver', 'hostpath.csi.example.com', '-o', 'yaml'])).metadata.generation).toBe(1);
    expect(await fails(['patch', 'volumeattachment', 'va-1', '-p', '{"spec":{"nodeName":"node-2"}}'])).toContain('field is immutable');
    await ok(['patch', 'volumeattachment', 'va-1', '--subresource=status', '-p', '{"status":{"attached":true,"attachmentMetadata":{"devicePath":"/dev/sdb"}}}']);
    expect(await ok(['get', 'volumeattachments'])).toMatch(/va-1\s+hostpath.csi.example.com\s+pv-1\s+node-1\s+true/);
    expect(await fails(['patch', 'csistoragecapacity', 'cap-1', '--type=merge', '-p', '{"storageClassName":"other"}'])).toContain('storageClassName: Invalid value: "other": field is immutable');

    const bad = await client.call('POST', '/apis/storage.k8s.io/v1/storageclasses', { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'bad' }, provisioner: 'x', reclaimPolicy: 'Recycle', volumeBindingMode: 'Later' });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Recycle": supported values: "Delete", "Retain"', field: 'reclaimPolicy' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"', field: 'volumeBindingMode' },
    ]);

    // DefaultStorageClass: a claim without a class gets the default; "" keeps none; two defaults refuse.
    await applyFile('claims.yaml', ['a', 'b'].map((n) => `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: ${n}}\nspec: {${n === 'b' ? 'storageClassName: "", ' : ''}accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n`).join('---\n'));
    expect(parseYaml(await ok(['get', 'pvc', 'a', '-o', 'yaml'])).spec.storageClassName).toBe('standard');
    expect(parseYaml(await ok(['get', 'pvc', 'b', '-o', 'yaml'])).spec.storageClassName).toBe('');
    await applyFile('sc2.yaml', 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: second, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}\nprovisioner: example.com/x\n');
    const refused = await client.call('POST', '/api/v1/namespaces/default/persistentvolumeclaims', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe('persistentvolumeclaims "c" is forbidden: Internal error occurred: 2 default StorageClasses were found');

    // Protobuf round trip of each kind's list.
    for (const r of ['storageclasses', 'csidrivers', 'csinodes', 'volumeattachments', 'csistoragecapacities']) {
      const list = await protobuf('GET', `/apis/storage.k8s.io/v1/${r}`);
      expect(list.status).toBe(200);
      expect(list.body['items'].length).toBeGreaterThan(0);
    }
    const va = await protobuf('GET', '/apis/storage.k8s.io/v1/volumeattachments/va-1');
    expect(va.body['status']).toEqual({ attached: true, attachmentMetadata: { devicePath: '/dev/sdb' } });
    await ok(['delete', 'pvc', 'a', 'b']);
    await ok(['delete', 'sc', 'standard', 'second']);
    await ok(['delete', 'csidriver', 'hostpath.csi.example.com']);
    await ok(['delete', 'csinode', 'node-1']);
    await ok(['delete', 'volumeattachment', 'va-1']);
    await ok(['delete', 'csistoragecapacity', 'cap-1']);
  }, 120_000);
});

describe('autoscaling/v2 and autoscaling/v1 HorizontalPodAutoscaler over one stored object', () => {
  test('kubectl autoscale, table columns, defaults, 422 naming the field', async () => {
    await ok(['create', 'deployment', 'web', '--image=nginx']);
    expect(await ok(['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=70'])).toContain('horizontalpodautoscaler.autoscaling/web autoscaled');
    const table = await ok(['get', 'hpa']);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
    expect(table).toMatch(/web\s+Deployment\/web\s+cpu: <unknown>\/70%|web\s+Deployment\/web\s+<unknown>\/70%\s+2\s+5\s+0/);
    expect(await ok(['get', 'all'])).toContain('horizontalpodautoscaler.autoscaling/web');
    const v2 = parseYaml(await ok(['get', 'horizontalpodautoscalers.v2.autoscaling', 'web', '-o', 'yaml']));
    expect(v2.spec).toEqual({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }] });
    const v1 = parseYaml(await ok(['get', 'horizontalpodautoscalers.v1.autoscaling', 'web', '-o', 'yaml']));
    expect(v1.apiVersion).toBe('autoscaling/v1');
    expect(v1.spec).toEqual({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 });
    expect(v1.metadata.annotations).toBeUndefined();

    const bad = await client.call('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'bad' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 3, maxReplicas: 2, metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '-1' } } }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 2: must be greater than or equal to `minReplicas`', field: 'spec.maxReplicas' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "-1": must be positive', field: 'spec.metrics[0].pods.target.averageValue' },
    ]);
    // v1 is validated on the v2 form, as upstream validates its internal one.
    const badV1 = await client.call('POST', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'bad' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 2, targetCPUUtilizationPercentage: 0 },
    });
    expect(badV1.status).toBe(422);
    expect(badV1.json.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'spec.metrics[0].resource.target.averageUtilization' }]);
    await ok(['delete', 'hpa', 'web']);
    await ok(['delete', 'deployment', 'web']);
  }, 120_000);

  test('v2-only data survives a read-modify-write through v1 (annotations), and both read the same object', async () => {
    const base = (v: string) => `/apis/autoscaling/${v}/namespaces/default/horizontalpodautoscalers`;
    const created = await client.call('POST', base('v2'), {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'multi' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
        maxReplicas: 10,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
          { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1k' } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60, policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] } },
      },
    });
    expect(created.status).toBe(201);
    // Upstream's behavior defaults.
    expect(created.json.spec.behavior).toEqual({
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] },
    });
    const status = await client.call('PUT', `${base('v2')}/multi/status`, {
      ...created.json,
      status: {
        currentReplicas: 3,
        desiredReplicas: 4,
        currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 42, averageValue: '120m' } } }],
        conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'ReadyForNewScale', message: 'ok' }],
      },
    });
    expect(status.status).toBe(200);

    const v1 = (await client.call('GET', `${base('v1')}/multi`)).json;
    expect(v1.spec).toEqual({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' }, minReplicas: 1, maxReplicas: 10, targetCPUUtilizationPercentage: 50 });
    expect(v1.status).toEqual({ currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 42 });
    expect(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics']).toBe('[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"1k"}}]');
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/current-metrics'])).toEqual([{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 42, currentAverageValue: '120m' } }]);
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/conditions'])[0].reason).toBe('ReadyForNewScale');
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/behavior']).scaleDown.stabilizationWindowSeconds).toBe(60);

    // A v1 client changes maxReplicas and the CPU target, sending back what it read.
    v1.spec.maxReplicas = 12;
    v1.spec.targetCPUUtilizationPercentage = 60;
    const put = await client.call('PUT', `${base('v1')}/multi`, v1);
    expect(put.status).toBe(200);
    expect(put.json.metadata.generation).toBe(2);
    const after = (await client.call('GET', `${base('v2')}/multi`)).json;
    expect(after.metadata.annotations).toBeUndefined();
    expect(after.spec.maxReplicas).toBe(12);
    expect(after.spec.metrics).toEqual([
      { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1k' } } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
    ]);
    expect(after.spec.behavior.scaleDown.stabilizationWindowSeconds).toBe(60);
    expect(after.status.conditions[0].reason).toBe('ReadyForNewScale');
    // Upstream pairs spec and status metrics by position: after the v1 write the CPU metric is second.
    expect(await ok(['get', 'hpa', 'multi'])).toMatch(/multi\s+Deployment\/api\s+<unknown>\/1k, <unknown>\/60%\s+1\s+12\s+3/);

    // Protobuf at both versions, and a watch through v1 sees the v2 write.
    const pb1 = await protobuf('GET', `${base('v1')}/multi`);
    expect(pb1.body).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', spec: { targetCPUUtilizationPercentage: 60 } });
    const pb2 = await protobuf('GET', `${base('v2')}?fieldSelector=metadata.name%3Dmulti`);
    expect(pb2.body.kind).toBe('HorizontalPodAutoscalerList');
    expect(pb2.body['items'][0].spec.metrics).toHaveLength(2);
    const pbPut = await protobuf('PUT', `${base('v2')}/multi`, { ...pb2.body['items'][0], apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', spec: { ...pb2.body['items'][0].spec, minReplicas: 2 } });
    expect(pbPut.status).toBe(200);
    expect((await client.call('GET', `${base('v1')}/multi`)).json.spec.minReplicas).toBe(2);
    // autoscaling/v2beta2 is still served by default, with upstream's deprecation Warning.
    const beta = await kubectl(server, ['get', 'horizontalpodautoscalers.v2beta2.autoscaling', 'multi', '-o', 'yaml']);
    expect(beta.stderr).toContain('Warning: autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler');
    expect(parseYaml(beta.stdout)).toMatchObject({ apiVersion: 'autoscaling/v2beta2', spec: { minReplicas: 2, maxReplicas: 12 } });
    await ok(['delete', 'hpa', 'multi']);
  }, 120_000);
});

describe('core/v1 ComponentStatus', () => {
  test('a read-only, deprecated list reporting etcd health', async () => {
    const r = await kubectl(server, ['get', 'cs']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Warning: v1 ComponentStatus is deprecated in v1.19+');
    expect(r.stdout.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+MESSAGE\s+ERROR$/);
    expect(r.stdout).toMatch(/etcd-0\s+Healthy\s+\{"health":"true"/);
    const one = await client.call('GET', '/api/v1/componentstatuses/etcd-0');
    expect(one.status).toBe(200);
    expect(one.json.conditions).toEqual([{ type: 'Healthy', status: 'True', message: expect.stringContaining('"health":"true"') }]);
    expect((await client.call('GET', '/api/v1/componentstatuses?fieldSelector=metadata.name%3Dnope')).json.items).toEqual([]);
    const missing = await client.call('GET', '/api/v1/componentstatuses/nope');
    expect({ status: missing.status, reason: missing.json.reason, message: missing.json.message }).toEqual({ status: 404, reason: 'NotFound', message: 'componentstatuses "nope" not found' });
    const pb = await protobuf('GET', '/api/v1/componentstatuses');
    expect(pb.body.kind).toBe('ComponentStatusList');
    // Read-only: no create, update or delete.
    expect((await client.call('DELETE', '/api/v1/componentstatuses/etcd-0')).status).toBe(405);
    expect((await client.call('POST', '/api/v1/componentstatuses', { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' } })).status).toBe(405);
    const metrics = await client.raw('GET', '/metrics', {});
    expect(metrics.body.toString('utf8')).toMatch(/apiserver_requested_deprecated_apis\{group="",version="v1",resource="componentstatuses",subresource="",removed_release=""[^}]*\} 1/);
  }, 60_000);
});

describe('removed versions served again through --runtime-config (SPEC 9.4)', () => {
  test('batch/v1beta1 CronJob and storage.k8s.io/v1beta1 StorageClass round-trip with v1 over the same objects, with the Warning', async () => {
    const created = await kubectl(server, ['get', 'cronjobs.v1beta1.batch']);
    expect(created.stderr).toContain('Warning: batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob');
    const old = await client.call('POST', '/apis/batch/v1beta1/namespaces/default/cronjobs', {
      apiVersion: 'batch/v1beta1',
      kind: 'CronJob',
      metadata: { name: 'legacy' },
      spec: { schedule: '*/10 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } },
    });
    expect(old.status).toBe(201);
    expect(old.json.apiVersion).toBe('batch/v1beta1');
    const v1 = parseYaml(await ok(['get', 'cronjobs.v1.batch', 'legacy', '-o', 'yaml']));
    expect(v1.apiVersion).toBe('batch/v1');
    expect(v1.spec).toMatchObject({ schedule: '*/10 * * * *', concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    await ok(['patch', 'cronjob', 'legacy', '-p', '{"spec":{"suspend":true}}']);
    expect((await client.call('GET', '/apis/batch/v1beta1/namespaces/default/cronjobs/legacy')).json.spec.suspend).toBe(true);
    const bad = await client.call('POST', '/apis/batch/v1beta1/namespaces/default/cronjobs', { apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name: 'bad' }, spec: { schedule: 'often', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } } });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes[0].field).toBe('spec.schedule');

    await applyFile('sc-v1beta1.yaml', 'apiVersion: storage.k8s.io/v1beta1\nkind: StorageClass\nmetadata: {name: legacy}\nprovisioner: example.com/old\n');
    expect(parseYaml(await ok(['get', 'sc', 'legacy', '-o', 'yaml']))).toMatchObject({ apiVersion: 'storage.k8s.io/v1', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    await ok(['delete', 'cronjob', 'legacy']);
    await ok(['delete', 'sc', 'legacy']);
    // storage/v1beta1: CSIStorageCapacity is still served by default (deprecated in 1.24); the removed kinds only when asked.
    const discovery = (await client.call('GET', '/apis/storage.k8s.io/v1beta1')).json;
    expect(discovery.resources.map((r: { name: string }) => r.name).sort()).toEqual(['csistoragecapacities', 'storageclasses']);
    expect((await client.call('GET', '/apis/storage.k8s.io/v1beta1/volumeattachments')).status).toBe(404);
    const capacities = await kubectl(server, ['get', 'csistoragecapacities.v1beta1.storage.k8s.io', '-A']);
    expect(capacities.stderr).toContain('Warning: storage.k8s.io/v1beta1 CSIStorageCapacity is deprecated in v1.24+, unavailable in v1.27+; use storage.k8s.io/v1 CSIStorageCapacity');
  }, 60_000);

  test('networking.k8s.io/v1beta1 Ingress: backend, serviceName and servicePort converted to and from v1', async () => {
    const v1beta1 = '/apis/networking.k8s.io/v1beta1/namespaces/default/ingresses';
    const v1 = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
    const created = await client.call('POST', v1beta1, {
      apiVersion: 'networking.k8s.io/v1beta1',
      kind: 'Ingress',
      metadata: { name: 'old' },
      spec: {
        backend: { serviceName: 'default-web', servicePort: 8080 },
        rules: [{ host: 'a.example.com', http: { paths: [{ path: '/api', backend: { serviceName: 'api', servicePort: 'http' } }] } }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.json.apiVersion).toBe('networking.k8s.io/v1beta1');
    expect(created.json.spec.rules[0].http.paths[0]).toEqual({ path: '/api', pathType: 'ImplementationSpecific', backend: { serviceName: 'api', servicePort: 'http' } });
    const asV1 = (await client.call('GET', `${v1}/old`)).json;
    expect(asV1.spec).toEqual({
      defaultBackend: { service: { name: 'default-web', port: { number: 8080 } } },
      rules: [{ host: 'a.example.com', http: { paths: [{ path: '/api', pathType: 'ImplementationSpecific', backend: { service: { name: 'api', port: { name: 'http' } } } }] } }],
    });
    // A v1 write reads back through v1beta1.
    asV1.spec.defaultBackend.service.port = { name: 'web' };
    expect((await client.call('PUT', `${v1}/old`, asV1)).status).toBe(200);
    const pb = await protobuf('GET', `${v1beta1}/old`);
    expect(pb.body).toMatchObject({ apiVersion: 'networking.k8s.io/v1beta1', kind: 'Ingress', spec: { backend: { serviceName: 'default-web', servicePort: 'web' } } });
    const r = await kubectl(server, ['get', 'ingresses.v1beta1.networking.k8s.io', 'old']);
    expect(r.stderr).toContain('Warning: networking.k8s.io/v1beta1 Ingress is deprecated in v1.19+, unavailable in v1.22+; use networking.k8s.io/v1 Ingress');
    expect(r.stdout).toMatch(/old\s+<none>\s+a.example.com\s+80/);
    const bad = await client.call('POST', v1beta1, { apiVersion: 'networking.k8s.io/v1beta1', kind: 'Ingress', metadata: { name: 'bad' }, spec: { backend: { serviceName: 'x', servicePort: 70000 } } });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes[0].field).toBe('spec.defaultBackend.service.port.number');
    // extensions/v1beta1 Ingress: the same objects and conversion, in the old group.
    const ext = await kubectl(server, ['get', 'ingresses.v1beta1.extensions', 'old', '-o', 'yaml']);
    expect(ext.stderr).toContain('Warning: extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1 Ingress');
    expect(parseYaml(ext.stdout)).toMatchObject({ apiVersion: 'extensions/v1beta1', spec: { backend: { serviceName: 'default-web', servicePort: 'web' } } });
    const extCreated = await protobuf('POST', '/apis/extensions/v1beta1/namespaces/default/ingresses', {
      apiVersion: 'extensions/v1beta1',
      kind: 'Ingress',
      metadata: { name: 'ext' },
      spec: { backend: { serviceName: 'svc', servicePort: 80 } },
    } as KubeObject);
    expect(extCreated.status).toBe(201);
    expect((await client.call('GET', `${v1}/ext`)).json.spec.defaultBackend).toEqual({ service: { name: 'svc', port: { number: 80 } } });
    await ok(['delete', 'ingress', 'old', 'ext']);
    // extensions/v1beta1 NetworkPolicy: networking/v1's schema in the old group.
    const np = await protobuf('POST', '/apis/extensions/v1beta1/namespaces/default/networkpolicies', {
      apiVersion: 'extensions/v1beta1',
      kind: 'NetworkPolicy',
      metadata: { name: 'legacy' },
      spec: { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }] },
    } as KubeObject);
    expect(np.status).toBe(201);
    expect(np.body.apiVersion).toBe('extensions/v1beta1');
    expect((await client.call('GET', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/legacy')).json.spec).toEqual({
      podSelector: { matchLabels: { app: 'db' } },
      ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }],
      policyTypes: ['Ingress'],
    });
    await ok(['delete', 'netpol', 'legacy']);
  }, 60_000);

  test('discovery.k8s.io/v1beta1 EndpointSlice: topology is v1\'s zone, nodeName and read-only deprecatedTopology', async () => {
    const v1beta1 = '/apis/discovery.k8s.io/v1beta1/namespaces/default/endpointslices';
    const v1 = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
    const topology = { 'topology.kubernetes.io/zone': 'a', 'kubernetes.io/hostname': 'node-1', 'example.com/rack': 'r7' };
    const created = await client.call('POST', v1beta1, {
      apiVersion: 'discovery.k8s.io/v1beta1',
      kind: 'EndpointSlice',
      metadata: { name: 'old' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.2.3'], nodeName: 'node-1', topology }],
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
    });
    expect(created.status).toBe(201);
    expect(created.json.endpoints[0].topology).toEqual(topology);
    const asV1 = (await client.call('GET', `${v1}/old`)).json;
    expect(asV1.endpoints[0]).toMatchObject({ addresses: ['10.1.2.3'], nodeName: 'node-1', zone: 'a', deprecatedTopology: { 'example.com/rack': 'r7' } });
    // A v1 update leaving the endpoints alone keeps deprecatedTopology; changing them drops it (read-only at v1).
    asV1.metadata.labels = { touched: 'yes' };
    const kept = await client.call('PUT', `${v1}/old`, asV1);
    expect(kept.json.endpoints[0].deprecatedTopology).toEqual({ 'example.com/rack': 'r7' });
    kept.json.endpoints[0].addresses = ['10.1.2.4'];
    const dropped = await client.call('PUT', `${v1}/old`, kept.json);
    expect(dropped.json.endpoints[0].deprecatedTopology).toBeUndefined();
    const back = await protobuf('GET', `${v1beta1}/old`);
    expect(back.body['endpoints'][0].topology).toEqual({ 'topology.kubernetes.io/zone': 'a', 'kubernetes.io/hostname': 'node-1' });
    await ok(['delete', 'endpointslices.v1.discovery.k8s.io', 'old']);
  }, 60_000);

  test('autoscaling/v2beta1 HorizontalPodAutoscaler: its metric shapes, and v2 behavior in an annotation', async () => {
    const v2beta1 = '/apis/autoscaling/v2beta1/namespaces/default/horizontalpodautoscalers';
    const v2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
    const created = await client.call('POST', v2beta1, {
      apiVersion: 'autoscaling/v2beta1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'beta' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 5, metrics: [{ type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '100' } }] },
    });
    expect(created.status).toBe(201);
    expect(created.json.spec).toEqual({ scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '100' } }] });
    const asV2 = (await client.call('GET', `${v2}/beta`)).json;
    expect(asV2.spec.metrics).toEqual([{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '100' } } }]);
    asV2.spec.behavior = { scaleDown: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } };
    expect((await client.call('PUT', `${v2}/beta`, asV2)).status).toBe(200);
    const read = (await client.call('GET', `${v2beta1}/beta`)).json;
    expect(JSON.parse(read.metadata.annotations['autoscaling.alpha.kubernetes.io/behavior']).scaleDown.policies).toEqual([{ type: 'Pods', value: 1, periodSeconds: 60 }]);
    read.spec.maxReplicas = 7;
    expect((await client.call('PUT', `${v2beta1}/beta`, read)).status).toBe(200);
    const after = (await protobuf('GET', `${v2}/beta`)).body;
    expect(after.metadata.annotations).toBeUndefined();
    expect(after['spec']).toMatchObject({ maxReplicas: 7, behavior: { scaleDown: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } } });
    const bad = await client.call('POST', v2beta1, { apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 0 } }] } });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes[0].field).toBe('spec.metrics[0].resource.target.averageUtilization');
    await ok(['delete', 'hpa', 'beta']);
  }, 60_000);

  test('apps/v1beta2 Deployment: apps/v1 schema and defaults over the same objects', async () => {
    const created = await client.call('POST', '/apis/apps/v1beta2/namespaces/default/deployments', {
      apiVersion: 'apps/v1beta2',
      kind: 'Deployment',
      metadata: { name: 'beta2' },
      spec: { selector: { matchLabels: { app: 'b' } }, template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    expect(created.status).toBe(201);
    expect(created.json.spec).toMatchObject({ replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } });
    const r = await kubectl(server, ['get', 'deployments.v1beta2.apps', 'beta2']);
    expect(r.stderr).toContain('Warning: apps/v1beta2 Deployment is deprecated in v1.9+, unavailable in v1.16+; use apps/v1 Deployment');
    expect(parseYaml(await ok(['get', 'deployments.v1.apps', 'beta2', '-o', 'yaml'])).apiVersion).toBe('apps/v1');
    const noSelector = await client.call('POST', '/apis/apps/v1beta2/namespaces/default/deployments', {
      apiVersion: 'apps/v1beta2',
      kind: 'Deployment',
      metadata: { name: 'nosel' },
      spec: { template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    expect(noSelector.status).toBe(422);
    expect(noSelector.json.details.causes.map((c: { field: string }) => c.field)).toContain('spec.selector');
    await ok(['delete', 'deployment', 'beta2']);
  }, 60_000);

  test('extensions/v1beta1 and apps/v1beta1 workloads: their old defaults, a selector from the template, rollbackTo refused', async () => {
    const template = { metadata: { labels: { app: 'old' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const ext = await client.call('POST', '/apis/extensions/v1beta1/namespaces/default/deployments', { apiVersion: 'extensions/v1beta1', kind: 'Deployment', metadata: { name: 'ext' }, spec: { template } });
    expect(ext.status).toBe(201);
    expect(ext.json.spec).toMatchObject({
      selector: { matchLabels: { app: 'old' } },
      replicas: 1,
      revisionHistoryLimit: 2147483647,
      progressDeadlineSeconds: 2147483647,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
    });
    expect(ext.json.metadata.labels).toEqual({ app: 'old' });
    const v1 = (await client.call('GET', '/apis/apps/v1/namespaces/default/deployments/ext')).json;
    expect(v1.apiVersion).toBe('apps/v1');
    expect(v1.spec.selector).toEqual({ matchLabels: { app: 'old' } });
    const r = await kubectl(server, ['get', 'deployments.v1beta1.extensions', 'ext']);
    expect(r.stderr).toContain('Warning: extensions/v1beta1 Deployment is deprecated in v1.8+, unavailable in v1.16+; use apps/v1 Deployment');
    const rollback = await client.call('POST', '/apis/apps/v1beta1/namespaces/default/deployments', { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'rb' }, spec: { template, rollbackTo: { revision: 1 } } });
    expect(rollback.status).toBe(422);
    expect(rollback.json.details.causes[0].field).toBe('spec.rollbackTo');
    const beta1 = await client.call('POST', '/apis/apps/v1beta1/namespaces/default/deployments', { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'b1' }, spec: { template } });
    expect(beta1.json.spec).toMatchObject({ revisionHistoryLimit: 2, progressDeadlineSeconds: 600, strategy: { rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } } });
    const sts = await client.call('POST', '/apis/apps/v1beta1/namespaces/default/statefulsets', { apiVersion: 'apps/v1beta1', kind: 'StatefulSet', metadata: { name: 's1' }, spec: { serviceName: 's1', template } });
    expect(sts.status).toBe(201);
    expect(sts.json.spec).toMatchObject({ updateStrategy: { type: 'OnDelete' }, podManagementPolicy: 'OrderedReady', selector: { matchLabels: { app: 'old' } } });
    const ds = await protobuf('POST', '/apis/extensions/v1beta1/namespaces/default/daemonsets', { apiVersion: 'extensions/v1beta1', kind: 'DaemonSet', metadata: { name: 'd1' }, spec: { template, templateGeneration: 3 } } as KubeObject);
    expect(ds.status).toBe(201);
    expect(ds.body['spec']).toMatchObject({ updateStrategy: { type: 'OnDelete' }, revisionHistoryLimit: 10 });
    expect(ds.body['spec'].templateGeneration).toBeUndefined();
    // A v1 Deployment reads through the old versions too.
    expect((await client.call('GET', '/apis/apps/v1beta1/namespaces/default/deployments/ext')).json.apiVersion).toBe('apps/v1beta1');
    await ok(['delete', 'deployment', 'ext', 'b1']);
    await ok(['delete', 'statefulset', 's1']);
    await ok(['delete', 'daemonset', 'd1']);
  }, 60_000);

  test('policy/v1beta1 PodDisruptionBudget: an empty selector keeps its meaning across versions', async () => {
    const pdb = (v: string, name: string) => ({ apiVersion: `policy/${v}`, kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, selector: {} } });
    const v1beta1 = '/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets';
    const v1 = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
    // v1beta1's {} selects no pods: v1 reads a selector that matches none.
    expect((await client.call('POST', v1beta1, pdb('v1beta1', 'none'))).status).toBe(201);
    const none = (await client.call('GET', `${v1}/none`)).json;
    expect(none.spec.selector).toEqual({ matchExpressions: [{ key: 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match', operator: 'Exists' }] });
    expect((await client.call('GET', `${v1beta1}/none`)).json.spec.selector).toEqual({});
    // v1's {} selects all pods: v1beta1 reads a selector that matches all.
    expect((await client.call('POST', v1, pdb('v1', 'all'))).status).toBe(201);
    expect((await client.call('GET', `${v1beta1}/all`)).json.spec.selector).toEqual({ matchExpressions: [{ key: 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match', operator: 'DoesNotExist' }] });
    expect((await client.call('GET', `${v1}/all`)).json.spec.selector).toEqual({});
    // An update through v1beta1 of what it read keeps the stored meaning.
    const read = (await client.call('GET', `${v1beta1}/all`)).json;
    read.spec.minAvailable = 2;
    expect((await client.call('PUT', `${v1beta1}/all`, read)).status).toBe(200);
    expect((await client.call('GET', `${v1}/all`)).json.spec).toEqual({ minAvailable: 2, selector: {} });
    expect((await client.call('GET', `${v1beta1}?labelSelector=`)).json.items.map((i: KubeObject) => i.metadata.name).sort()).toEqual(['all', 'none']);
    await ok(['delete', 'pdb', 'none', 'all']);
  }, 60_000);
});
