import type { KubeObject } from '../../meta/types.js';
import { decodeProtobufObject, encodeProtobufObject } from './index.js';

// Request bodies stock kubectl 1.32 sent (`-v=9`) for:
const KUBECTL = {
  // kubectl create job jj2 --image=busybox -- true
  job: '6b3873000a0f0a0862617463682f763112034a6f621282010a130a036a6a3212001a0022002a003200380042001261325f0a100a0012001a0022002a00320038004200124b12280a036a6a32120762757379626f781a04747275652a0042006a007200800100880100900100a201001a054e65766572320042004a0052005800600068008201008a01009a0100c201001a082000280030003a001a002200',
  // kubectl create cronjob cj3 --image=busybox --schedule='*/5 * * * *' -- date
  cronJob:
    '6b3873000a130a0862617463682f7631120743726f6e4a6f6212a7010a130a03636a3312001a0022002a00320038004200128d010a0b2a2f35202a202a202a202a1a002a7c0a130a03636a3312001a0022002a00320038004200126532630a100a0012001a0022002a00320038004200124f12280a03636a33120762757379626f781a04646174652a0042006a007200800100880100900100a201001a094f6e4661696c757265320042004a0052005800600068008201008a01009a0100c201001a001a002200',
  // kubectl create pdb pp --selector=app=web --min-available=50%
  pdb: '6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e427564676574123b0a120a02707012001a0022002a0032003800420012190a09080110001a03353025120c0a0a0a0361707012037765621a0a080018002000280030001a002200',
  // kubectl create ingress ii --class=nginx --rule='a.example.com/api*=api:http,tls=cert'
  ingress:
    '6b3873000a1f0a146e6574776f726b696e672e6b38732e696f2f76311207496e677265737312700a120a02696912001a0022002a00320038004200125612150a0d612e6578616d706c652e636f6d1204636572741a360a0d612e6578616d706c652e636f6d12250a230a210a042f6170691211220f0a0361706912080a046874747010001a0650726566697822056e67696e781a020a001a002200',
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
// In the shape Go gives it: a template's metadata and a container's resources are value fields.
const template = {
  metadata: { creationTimestamp: null, labels: { app: 'web' } },
  spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['true'], resources: {} }] },
};

