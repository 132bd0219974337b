import { goMapText, validateSelectorMatchesTemplate } from './selector.js';

describe('validateSelectorMatchesTemplate', () => {
  test.each([
    ['matching labels', { matchLabels: { app: 'a' } }, { app: 'a', tier: 'x' }, []],
    ['matching expression', { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] }, { app: 'b' }, []],
    ['no selector', undefined, { app: 'a' }, ['spec.selector FieldValueRequired']],
    ['empty selector', {}, { app: 'a' }, ['spec.selector FieldValueInvalid']],
    ['not matching', { matchLabels: { app: 'a' } }, { app: 'b' }, ['spec.template.metadata.labels FieldValueInvalid']],
    ['In without values', { matchExpressions: [{ key: 'app', operator: 'In' }] }, { app: 'a' }, ['spec.selector.matchExpressions[0].values FieldValueRequired']],
    ['bad operator', { matchExpressions: [{ key: 'app', operator: 'Equals', values: ['a'] }] }, { app: 'a' }, ['spec.selector.matchExpressions[0].operator FieldValueInvalid']],
  ])('%s', (_name, selector, labels, expected) => {
    const errs = validateSelectorMatchesTemplate(selector, labels, 'spec', 'deployment');
    expect(errs.map((e) => `${e.field} ${e.type}`)).toEqual(expected);
  });

  test('the mismatch message names selector and labels as upstream does', () => {
    const [err] = validateSelectorMatchesTemplate({ matchLabels: { app: 'a' } }, { app: 'b' }, 'spec', 'deployment');
    expect(err?.detail).toBe('`selector` does not match template `labels`');
    expect(goMapText({ b: '2', a: '1' })).toBe('map[string]string{"a":"1", "b":"2"}');
  });
});
