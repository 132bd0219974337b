import type { PodSpec } from '../pod-spec/types.js';
import { POD_SPEC_IMMUTABLE_MSG, validatePodSpecUpdate } from './update-rules.js';

const base = (): PodSpec => ({
  containers: [{ name: 'c', image: 'nginx:1' }],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  tolerations: [{ key: 'a', operator: 'Exists' }],
});

describe('validatePodSpecUpdate', () => {
  test.each<[string, (s: PodSpec) => void]>([
    ['an image change', (s) => (s.containers![0]!.image = 'nginx:2')],
    ['a new activeDeadlineSeconds', (s) => (s.activeDeadlineSeconds = 60)],
    ['an added toleration', (s) => s.tolerations!.push({ key: 'b', operator: 'Exists' })],
    ['no change at all', () => {}],
  ])('allows %s', (_name, change) => {
    const next = base();
    change(next);
    expect(validatePodSpecUpdate(next, base())).toEqual([]);
  });

  test.each<[string, (s: PodSpec) => void]>([
    ['a restart policy change', (s) => (s.restartPolicy = 'Never')],
    ['a removed toleration', (s) => (s.tolerations = [])],
    ['a new container', (s) => s.containers!.push({ name: 'd', image: 'x' })],
    ['a grace period change', (s) => (s.terminationGracePeriodSeconds = 5)],
    ['a container name change', (s) => (s.containers![0]!.name = 'other')],
  ])('forbids %s with upstream message', (_name, change) => {
    const next = base();
    change(next);
    expect(validatePodSpecUpdate(next, base())).toEqual([{ type: 'FieldValueForbidden', field: 'spec', detail: POD_SPEC_IMMUTABLE_MSG }]);
  });
});
