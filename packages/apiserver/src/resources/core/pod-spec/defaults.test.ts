import { defaultPodOnlySpec, defaultPodSpec, defaultPullPolicy } from './defaults.js';
import type { PodSpec } from './types.js';

describe('defaultPullPolicy', () => {
  test.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.25', 'IfNotPresent'],
    ['registry.example:5000/team/app', 'Always'],
    ['registry.example:5000/team/app:v2', 'IfNotPresent'],
    ['nginx@sha256:0123', 'IfNotPresent'],
    ['', 'Always'],
  ])('%s -> %s', (image, policy) => {
    expect(defaultPullPolicy(image)).toBe(policy);
  });
});

describe('defaultPodSpec', () => {
  test('fills what upstream fills and keeps what is set', () => {
    const spec: PodSpec = {
      restartPolicy: 'Never',
      containers: [{ name: 'c', image: 'x:1', ports: [{ containerPort: 80 }], env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }],
      volumes: [{ name: 'a' }, { name: 'b', secret: { secretName: 's' } }, { name: 'c', hostPath: { path: '/x' } }],
    };
    defaultPodSpec(spec);
    expect(spec).toMatchObject({
      restartPolicy: 'Never',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
    });
    expect(spec.enableServiceLinks).toBeUndefined();
    expect(spec.containers![0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } }],
    });
    expect(spec.volumes).toEqual([
      { name: 'a', emptyDir: {} },
      { name: 'b', secret: { secretName: 's', defaultMode: 420 } },
      { name: 'c', hostPath: { path: '/x', type: '' } },
    ]);
  });

  test('projected tokens, downward API references and ephemeral claims get their defaults', () => {
    const spec: PodSpec = {
      containers: [{ name: 'c', image: 'x' }],
      volumes: [
        {
          name: 'p',
          projected: { sources: [{ serviceAccountToken: { path: 't' } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } }] },
        },
        { name: 'e', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'] } } } },
      ],
    };
    defaultPodSpec(spec);
    expect(spec.volumes![0]).toEqual({
      name: 'p',
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { path: 't', expirationSeconds: 3600 } },
          { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } }] } },
        ],
      },
    });
    expect(spec.volumes![1]).toEqual({ name: 'e', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem' } } } });
  });

  test('pods also get enableServiceLinks and requests from limits', () => {
    const spec: PodSpec = { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } }] };
    defaultPodOnlySpec(spec);
    expect(spec.enableServiceLinks).toBe(true);
    expect(spec.containers![0]!.resources!.requests).toEqual({ cpu: '500m', memory: '1Gi' });
  });
});
