import { SelectorParseError } from './requirement.js';
import { labelSelectorFromLabelSelectorObject, type LabelSelectorObject } from './selector-object.js';

describe('labelSelectorFromLabelSelectorObject', () => {
  test('null and undefined select nothing', () => {
    for (const sel of [null, undefined]) {
      const s = labelSelectorFromLabelSelectorObject(sel);
      expect(s.matches({})).toBe(false);
      expect(s.empty).toBe(false);
    }
  });

  test('an empty selector selects everything', () => {
    for (const sel of [{}, { matchLabels: {}, matchExpressions: [] }, { matchLabels: null }]) {
      const s = labelSelectorFromLabelSelectorObject(sel);
      expect(s.empty).toBe(true);
      expect(s.matches({ a: 'b' })).toBe(true);
    }
  });

  test.each<[LabelSelectorObject, string]>([
    [{ matchLabels: { b: '1', a: '2' } }, 'a=2,b=1'],
    [{ matchExpressions: [{ key: 'x', operator: 'In', values: ['b', 'a'] }] }, 'x in (a,b)'],
    [{ matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['a'] }] }, 'x notin (a)'],
    [{ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, 'x'],
    [{ matchExpressions: [{ key: 'x', operator: 'DoesNotExist', values: [] }] }, '!x'],
    [{ matchLabels: { z: 'q' }, matchExpressions: [{ key: 'a', operator: 'Exists' }] }, 'a,z=q'],
  ])('%j is %s', (obj, want) => {
    expect(labelSelectorFromLabelSelectorObject(obj).toString()).toBe(want);
  });

  test.each<[LabelSelectorObject, Record<string, string>, boolean]>([
    [{ matchLabels: { app: 'web' } }, { app: 'web', tier: 'fe' }, true],
    [{ matchLabels: { app: 'web' } }, { app: 'db' }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['be'] }] }, {}, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['fe', 'be'] }] }, { tier: 'be' }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, { tier: 'be' }, false],
  ])('%j matches %j: %s', (obj, labels, want) => {
    expect(labelSelectorFromLabelSelectorObject(obj).matches(labels)).toBe(want);
  });

  test.each<[LabelSelectorObject, string | RegExp]>([
    [{ matchExpressions: [{ key: 'x', operator: 'Gt', values: ['1'] }] }, '"Gt" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'x', operator: 'In', values: [] }] }, `values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`],
    [{ matchExpressions: [{ key: 'x', operator: 'Exists', values: ['a'] }] }, /^values: Invalid value: .*: values set must be empty for exists and does not exist$/],
    [{ matchLabels: { 'a b': 'c' } }, /^key: Invalid value: "a b": name part must consist of /],
    [{ matchLabels: { a: 'b c' } }, /^values\[0\]\[a\]: Invalid value: "b c": a valid label must be /],
  ])('%j fails', (obj, want) => {
    expect(() => labelSelectorFromLabelSelectorObject(obj)).toThrow(SelectorParseError);
    expect(() => labelSelectorFromLabelSelectorObject(obj)).toThrow(want);
  });
});
