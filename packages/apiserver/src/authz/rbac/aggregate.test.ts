import { aggregatedRules, aggregationUpdates } from './aggregate.js';
import type { RoleObject } from './types.js';

const cr = (name: string, labels: Record<string, string>, rules: RoleObject['rules'], selectors?: Array<Record<string, string>>): RoleObject => ({
  metadata: { name, labels },
  rules,
  ...(selectors ? { aggregationRule: { clusterRoleSelectors: selectors.map((matchLabels) => ({ matchLabels })) } } : {}),
});
const get = (res: string) => ({ verbs: ['get'], apiGroups: [''], resources: [res] });

describe('aggregatedRules', () => {
  const view = cr('view', { 'to-edit': 'true' }, [], [{ 'to-view': 'true' }]);
  const a = cr('b-piece', { 'to-view': 'true' }, [get('pods'), get('cm')]);
  const b = cr('a-piece', { 'to-view': 'true' }, [get('cm'), get('secrets')]);
  const other = cr('other', {}, [get('nodes')]);

  test.each<[string, RoleObject, RoleObject[], unknown]>([
    ['not aggregated', other, [other, a], undefined],
    ['union by name order, duplicates once', view, [view, a, b, other], [get('cm'), get('secrets'), get('pods')]],
    ['itself excluded even when it matches', cr('self', { 'to-view': 'true' }, [], [{ 'to-view': 'true' }]), [a], [get('pods'), get('cm')]],
    ['no matches: empty', view, [view, other], []],
  ])('%s', (_name, target, all, want) => {
    expect(aggregatedRules(target, all)).toEqual(want);
  });

  test('updates only roles whose rules differ', () => {
    const current = { ...view, rules: [get('cm'), get('secrets'), get('pods')] };
    expect(aggregationUpdates([current, a, b, other])).toEqual([]);
    expect(aggregationUpdates([view, a, b, other]).map((u) => u.role.metadata.name)).toEqual(['view']);
  });
});
