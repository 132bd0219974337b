import type { KubeObject } from '../../meta/types.js';
import { decodeProtobufObject, encodeProtobufObject } from './index.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

const PEM_REQUEST = '-----BEGIN CERTIFICATE REQUEST-----\nMIIBYzCCAQgCAQAw\n-----END CERTIFICATE REQUEST-----\n';

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'cm',
    namespace: 'demo',
    uid: '6f1c2a3e-0000-4000-8000-000000000001',
    resourceVersion: '42',
    creationTimestamp: '2024-01-02T03:04:05Z',
    labels: { app: 'web', tier: 'front' },
    annotations: { 'k8s.io/note': 'hello' },
    ownerReferences: [
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        name: 'demo',
        uid: '6f1c2a3e-0000-4000-8000-000000000002',
        controller: true,
        blockOwnerDeletion: false,
      },
    ],
    finalizers: ['example.com/keep'],
    managedFields: [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2024-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      },
      { manager: 'mgr-a', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {}, subresource: 'status' },
    ],
  },
  immutable: false,
  data: { a: 'b', 'config.yaml': 'x: 1\n' },
  binaryData: { bin: Buffer.from([0, 1, 2, 254, 255]).toString('base64') },
};

const cases: Array<[string, Record<string, unknown>]> = [
  ['ConfigMap with binaryData, labels, annotations, managedFields, ownerReferences', configMap],
  [
    'Namespace with finalizers and phase',
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'demo', creationTimestamp: '2024-01-02T03:04:05Z', generation: 3 },
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Terminating',
        conditions: [
          {
            type: 'NamespaceDeletionContentFailure',
            status: 'False',
            lastTransitionTime: '2024-02-03T04:05:06Z',
            reason: 'ContentDeleted',
            message: 'All content successfully deleted',
          },
        ],
      },
    },
  ],
  [
    'Status with details and causes',
    {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message: 'ConfigMap "x" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of ...',
      reason: 'Invalid',
      details: {
        name: 'x',
        kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "a b"', field: 'data[a b]' }],
        retryAfterSeconds: 1,
      },
      code: 422,
    },
  ],
  ['Status without details', { apiVersion: 'v1', kind: 'Status', metadata: { resourceVersion: '7' }, status: 'Success', code: 200 }],
  [
    'ConfigMapList',
    {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '100', continue: 'token', remainingItemCount: 0 },
      items: [
        { metadata: { name: 'one', namespace: 'demo', creationTimestamp: '2024-01-02T03:04:05Z' }, data: { a: 'b' } },
        { metadata: { name: 'two', namespace: 'demo', creationTimestamp: '2024-01-02T03:04:06Z' }, immutable: true },
      ],
    },
  ],
  [
    'SelfSubjectAccessReview',
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: {
          namespace: 'demo',
          verb: 'list',
          resource: 'configmaps',
          labelSelector: { requirements: [{ key: 'app', operator: 'In', values: ['web'] }] },
        },
      },
      status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "x/demo"' },
    },
  ],
  [
    'SubjectAccessReview with extra and a non-resource request',
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'alice', groups: ['dev'], extra: { scopes: ['a', 'b'] }, uid: 'u1' },
      status: { allowed: false, denied: true, evaluationError: 'oops' },
    },
  ],
  [
    'Lease with MicroTime',
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader', namespace: 'kube-system', creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: {
        holderIdentity: 'node-a',
        leaseDurationSeconds: 15,
        acquireTime: '2024-01-02T03:04:00.000001Z',
        renewTime: '2024-01-02T03:04:05.123456Z',
        leaseTransitions: 0,
      },
    },
  ],
  [
    'CertificateSigningRequest',
    {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'csr-1', creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: {
        request: b64(PEM_REQUEST),
        signerName: 'k8s.io/api-server-client',
        expirationSeconds: 600,
        usages: ['digital signature', 'client auth'],
        username: 'alice',
        groups: ['system:authenticated'],
        extra: { 'example.com/scope': ['x'] },
      },
      status: {
        conditions: [
          {
            type: 'Approved',
            status: 'True',
            reason: 'AutoApproved',
            message: 'ok',
            lastUpdateTime: '2024-01-02T03:05:00Z',
            lastTransitionTime: '2024-01-02T03:05:00Z',
          },
        ],
        certificate: b64('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'),
      },
    },
  ],
  [
    'Secret',
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'demo', creationTimestamp: '2024-01-02T03:04:05Z' },
      type: 'Opaque',
      data: { password: b64('hunter2') },
      immutable: true,
    },
  ],
  [
    'ServiceAccount',
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default', namespace: 'demo', creationTimestamp: '2024-01-02T03:04:05Z' },
      secrets: [{ kind: 'Secret', name: 'token' }],
      imagePullSecrets: [{ name: 'pull' }],
      automountServiceAccountToken: false,
    },
  ],
  [
    'ClusterRole with aggregationRule',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'view', creationTimestamp: '2024-01-02T03:04:05Z' },
      rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-view': 'true' } }] },
    },
  ],
  [
    'RoleBinding',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'demo', creationTimestamp: '2024-01-02T03:04:05Z' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }, { kind: 'ServiceAccount', name: 'default', namespace: 'demo' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'editor' },
    },
  ],
  [
    'TokenReview',
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: { token: 'abc', audiences: ['api'] },
      status: { authenticated: true, user: { username: 'alice', uid: '1', groups: ['g'], extra: { k: ['v'] } }, audiences: ['api'] },
    },
  ],
  [
    'SelfSubjectRulesReview',
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: { creationTimestamp: null },
      spec: { namespace: 'demo' },
      status: {
        resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] }],
        incomplete: false,
        evaluationError: 'webhook: no rules',
      },
    },
  ],
  [
    'SelfSubjectReview',
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: '2024-01-02T03:04:05Z' },
      status: { userInfo: { username: 'alice', uid: '1', groups: ['g', 'system:authenticated'], extra: { scopes: ['a'] } } },
    },
  ],
  [
    'TokenRequest',
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { name: 'default', namespace: 'demo', creationTimestamp: null },
      spec: { audiences: ['api'], expirationSeconds: 3600, boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'u' } },
      status: { token: 'jwt', expirationTimestamp: '2024-01-02T04:04:05Z' },
    },
  ],
  [
    'DeleteOptions',
    {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u', resourceVersion: '5' },
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    },
  ],
  [
    'Pod with inline structs (volume source, key selectors, probe handler), IntOrString and Quantity',
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'demo', creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: {
        volumes: [
          { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
          { name: 'cfg', configMap: { name: 'cm', defaultMode: 420, optional: false } },
        ],
        containers: [
          {
            name: 'c',
            image: 'nginx:1.25',
            ports: [{ containerPort: 80, protocol: 'TCP' }],
            env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
            resources: { limits: { cpu: '500m' }, requests: { cpu: '500m', memory: '64Mi' } },
            readinessProbe: { httpGet: { path: '/', port: 'http', scheme: 'HTTP' }, periodSeconds: 10 },
            livenessProbe: { tcpSocket: { port: 8080 } },
            terminationMessagePath: '/dev/termination-log',
            imagePullPolicy: 'IfNotPresent',
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        securityContext: {},
        enableServiceLinks: true,
      },
      status: { phase: 'Pending', qosClass: 'Burstable' },
    },
  ],
  [
    'Deployment with a rolling update strategy',
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'demo', creationTimestamp: '2024-01-02T03:04:05Z', generation: 2 },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { creationTimestamp: null, labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx', resources: {} }] } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      },
      status: {},
    },
  ],
  [
    'ControllerRevision with embedded data',
    {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'rev', namespace: 'demo', creationTimestamp: '2024-01-02T03:04:05Z' },
      data: { spec: { template: { metadata: { labels: { a: 'b' } } } } },
      revision: 3,
    },
  ],
  [
    'Scale (the zero status replicas is always shown)',
    {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'demo', creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: { replicas: 3 },
      status: { replicas: 0, selector: 'app=web' },
    },
  ],
];

