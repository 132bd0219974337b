import type { KubeObject } from '../../meta/types.js';
import { decodeProtobufObject, encodeProtobufObject } from './index.js';

// Request bodies stock kubectl 1.32 sent (`-v=9`) for:
const KUBECTL = {
  // kubectl autoscale deployment web --min=2 --max=5 --cpu-percent=70 (autoscaling/v1)
  hpa: '6b3873000a290a0e6175746f7363616c696e672f76311217486f72697a6f6e74616c506f644175746f7363616c6572123f0a130a0377656212001a0022002a0032003800420012220a1a0a0a4465706c6f796d656e7412037765621a07617070732f76311002180520461a04180020001a002200',
  // kubectl create priorityclass high --value=1000 --description=important --preemption-policy=Never
  priorityClass:
    '6b3873000a250a147363686564756c696e672e6b38732e696f2f7631120d5072696f72697479436c617373122d0a140a046869676812001a0022002a0032003800420010e80718002209696d706f7274616e742a054e657665721a002200',
};

const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: '6f1c2a3e-0000-4000-8000-000000000001',
  resourceVersion: '7',
  creationTimestamp: '2024-01-02T03:04:05Z',
  labels: { app: 'web' },
});
const selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] };

// Most fields of each kind set, so a field missing from the .proto (or numbered wrongly against
// another field's type) fails the round trip.
const cases: Array<[string, Record<string, unknown>]> = [
  ['PriorityClass', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: meta('high'), value: 1000, globalDefault: true, description: 'd', preemptionPolicy: 'Never' }],
  [
    'PersistentVolume',
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: meta('pv1'),
      spec: {
        capacity: { storage: '5Gi' },
        csi: { driver: 'csi.example.com', volumeHandle: 'h1', readOnly: true, fsType: 'ext4', volumeAttributes: { a: 'b' }, nodePublishSecretRef: { name: 's', namespace: 'ns' } },
        accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'c', uid: 'u', apiVersion: 'v1', resourceVersion: '3' },
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: 'fast',
        mountOptions: ['ro'],
        volumeMode: 'Block',
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } },
      },
      status: { phase: 'Bound', message: 'm', reason: 'r' },
    },
  ],
  [
    'StorageClass',
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: meta('fast'),
      provisioner: 'example.com/x',
      parameters: { type: 'ssd' },
      reclaimPolicy: 'Retain',
      mountOptions: ['debug'],
      allowVolumeExpansion: true,
      volumeBindingMode: 'WaitForFirstConsumer',
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a', 'b'] }] }],
    },
  ],
  [
    'CSIDriver',
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIDriver',
      metadata: meta('csi.example.com'),
      spec: {
        attachRequired: true,
        podInfoOnMount: false,
        volumeLifecycleModes: ['Persistent', 'Ephemeral'],
        storageCapacity: true,
        fsGroupPolicy: 'File',
        tokenRequests: [{ audience: 'vault', expirationSeconds: 3600 }],
        requiresRepublish: false,
      },
    },
  ],
  [
    'CSINode',
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: meta('node-1'),
      spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1', topologyKeys: ['zone'], allocatable: { count: 8 } }] },
    },
  ],
  [
    'VolumeAttachment',
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: meta('va'),
      spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv1' }, nodeName: 'node-1' },
      status: { attached: true, attachmentMetadata: { dev: '/dev/sdb' }, attachError: { time: '2024-01-02T03:04:05Z', message: 'm' } },
    },
  ],
  [
    'CSIStorageCapacity',
    { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: meta('cap', 'default'), nodeTopology: selector, storageClassName: 'fast', capacity: '10Gi', maximumVolumeSize: '1Gi' },
  ],
  [
    'HorizontalPodAutoscaler (autoscaling/v2)',
    {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: meta('web', 'default'),
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
          { type: 'Pods', pods: { metric: { name: 'qps', selector }, target: { type: 'AverageValue', averageValue: '1k' } } },
          { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, target: { type: 'Value', value: '10k' }, metric: { name: 'rps' } } },
          { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } },
          { type: 'ContainerResource', containerResource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' }, container: 'app' } },
        ],
        behavior: {
          scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] },
          scaleDown: { selectPolicy: 'Min', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] },
        },
      },
      status: {
        observedGeneration: 3,
        lastScaleTime: '2024-01-02T03:04:05Z',
        currentReplicas: 3,
        desiredReplicas: 4,
        currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 42 } } }],
        conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'ReadyForNewScale', message: 'ok' }],
      },
    },
  ],
  [
    'HorizontalPodAutoscaler (autoscaling/v1)',
    {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: meta('web', 'default'),
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 },
      status: { observedGeneration: 3, lastScaleTime: '2024-01-02T03:04:05Z', currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 42 },
    },
  ],
];

describe('Protobuf form of the scheduling, storage, volume and autoscaling kinds', () => {
  test.each(cases)('%s round-trips unchanged', (_name, obj) => {
    expect(decodeProtobufObject(encodeProtobufObject(obj as KubeObject))).toEqual(obj);
  });

  test.each(Object.entries(KUBECTL))('the %s kubectl sends decodes and encodes back to the same bytes', (_name, body) => {
    expect(hex(encodeProtobufObject(decodeProtobufObject(bytes(body))))).toBe(body);
  });

  test('what kubectl sent decodes to the fields it set', () => {
    expect(decodeProtobufObject(bytes(KUBECTL.hpa))['spec']).toEqual({
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      minReplicas: 2,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 70,
    });
    expect(decodeProtobufObject(bytes(KUBECTL.priorityClass))).toMatchObject({ value: 1000, description: 'important', preemptionPolicy: 'Never' });
  });
});
