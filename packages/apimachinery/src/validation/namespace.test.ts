import { fieldErrorMessage, type FieldErrorList } from './field-error.js';
import {
  validateNamespace,
  validateNamespaceFinalizeUpdate,
  validateNamespaceStatusUpdate,
  validateNamespaceUpdate,
  type NamespaceFields,
} from './namespace.js';

const summary = (errs: FieldErrorList): string[] => errs.map((e) => `${e.type} ${e.field}`);

describe('validateNamespace', () => {
  test.each<[string, NamespaceFields, string[]]>([
    ['plain', { metadata: { name: 'team-a' } }, []],
    ['standard spec finalizer', { metadata: { name: 'a' }, spec: { finalizers: ['kubernetes'] } }, []],
    ['qualified spec finalizer', { metadata: { name: 'a' }, spec: { finalizers: ['example.com/cleanup'] } }, []],
    ['no name', { metadata: {} }, ['FieldValueRequired metadata.name']],
    ['dots not allowed', { metadata: { name: 'a.b' } }, ['FieldValueInvalid metadata.name']],
    ['upper case', { metadata: { name: 'Team' } }, ['FieldValueInvalid metadata.name']],
    ['64 characters', { metadata: { name: 'a'.repeat(64) } }, ['FieldValueInvalid metadata.name']],
    ['generateName with dash', { metadata: { name: 'a-x1', generateName: 'a-' } }, []],
    ['namespace set on a namespace', { metadata: { name: 'a', namespace: 'b' } }, ['FieldValueForbidden metadata.namespace']],
    ['bad spec finalizer', { metadata: { name: 'a' }, spec: { finalizers: ['a/b/c'] } }, ['FieldValueInvalid spec.finalizers']],
    ['unqualified non-standard spec finalizer', { metadata: { name: 'a' }, spec: { finalizers: ['foo'] } }, ['FieldValueInvalid spec.finalizers']],
    [
      'invalid and unqualified',
      { metadata: { name: 'a' }, spec: { finalizers: ['-x'] } },
      ['FieldValueInvalid spec.finalizers', 'FieldValueInvalid spec.finalizers'],
    ],
    ['unqualified metadata finalizer', { metadata: { name: 'a', finalizers: ['foo'] } }, ['FieldValueInvalid metadata.finalizers[0]']],
  ])('%s', (_name, ns, want) => {
    expect(summary(validateNamespace(ns))).toEqual(want);
  });

  test('name message', () => {
    expect(validateNamespace({ metadata: { name: 'a.b' } }).map(fieldErrorMessage)).toEqual([
      'metadata.name: Invalid value: "a.b": must not contain dots',
    ]);
  });

  test('finalizer message', () => {
    expect(validateNamespace({ metadata: { name: 'a' }, spec: { finalizers: ['foo'] } }).map(fieldErrorMessage)).toEqual([
      'spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
});

describe('namespace updates', () => {
  const old: NamespaceFields = { metadata: { name: 'a', uid: 'u', resourceVersion: '7' }, spec: { finalizers: ['kubernetes'] } };

  test('plain update ignores spec', () => {
    expect(validateNamespaceUpdate({ ...old, spec: { finalizers: ['bad bad'] } }, old)).toEqual([]);
  });

  test('renaming is refused', () => {
    expect(summary(validateNamespaceUpdate({ ...old, metadata: { ...old.metadata, name: 'b' } }, old))).toEqual([
      'FieldValueInvalid metadata.name',
    ]);
  });

  test('finalize update checks each spec finalizer with its index', () => {
    const next = { ...old, spec: { finalizers: ['kubernetes', 'foo', 'example.com/x'] } };
    expect(summary(validateNamespaceFinalizeUpdate(next, old))).toEqual(['FieldValueInvalid spec.finalizers[1]']);
  });

  test.each<[string, string | undefined, string, string[]]>([
    ['active while live', undefined, 'Active', []],
    ['terminating while live', undefined, 'Terminating', ['FieldValueInvalid status.Phase']],
    ['terminating while deleting', 'T', 'Terminating', []],
    ['active while deleting', 'T', 'Active', ['FieldValueInvalid status.Phase']],
  ])('status update: %s', (_name, deletionTimestamp, phase, want) => {
    const meta = deletionTimestamp ? { ...old.metadata, deletionTimestamp } : old.metadata;
    const prev = { ...old, metadata: meta };
    expect(summary(validateNamespaceStatusUpdate({ ...prev, status: { phase } }, prev))).toEqual(want);
  });
});