describe('JSON -> Protobuf -> JSON', () => {
  test.each(cases)('%s round-trips unchanged', (_name, obj) => {
    const bytes = encodeProtobufObject(obj as KubeObject);
    expect(decodeProtobufObject(bytes)).toEqual(obj);
  });

  test('the JSON form follows Go: value structs and zero Times appear, zero scalars do not', () => {
    const decoded = decodeProtobufObject(
      encodeProtobufObject({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {} }),
    );
    expect(decoded).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec: {},
      status: { allowed: false },
    });
  });

  test('a Time with fractional seconds is shown with second precision, as upstream', () => {
    const decoded = decodeProtobufObject(
      encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { creationTimestamp: '2024-01-02T05:04:05.999+02:00' } }),
    );
    expect(decoded.metadata.creationTimestamp).toBe('2024-01-02T03:04:05Z');
  });

  test('an inline struct is one nested message on the wire and flat in JSON', () => {
    const volume = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { volumes: [{ name: 'v', emptyDir: {} }] } };
    const bytes = Buffer.from(encodeProtobufObject(volume));
    // Volume{name = 1, volumeSource = 2 {emptyDir = 2 {medium = 1 ""}}}: value strings are always written.
    expect(bytes.includes(Buffer.from([0x0a, 0x01, 0x76, 0x12, 0x04, 0x12, 0x02, 0x0a, 0x00]))).toBe(true);
    const back = decodeProtobufObject(bytes) as unknown as { spec: { volumes: unknown[] } };
    expect(back.spec.volumes).toEqual([{ name: 'v', emptyDir: {} }]);
  });

  test('binaryData bytes survive as bytes, not text', () => {
    const decoded = decodeProtobufObject(encodeProtobufObject(configMap as KubeObject));
    const bin = (decoded['binaryData'] as Record<string, string>)['bin'] ?? '';
    expect([...Buffer.from(bin, 'base64')]).toEqual([0, 1, 2, 254, 255]);
  });

  test('apiDomain renames the groups', () => {
    const lease = { apiVersion: 'coordination.example.com/v1', kind: 'Lease', metadata: { name: 'l', creationTimestamp: null }, spec: {} };
    const opts = { apiDomain: 'example.com' };
    expect(decodeProtobufObject(encodeProtobufObject(lease, opts), opts)).toEqual(lease);
  });
});
