import { selectorMap, toLegacyScale } from './legacy-scale.js';

// Upstream's Convert_autoscaling_ScaleStatus_To_v1beta2_ScaleStatus (v1.24): targetSelector is the
// string; selector the MatchLabels of ParseToLabelSelector when it has no expressions.
describe('the old Scale kinds\' status', () => {
  test.each([
    ['', undefined],
    ['app=web', { app: 'web' }],
    ['app==web,tier=front', { app: 'web', tier: 'front' }],
    ['app in (web)', undefined],
    ['app!=web', undefined],
    ['app', undefined],
    ['!app', undefined],
    ['not a selector (', undefined],
  ])('%j as a label map: %j', (selector, map) => {
    expect(selectorMap(selector)).toEqual(map);
  });

  test('status carries both forms; an empty selector carries neither', () => {
    const view = { metadata: { name: 'web' }, spec: { replicas: 2 }, status: { replicas: 1, selector: 'app=web' } };
    expect(toLegacyScale(view)).toEqual({ ...view, status: { replicas: 1, selector: { app: 'web' }, targetSelector: 'app=web' } });
    expect(toLegacyScale({ ...view, status: { replicas: 0, selector: '' } })['status']).toEqual({ replicas: 0 });
    expect(view.status).toEqual({ replicas: 1, selector: 'app=web' });
  });
});