// Every field of each kind set, so a field missing from the .proto (or numbered wrongly against
// another field's type) fails the round-trip.
const cases: Array<[string, Record<string, unknown>]> = [
  [
    'Job (every spec and status field)',
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: meta('pi', 'default'),
      spec: {
        parallelism: 2,
        completions: 4,
        activeDeadlineSeconds: 600,
        podFailurePolicy: {
          rules: [
            { action: 'FailJob', onExitCodes: { containerName: 'c', operator: 'In', values: [1, 2] } },
            { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
          ],
        },
        successPolicy: { rules: [{ succeededIndexes: '0-2', succeededCount: 2 }] },
        backoffLimit: 6,
        backoffLimitPerIndex: 1,
        maxFailedIndexes: 2,
        selector: { matchLabels: { app: 'web' } },
        manualSelector: true,
        template,
        ttlSecondsAfterFinished: 100,
        completionMode: 'Indexed',
        suspend: false,
        podReplacementPolicy: 'Failed',
        managedBy: 'example.com/queue',
      },
      status: {
        conditions: [
          { type: 'Complete', status: 'True', lastProbeTime: '2024-01-02T03:04:05Z', lastTransitionTime: '2024-01-02T03:04:06Z', reason: 'Done', message: 'ok' },
        ],
        startTime: '2024-01-02T03:04:05Z',
        completionTime: '2024-01-02T03:05:05Z',
        active: 1,
        succeeded: 3,
        failed: 1,
        terminating: 0,
        completedIndexes: '0-2',
        failedIndexes: '3',
        uncountedTerminatedPods: { succeeded: ['u1'], failed: ['u2'] },
        ready: 1,
      },
    },
  ],
  [
    'CronJob',
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: meta('nightly', 'default'),
      spec: {
        schedule: '0 3 * * *',
        timeZone: 'Europe/Berlin',
        startingDeadlineSeconds: 30,
        concurrencyPolicy: 'Forbid',
        suspend: true,
        jobTemplate: { metadata: { creationTimestamp: null, labels: { app: 'web' } }, spec: { backoffLimit: 1, template } },
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
      },
      status: {
        active: [{ kind: 'Job', namespace: 'default', name: 'nightly-1', uid: 'u-1', apiVersion: 'batch/v1', resourceVersion: '3' }],
        lastScheduleTime: '2024-01-02T03:00:00Z',
        lastSuccessfulTime: '2024-01-02T03:01:00Z',
      },
    },
  ],
  [
    'PodDisruptionBudget',
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: meta('pdb', 'default'),
      spec: { minAvailable: '50%', selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] }, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
      status: {
        observedGeneration: 2,
        disruptedPods: { 'web-1': '2024-01-02T03:04:05Z' },
        disruptionsAllowed: 1,
        currentHealthy: 3,
        desiredHealthy: 2,
        expectedPods: 3,
        conditions: [{ type: 'DisruptionAllowed', status: 'True', observedGeneration: 2, lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'SufficientPods', message: '' }],
      },
    },
  ],
  [
    'Ingress (inline rule value, both backend kinds, status ports)',
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: meta('web', 'default'),
      spec: {
        ingressClassName: 'nginx',
        defaultBackend: { resource: { apiGroup: 'example.com', kind: 'Bucket', name: 'static' } },
        tls: [{ hosts: ['a.example.com'], secretName: 'cert' }],
        rules: [
          {
            host: 'a.example.com',
            http: {
              paths: [
                { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
                { path: '/api', pathType: 'Exact', backend: { service: { name: 'api', port: { name: 'http' } } } },
              ],
            },
          },
        ],
      },
      status: { loadBalancer: { ingress: [{ ip: '10.0.0.5', hostname: 'lb.example.com', ports: [{ port: 443, protocol: 'TCP', error: 'x' }] }] } },
    },
  ],
  [
    'IngressClass',
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: meta('nginx'),
      spec: { controller: 'example.com/ingress', parameters: { apiGroup: 'example.com', kind: 'Cfg', name: 'p', scope: 'Namespace', namespace: 'ops' } },
    },
  ],
  [
    'NetworkPolicy',
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: meta('np', 'default'),
      spec: {
        podSelector: { matchLabels: { app: 'web' } },
        ingress: [{ ports: [{ protocol: 'TCP', port: 80, endPort: 90 }, { protocol: 'UDP', port: 'dns' }], from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }],
        egress: [{ to: [{ podSelector: {}, namespaceSelector: { matchLabels: { team: 'a' } } }] }],
        policyTypes: ['Ingress', 'Egress'],
      },
    },
  ],
  [
    'RuntimeClass',
    {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: meta('gvisor'),
      handler: 'runsc',
      overhead: { podFixed: { cpu: '100m', memory: '20Mi' } },
      scheduling: { nodeSelector: { rt: 'gvisor' }, tolerations: [{ key: 'rt', operator: 'Equal', value: 'gvisor', effect: 'NoSchedule' }] },
    },
  ],
  [
    'ValidatingWebhookConfiguration',
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: meta('deny'),
      webhooks: [
        {
          name: 'deny.example.com',
          clientConfig: { url: 'https://127.0.0.1:8443/v', caBundle: 'Q0E=' },
          rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'pods/status'], scope: 'Namespaced' }],
          failurePolicy: 'Ignore',
          matchPolicy: 'Exact',
          namespaceSelector: { matchLabels: { team: 'a' } },
          objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
          sideEffects: 'None',
          timeoutSeconds: 5,
          admissionReviewVersions: ['v1', 'v1beta1'],
        },
      ],
    },
  ],
  [
    'MutatingWebhookConfiguration',
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: meta('label'),
      webhooks: [
        {
          name: 'label.example.com',
          clientConfig: { service: { namespace: 'ops', name: 'hook', path: '/mutate', port: 8443 } },
          rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/scale'], scope: '*' }],
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          namespaceSelector: {},
          objectSelector: {},
          sideEffects: 'NoneOnDryRun',
          timeoutSeconds: 10,
          admissionReviewVersions: ['v1'],
          reinvocationPolicy: 'IfNeeded',
        },
      ],
    },
  ],
];

describe('Protobuf form of batch, policy, networking and node kinds', () => {
  test.each(cases)('%s round-trips unchanged', (_name, obj) => {
    expect(decodeProtobufObject(encodeProtobufObject(obj as KubeObject))).toEqual(obj);
  });

  test.each(Object.entries(KUBECTL))('the %s kubectl sends decodes and encodes back to the same bytes', (_name, body) => {
    const obj = decodeProtobufObject(bytes(body));
    expect(hex(encodeProtobufObject(obj))).toBe(body);
  });

  test('the field numbers are upstream wire numbers: what kubectl sent decodes to the fields it set', () => {
    const job = decodeProtobufObject(bytes(KUBECTL.job)) as KubeObject & { spec: { template: { spec: { restartPolicy: string; containers: Array<{ image: string }> } } } };
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
    expect(job.spec.template.spec.containers[0]!.image).toBe('busybox');
    const cj = decodeProtobufObject(bytes(KUBECTL.cronJob)) as KubeObject & { spec: { schedule: string; jobTemplate: { metadata: { name: string } } } };
    expect(cj.spec.schedule).toBe('*/5 * * * *');
    expect(cj.spec.jobTemplate.metadata.name).toBe('cj3');
    expect(decodeProtobufObject(bytes(KUBECTL.pdb))['spec']).toEqual({ minAvailable: '50%', selector: { matchLabels: { app: 'web' } } });
    expect(decodeProtobufObject(bytes(KUBECTL.ingress))['spec']).toEqual({
      ingressClassName: 'nginx',
      tls: [{ hosts: ['a.example.com'], secretName: 'cert' }],
      rules: [{ host: 'a.example.com', http: { paths: [{ path: '/api', pathType: 'Prefix', backend: { service: { name: 'api', port: { name: 'http' } } } }] } }],
    });
  });
});
