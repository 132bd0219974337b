import type { KubeObject } from '../../meta/types.js';
import { decodeProtobufObject, encodeProtobufObject } from './index.js';

// Sent by stock kubectl 1.32 for `kubectl create service clusterip gold --tcp=80:8080`.
const KUBECTL_SERVICE =
  '6b3873000a0d0a027631120753657276696365126c0a210a04676f6c6412001a0022002a003200380042005a0b0a036170701204676f6c6412430a1b0a0738302d38303830120354435018502207080010903f1a002800120b0a036170701204676f6c641a002209436c757374657249503a00420052005a00600068001a020a001a002200';

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
const ref = { kind: 'Pod', namespace: 'default', name: 'p', uid: 'u-1', apiVersion: 'v1', resourceVersion: '3', fieldPath: 'spec.containers{c}' };

// Every field of each kind set, so a field missing from the .proto (or numbered wrongly against
// another field's type) fails the round-trip.
const cases: Array<[string, Record<string, unknown>]> = [
  [
    'Service (LoadBalancer, every spec and status field)',
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta('web', 'default'),
      spec: {
        ports: [
          { name: 'http', protocol: 'TCP', appProtocol: 'http', port: 80, targetPort: 8080, nodePort: 30080 },
          { name: 'dns', protocol: 'UDP', port: 53, targetPort: 'dns', nodePort: 30053 },
        ],
        selector: { app: 'web' },
        clusterIP: '10.0.0.10',
        clusterIPs: ['10.0.0.10'],
        type: 'LoadBalancer',
        externalIPs: ['192.168.0.9'],
        sessionAffinity: 'ClientIP',
        loadBalancerIP: '192.168.0.10',
        loadBalancerSourceRanges: ['10.1.0.0/16'],
        externalName: 'unused.example.com',
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: 30100,
        publishNotReadyAddresses: true,
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        allocateLoadBalancerNodePorts: false,
        loadBalancerClass: 'example.com/lb',
        internalTrafficPolicy: 'Cluster',
        trafficDistribution: 'PreferClose',
      },
      status: {
        loadBalancer: { ingress: [{ ip: '192.168.0.10', hostname: 'lb.example.com', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP', error: 'x' }] }] },
        conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2, lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'Up', message: 'ok' }],
      },
    },
  ],
  [
    'Endpoints',
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: meta('web', 'default'),
      subsets: [
        {
          addresses: [{ ip: '10.1.0.5', hostname: 'a', nodeName: 'n1', targetRef: ref }],
          notReadyAddresses: [{ ip: '10.1.0.6' }],
          ports: [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' }],
        },
      ],
    },
  ],
  [
    'Node (spec, status with quantities, conditions, addresses, images, node info)',
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: meta('n1'),
      spec: {
        podCIDR: '10.244.0.0/24',
        podCIDRs: ['10.244.0.0/24'],
        providerID: 'example://n1',
        unschedulable: true,
        taints: [{ key: 'a', value: 'b', effect: 'NoSchedule', timeAdded: '2024-01-02T03:04:05Z' }],
        configSource: { configMap: { namespace: 'cluster-system', name: 'cfg', uid: 'u', resourceVersion: '1', kubeletConfigKey: 'kubelet' } },
        externalID: 'ext',
      },
      status: {
        capacity: { cpu: '4', memory: '8Gi', pods: '110' },
        allocatable: { cpu: '3900m', memory: '7Gi', pods: '110' },
        phase: 'Running',
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            lastHeartbeatTime: '2024-01-02T03:04:05Z',
            lastTransitionTime: '2024-01-02T03:04:05Z',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
          },
        ],
        addresses: [
          { type: 'InternalIP', address: '192.168.1.5' },
          { type: 'Hostname', address: 'n1' },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: 'm',
          systemUUID: 's',
          bootID: 'b',
          kernelVersion: '6.1.0',
          osImage: 'Debian 12',
          containerRuntimeVersion: 'containerd://1.7.0',
          kubeletVersion: 'v1.32.0',
          kubeProxyVersion: 'v1.32.0',
          operatingSystem: 'linux',
          architecture: 'amd64',
          swap: { capacity: 1024 },
        },
        images: [{ names: ['registry.example.com/app:1'], sizeBytes: 12345 }],
        volumesInUse: ['vol-1'],
        volumesAttached: [{ name: 'vol-1', devicePath: '/dev/xvdb' }],
        config: {
          assigned: { configMap: { namespace: 'cluster-system', name: 'cfg', uid: 'u', resourceVersion: '1', kubeletConfigKey: 'kubelet' } },
          error: 'none',
        },
        runtimeHandlers: [{ name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: false } }],
        features: { supplementalGroupsPolicy: true },
      },
    },
  ],
  [
    'core/v1 Event (legacy and new-style fields)',
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: meta('e1', 'default'),
      involvedObject: ref,
      reason: 'Started',
      message: 'Started container c',
      source: { component: 'kubelet', host: 'n1' },
      firstTimestamp: '2024-01-02T03:04:05Z',
      lastTimestamp: '2024-01-02T03:05:05Z',
      count: 2,
      type: 'Normal',
      eventTime: '2024-01-02T03:04:05.123456Z',
      series: { count: 3, lastObservedTime: '2024-01-02T03:05:05.000001Z' },
      action: 'Starting',
      related: { kind: 'Node', name: 'n1' },
      reportingComponent: 'kubelet',
      reportingInstance: 'n1',
    },
  ],
  [
    'events/v1 Event',
    {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: meta('e1', 'default'),
      eventTime: '2024-01-02T03:04:05.123456Z',
      series: { count: 3, lastObservedTime: '2024-01-02T03:05:05.000001Z' },
      reportingController: 'k8s.io/kubelet',
      reportingInstance: 'n1',
      action: 'Starting',
      reason: 'Started',
      regarding: ref,
      related: { kind: 'Node', name: 'n1' },
      note: 'Started container c',
      type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'n1' },
      deprecatedFirstTimestamp: '2024-01-02T03:04:05Z',
      deprecatedLastTimestamp: '2024-01-02T03:05:05Z',
      deprecatedCount: 2,
    },
  ],
  [
    'LimitRange',
    {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: meta('limits', 'default'),
      spec: {
        limits: [
          {
            type: 'Container',
            max: { cpu: '2', memory: '1Gi' },
            min: { cpu: '100m' },
            default: { cpu: '500m' },
            defaultRequest: { cpu: '250m' },
            maxLimitRequestRatio: { cpu: '4' },
          },
        ],
      },
    },
  ],
  [
    'ResourceQuota',
    {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: meta('quota', 'default'),
      spec: {
        hard: { pods: '10', 'limits.cpu': '4' },
        scopes: ['NotTerminating'],
        scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
      },
      status: { hard: { pods: '10' }, used: { pods: '1' } },
    },
  ],
  [
    'discovery/v1 EndpointSlice',
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: meta('web-abc', 'default'),
      addressType: 'IPv4',
      endpoints: [
        {
          addresses: ['10.1.0.5'],
          conditions: { ready: true, serving: true, terminating: false },
          hostname: 'a',
          targetRef: ref,
          deprecatedTopology: { zone: 'z1' },
          nodeName: 'n1',
          zone: 'z1',
          hints: { forZones: [{ name: 'z1' }], forNodes: [{ name: 'n1' }] },
        },
      ],
      ports: [{ name: 'http', protocol: 'TCP', port: 8080, appProtocol: 'http' }],
    },
  ],
];

