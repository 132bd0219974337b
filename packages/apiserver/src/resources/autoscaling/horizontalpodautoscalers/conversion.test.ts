import { hpaV1ToV2, hpaV2ToV1 } from './conversion.js';
import type { HPAV2 } from './types.js';

const v2: HPAV2 = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', annotations: { keep: 'me' } },
  spec: {
    scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, target: { type: 'AverageValue', value: '0', averageValue: '5' }, metric: { name: 'rps' } } },
      { type: 'External', external: { metric: { name: 'queue', selector: { matchLabels: { q: 'jobs' } } }, target: { type: 'Value', value: '30' } } },
      { type: 'ContainerResource', containerResource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' }, container: 'app' } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
    ],
    behavior: { scaleDown: { selectPolicy: 'Min', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] } },
  },
  status: {
    currentReplicas: 3,
    desiredReplicas: 4,
    currentMetrics: [
      { type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: '7' } } },
      { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 42 } } },
    ],
    conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'ReadyForNewScale', message: 'ok' }],
  },
};

describe('autoscaling v1 <-> v2 conversion (upstream pkg/apis/autoscaling/v1)', () => {
  test('v1 carries the CPU target in its own fields and the rest in annotations, in upstream JSON shapes', () => {
    const v1 = hpaV2ToV1(v2, 'autoscaling/v1');
    expect(v1.spec).toEqual({ scaleTargetRef: v2.spec!.scaleTargetRef, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 50 });
    expect(v1.status).toEqual({ currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 42 });
    const a = v1.metadata.annotations!;
    expect(a['keep']).toBe('me');
    expect(a['autoscaling.alpha.kubernetes.io/metrics']).toBe(
      '[{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"rps","targetValue":"0","averageValue":"5"}},' +
        '{"type":"External","external":{"metricName":"queue","metricSelector":{"matchLabels":{"q":"jobs"}},"targetValue":"30"}},' +
        '{"type":"ContainerResource","containerResource":{"name":"memory","targetAverageValue":"100Mi","container":"app"}}]',
    );
    expect(a['autoscaling.alpha.kubernetes.io/current-metrics']).toBe(
      '[{"type":"Pods","pods":{"metricName":"qps","currentAverageValue":"7"}},{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":42,"currentAverageValue":"120m"}}]',
    );
    expect(a['autoscaling.alpha.kubernetes.io/behavior']).toBe('{"scaleDown":{"selectPolicy":"Min","policies":[{"type":"Percent","value":10,"periodSeconds":60}]}}');
  });

  test('v2 -> v1 -> v2 loses nothing (the CPU metric moves last, as upstream appends it)', () => {
    const back = hpaV1ToV2(hpaV2ToV1(v2, 'autoscaling/v1'), 'autoscaling/v2');
    const metrics = v2.spec!.metrics!;
    expect(back).toEqual({ ...v2, spec: { ...v2.spec, metrics: [...metrics.slice(0, 3), metrics[3]] } });
  });

  test('a plain v1 object: no CPU target means the 80% default; an unreadable annotation is ignored', () => {
    const back = hpaV1ToV2(
      { metadata: { name: 'x', annotations: { 'autoscaling.alpha.kubernetes.io/metrics': '{not json' } }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 3 } },
      'autoscaling/v2',
    );
    expect(back.metadata.annotations).toBeUndefined();
    expect(back.spec!.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
  });
});
