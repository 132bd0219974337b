import type { KubeObject } from '@cluster/apimachinery';
import type { AdmissionAttributes } from './admission.js';
import { priorityAdmission } from './priority.js';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { PriorityClass } from '../resources/scheduling/priorityclasses/system-classes.js';

const GROUP = 'scheduling.k8s.io';
const pc = (name: string, value: number, extra: Partial<PriorityClass> = {}): PriorityClass => ({ metadata: { name }, value, preemptionPolicy: 'PreemptLowerPriority', ...extra });
const plugin = (classes: PriorityClass[]) =>
  priorityAdmission(GROUP, { list: async () => classes, get: async (name) => classes.find((c) => c.metadata.name === name) });
const attrs = (resource: string, group: string, operation: AdmissionAttributes['operation'], object?: KubeObject, oldObject?: KubeObject): AdmissionAttributes => ({
  operation,
  resource: { group, resource } as ResourceInfo,
  subresource: '',
  namespace: resource === 'pods' ? 'default' : '',
  name: object?.metadata.name ?? oldObject?.metadata.name ?? 'x',
  ...(object ? { object } : {}),
  ...(oldObject ? { oldObject } : {}),
  dryRun: false,
});
const pod = (spec: Record<string, unknown> = {}): KubeObject & { spec: Record<string, unknown> } => ({ metadata: { name: 'p' }, spec: { containers: [], ...spec } });
const message = async (p: Promise<void> | void) => Promise.resolve(p).then(() => 'admitted', (e: { status: { code: number; message: string } }) => `${e.status.code} ${e.status.message}`);

describe('Priority admission (upstream v1.24)', () => {
  const classes = [pc('system-cluster-critical', 2000000000), pc('high', 1000, { preemptionPolicy: 'Never' }), pc('low', 10, { globalDefault: true }), pc('lower', 5, { globalDefault: true })];

  test.each([
    ['named class', { priorityClassName: 'high' }, { priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' }],
    ['system class', { priorityClassName: 'system-cluster-critical' }, { priority: 2000000000, preemptionPolicy: 'PreemptLowerPriority' }],
    ['no class: the lowest globalDefault', {}, { priorityClassName: 'lower', priority: 5 }],
    ['the same priority given', { priorityClassName: 'high', priority: 1000 }, { priority: 1000 }],
  ])('%s', async (_name, spec, expected) => {
    const p = pod(spec);
    await plugin(classes).admit!(attrs('pods', '', 'CREATE', p));
    expect(p.spec).toMatchObject(expected);
  });

  test('no default class: priority 0 and no preemption policy', async () => {
    const p = pod();
    await plugin([pc('high', 1000)]).admit!(attrs('pods', '', 'CREATE', p));
    expect(p.spec).toEqual({ containers: [], priority: 0 });
  });

  test.each([
    ['unknown class', { priorityClassName: 'nope' }, '403 pods "p" is forbidden: no PriorityClass with name nope was found'],
    [
      'a different priority',
      { priorityClassName: 'high', priority: 7 },
      '403 pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
    ],
    [
      'a different preemption policy',
      { priorityClassName: 'high', preemptionPolicy: 'PreemptLowerPriority' },
      '403 pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
    ],
  ])('refuses %s', async (_name, spec, expected) => {
    expect(await message(plugin(classes).admit!(attrs('pods', '', 'CREATE', pod(spec))))).toBe(expected);
  });

  test('a pod update keeps the stored priority the request leaves out', async () => {
    const p = pod();
    await plugin(classes).admit!(attrs('pods', '', 'UPDATE', p, pod({ priority: 5, preemptionPolicy: 'Never' })));
    expect(p.spec).toMatchObject({ priority: 5, preemptionPolicy: 'Never' });
  });

  test('one globalDefault class only; system classes cannot be deleted', async () => {
    const one = plugin([pc('low', 10, { globalDefault: true })]);
    expect(await message(one.validate(attrs('priorityclasses', GROUP, 'CREATE', pc('other', 1, { globalDefault: true }))))).toBe(
      '403 priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass low is already marked as default. Only one default can exist',
    );
    expect(await message(one.validate(attrs('priorityclasses', GROUP, 'UPDATE', pc('low', 10, { globalDefault: true }))))).toBe('admitted');
    expect(await message(one.validate(attrs('priorityclasses', GROUP, 'DELETE', undefined, pc('system-node-critical', 2000001000))))).toBe(
      '403 priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted',
    );
    expect(await message(one.validate(attrs('priorityclasses', GROUP, 'DELETE', undefined, pc('low', 10))))).toBe('admitted');
  });
});
