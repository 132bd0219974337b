import type { FieldErrorList } from '@cluster/apimachinery';
import { podDisruptionBudgetStrategy, validatePdbStatus, type PodDisruptionBudget } from './strategy.js';

const brief = (errs: FieldErrorList) => errs.map((e) => `${e.field} ${e.type}${e.type === 'FieldValueInvalid' ? `: ${e.detail}` : ''}`);
const pdb = (spec: PodDisruptionBudget['spec']): PodDisruptionBudget => ({ metadata: { name: 'p', namespace: 'default' }, spec });

describe('PodDisruptionBudget validation', () => {
  test.each([
    ['minAvailable count', { minAvailable: 2 }, []],
    ['maxUnavailable percent', { maxUnavailable: '25%' }, []],
    ['neither', {}, []],
    ['both minAvailable and maxUnavailable', { minAvailable: 1, maxUnavailable: 1 }, ['spec FieldValueInvalid: minAvailable and maxUnavailable cannot be both set']],
    ['negative minAvailable', { minAvailable: -1 }, ['spec.minAvailable FieldValueInvalid: must be greater than or equal to 0']],
    ['percent over 100', { maxUnavailable: '101%' }, ['spec.maxUnavailable FieldValueInvalid: must not be greater than 100%']],
    [
      'not a percent string',
      { minAvailable: 'half' },
      [
        "spec.minAvailable FieldValueInvalid: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ],
    ],
    ['bad selector operator', { selector: { matchExpressions: [{ key: 'a', operator: 'Near', values: ['b'] }] } }, ['spec.selector.matchExpressions[0].operator FieldValueInvalid: not a valid selector operator']],
    ['unknown eviction policy', { unhealthyPodEvictionPolicy: 'Never' }, ['spec.unhealthyPodEvictionPolicy FieldValueNotSupported']],
  ])('%s', (_name, spec, expected) => {
    const obj = pdb(spec);
    podDisruptionBudgetStrategy.prepareForCreate(obj);
    expect(brief(podDisruptionBudgetStrategy.validate(obj))).toEqual(expected);
  });

  test('updates need a resourceVersion (AllowUnconditionalUpdate false) and bump generation on spec change', () => {
    expect(podDisruptionBudgetStrategy.allowUnconditionalUpdate).toBe(false);
    const old = pdb({ minAvailable: 1 });
    podDisruptionBudgetStrategy.prepareForCreate(old);
    const next = pdb({ minAvailable: 2 });
    next.metadata.generation = 1;
    podDisruptionBudgetStrategy.prepareForUpdate(next, old);
    expect(next.metadata.generation).toBe(2);
  });

  test('status counters and conditions', () => {
    expect(
      brief(
        validatePdbStatus({
          disruptionsAllowed: -1,
          conditions: [
            { type: 'DisruptionAllowed', status: 'Maybe', reason: 'r', lastTransitionTime: '2024-01-01T00:00:00Z' },
            { type: 'DisruptionAllowed', status: 'True', reason: 'r', lastTransitionTime: '2024-01-01T00:00:00Z' },
          ],
        }),
      ),
    ).toEqual(['status.conditions[0].status FieldValueNotSupported', 'status.conditions[1].type FieldValueDuplicate', 'status.disruptionsAllowed FieldValueInvalid: must be greater than or equal to 0']);
  });

  test('table cells follow upstream printPodDisruptionBudget', () => {
    const obj = pdb({ minAvailable: '50%' });
    obj.status = { disruptionsAllowed: 2 };
    expect(podDisruptionBudgetStrategy.table.cells(obj).slice(0, 4)).toEqual(['p', '50%', 'N/A', 2]);
  });
});
