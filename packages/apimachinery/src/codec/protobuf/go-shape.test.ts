import { toGoJsonShape } from './go-shape.js';

describe('toGoJsonShape', () => {
  test('fills what Go always writes and leaves the rest as it was', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'd', creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'c' }], conditions: [{ type: 'Ready', status: 'True' }] },
    };
    expect(toGoJsonShape(pod)).toEqual({
      ...pod,
      spec: { containers: [{ name: 'c', image: 'i', resources: {} }] },
      status: {
        phase: 'Running',
        containerStatuses: [{ name: 'c', state: {}, lastState: {}, ready: false, restartCount: 0, image: '', imageID: '' }],
        conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: null }],
      },
    });
  });

  test('a ReplicaSet status shows its replica count even when zero', () => {
    const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r' }, spec: {}, status: {} };
    expect(toGoJsonShape(rs).status).toEqual({ replicas: 0 });
  });
});
