import type { FieldErrorList } from '@cluster/apimachinery';
import { runtimeClassStrategy, type RuntimeClass } from './strategy.js';

const brief = (errs: FieldErrorList) => errs.map((e) => `${e.field} ${e.type}`);
const rc = (fields: Omit<RuntimeClass, 'metadata'>): RuntimeClass => ({ metadata: { name: 'gvisor' }, ...fields });

describe('RuntimeClass validation', () => {
  test.each([
    ['a DNS label handler', { handler: 'runsc' }, []],
    ['no handler', {}, ['handler FieldValueInvalid']],
    ['a handler with dots', { handler: 'run.sc' }, ['handler FieldValueInvalid']],
    ['overhead', { handler: 'runsc', overhead: { podFixed: { cpu: '100m', memory: '20Mi' } } }, []],
    ['negative overhead', { handler: 'runsc', overhead: { podFixed: { cpu: '-1' } } }, ['overhead.podFixed[cpu] FieldValueInvalid']],
    ['bad node selector label', { handler: 'runsc', scheduling: { nodeSelector: { 'a b': 'c' } } }, ['scheduling.nodeSelector FieldValueInvalid']],
    [
      'toleration with Exists and a value',
      { handler: 'runsc', scheduling: { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] } },
      ['scheduling.tolerations.tolerations[0].operator FieldValueInvalid'],
    ],
    [
      'duplicate tolerations',
      { handler: 'runsc', scheduling: { tolerations: [{ key: 'k', operator: 'Equal', value: 'v' }, { key: 'k', operator: 'Equal', value: 'v' }] } },
      ['scheduling.tolerations[1] FieldValueDuplicate'],
    ],
  ])('%s', (_name, fields, expected) => {
    expect(brief(runtimeClassStrategy.validate(rc(fields)))).toEqual(expected);
  });

  test('the handler is immutable', () => {
    const old = rc({ handler: 'runc' });
    old.metadata.resourceVersion = '1';
    const next = rc({ handler: 'runsc' });
    next.metadata.resourceVersion = '1';
    expect(brief(runtimeClassStrategy.validateUpdate(next, old))).toEqual(['handler FieldValueInvalid']);
  });
});
