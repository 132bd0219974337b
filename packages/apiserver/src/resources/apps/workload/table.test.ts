import type { KubeObject } from '@cluster/apimachinery';
import type { PodTemplateSpec } from '../../core/pod-spec/types.js';
import { column, podTemplateTable } from './table.js';

interface Runner extends KubeObject {
  template?: PodTemplateSpec;
  selector?: string;
  count?: number;
}

const runner: Runner = {
  metadata: { name: 'r', creationTimestamp: new Date(Date.now() - 3 * 86_400_000).toISOString() },
  template: { spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'busybox:1' }] } },
  selector: '',
  count: 3,
};

describe('podTemplateTable', () => {
  const own = { columns: [column('Count', 'integer', 'How many.')], cells: (r: Runner) => [r.count ?? 0], template: (r: Runner) => r.template };

  test("Name, the kind's columns, Age, then the wide Containers, Images and Selector columns", () => {
    const table = podTemplateTable<Runner>({ ...own, selector: { description: 'Which pods.', text: (r) => r.selector ?? '' } });
    expect(table.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Count', 0],
      ['Age', 0],
      ['Containers', 1],
      ['Images', 1],
      ['Selector', 1],
    ]);
    expect(table.columns.at(-1)?.description).toBe('Which pods.');
    expect(table.cells(runner)).toEqual(['r', 3, '3d', 'a,b', 'nginx,busybox:1', '<none>']);
    expect(table.cells({ ...runner, selector: 'app=x' }).at(-1)).toBe('app=x');
  });

  test('without a selector there is no Selector column (StatefulSet)', () => {
    const table = podTemplateTable<Runner>(own);
    expect(table.columns.map((c) => c.name)).toEqual(['Name', 'Count', 'Age', 'Containers', 'Images']);
    expect(table.cells({ ...runner, template: undefined })).toEqual(['r', 3, '3d', '', '']);
  });
});
