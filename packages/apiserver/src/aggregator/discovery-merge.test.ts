import { aggregatedResourcesFromList, mergeExternalGroups, withExternalAggregated, type ExternalGroupVersion } from './discovery-merge.js';

const ext = (group: string, version: string, groupPriorityMinimum: number, versionPriority: number, resources?: ExternalGroupVersion['resources']): ExternalGroupVersion => ({
  group,
  version,
  groupPriorityMinimum,
  versionPriority,
  ...(resources ? { resources } : {}),
});
const local = [
  { name: 'apps', versions: ['v1'] },
  { name: 'batch', versions: ['v1'] },
  { name: 'toys.example.io', versions: ['v1'] },
];
const priorities: Record<string, number> = { apps: 17800, batch: 17400, 'toys.example.io': 1000 };
const byName = (g: { name: string }) => priorities[g.name]!;

describe('mergeExternalGroups', () => {
  test('external groups go before the first local group of lower priority, then by priority and name', () => {
    const merged = mergeExternalGroups(local, [ext('metrics.io', 'v1beta1', 100, 100), ext('high.io', 'v1', 17500, 15), ext('zeta.io', 'v1', 1500, 1), ext('alpha.io', 'v1', 1500, 1)], byName);
    expect(merged.groups.map((g) => g.name)).toEqual(['apps', 'high.io', 'batch', 'alpha.io', 'zeta.io', 'toys.example.io', 'metrics.io']);
    expect(merged.external).toEqual(new Set(['metrics.io/v1beta1', 'high.io/v1', 'zeta.io/v1', 'alpha.io/v1', 'metrics.io', 'high.io', 'zeta.io', 'alpha.io']));
  });

  test('versions of an external group sort by versionPriority, then by kube version order; the first is preferred', () => {
    const merged = mergeExternalGroups([], [ext('m.io', 'v1beta1', 100, 10), ext('m.io', 'v1', 100, 10), ext('m.io', 'v2alpha1', 100, 20)], byName);
    expect(merged.groups).toEqual([{ name: 'm.io', versions: ['v2alpha1', 'v1', 'v1beta1'] }]);
  });

  test('a version an extension adds to a local group comes after the local ones', () => {
    const merged = mergeExternalGroups(local, [ext('batch', 'v2', 17400, 1), ext('batch', 'v1', 17400, 1)], byName);
    expect(merged.groups[1]).toEqual({ name: 'batch', versions: ['v1', 'v2'] });
    expect(merged.external.has('batch/v2')).toBe(true);
    expect(merged.external.has('batch')).toBe(false);
  });
});

describe('aggregatedResourcesFromList', () => {
  test('subresources nest under their resource; malformed entries are skipped', () => {
    expect(
      aggregatedResourcesFromList([
        { name: 'pods/log', kind: 'Pod', verbs: ['get'] },
        { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['list', 'get'], shortNames: ['po'] },
        { name: 'nodes', singularName: 'node', namespaced: false, kind: 'Node', verbs: 'nope' as unknown as string[] },
        { name: 42 as unknown as string, kind: 'X' },
        { kind: 'NoName' },
        { name: 'orphan/sub', kind: 'X', verbs: [] },
      ]),
    ).toEqual([
      { resource: 'nodes', responseKind: { group: '', version: '', kind: 'Node' }, scope: 'Cluster', singularResource: 'node', verbs: [] },
      {
        resource: 'pods',
        responseKind: { group: '', version: '', kind: 'Pod' },
        scope: 'Namespaced',
        singularResource: 'pod',
        verbs: ['get', 'list'],
        shortNames: ['po'],
        subresources: [{ subresource: 'log', responseKind: { group: '', version: '', kind: 'Pod' }, verbs: ['get'] }],
      },
    ]);
  });
});

describe('withExternalAggregated', () => {
  test('adds known external versions in the group order and drops groups without versions', () => {
    const groups = [{ name: 'apps', versions: ['v1'] }, { name: 'm.io', versions: ['v1', 'v1beta1'] }, { name: 'n.io', versions: ['v1'] }];
    const doc = {
      kind: 'APIGroupDiscoveryList',
      items: [
        { metadata: { name: 'apps' }, versions: [{ version: 'v1', resources: [], freshness: 'Current' }] },
        { metadata: { name: 'm.io' }, versions: [] },
        { metadata: { name: 'n.io' }, versions: [] },
      ],
    };
    const out = withExternalAggregated(doc, groups, [ext('m.io', 'v1beta1', 1, 1, [{ name: 'a', kind: 'A', verbs: ['get'] }]), ext('m.io', 'v1', 1, 2, [{ name: 'b', kind: 'B' }]), ext('n.io', 'v1', 1, 1)]);
    const items = out['items'] as Array<{ metadata: { name: string }; versions: Array<{ version: string }> }>;
    expect(items.map((i) => [i.metadata.name, i.versions.map((v) => v.version)])).toEqual([
      ['apps', ['v1']],
      ['m.io', ['v1', 'v1beta1']],
    ]);
  });
});