describe('Protobuf form of the cluster kinds (issue 20)', () => {
  test.each(cases)('%s round-trips unchanged', (_name, obj) => {
    expect(decodeProtobufObject(encodeProtobufObject(obj as KubeObject))).toEqual(obj);
  });

  test('the Service kubectl sends decodes to its JSON form and encodes back to the same bytes', () => {
    const obj = decodeProtobufObject(bytes(KUBECTL_SERVICE));
    expect(obj).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'gold', creationTimestamp: null, labels: { app: 'gold' } },
      spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'gold' }, type: 'ClusterIP' },
      status: { loadBalancer: {} },
    });
    expect(hex(encodeProtobufObject(obj))).toBe(KUBECTL_SERVICE);
  });

  test('an empty events/v1 Event shows the value fields Go writes: eventTime, regarding and the deprecated ones', () => {
    const empty = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' } };
    const ev = {
      ...empty,
      metadata: { ...empty.metadata, creationTimestamp: null },
      eventTime: null,
      regarding: {},
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    };
    expect(decodeProtobufObject(encodeProtobufObject(empty as KubeObject))).toEqual(ev);
    expect(decodeProtobufObject(encodeProtobufObject(ev as KubeObject))).toEqual(ev);
  });

  test('groups follow --api-domain', () => {
    const opts = { apiDomain: 'example.org' };
    const ev = {
      apiVersion: 'events.example.org/v1',
      kind: 'Event',
      metadata: { name: 'e', creationTimestamp: null },
      eventTime: null,
      regarding: {},
      note: 'n',
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    };
    expect(decodeProtobufObject(encodeProtobufObject(ev as KubeObject, opts), opts)).toEqual(ev);
  });
});
