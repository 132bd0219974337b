import type { ObjectMeta } from '../meta/types.js';
import { fieldErrorMessage, type FieldErrorList } from './field-error.js';
import { validateObjectMeta, type ObjectMetaOptions } from './object-meta.js';
import { validateObjectMetaUpdate } from './object-meta-update.js';

/** `type field` pairs, the shape most assertions care about. */
const summary = (errs: FieldErrorList): string[] => errs.map((e) => `${e.type} ${e.field}`);
const messages = (errs: FieldErrorList): string[] => errs.map(fieldErrorMessage);

const nsOpts: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain' };
const clusterOpts: ObjectMetaOptions = { namespaced: false, nameValidator: 'label' };

describe('validateObjectMeta', () => {
  test.each<[string, ObjectMeta, ObjectMetaOptions, string[]]>([
    ['minimal namespaced', { name: 'a', namespace: 'ns' }, nsOpts, []],
    ['minimal cluster-scoped', { name: 'a' }, clusterOpts, []],
    ['dotted name is a subdomain', { name: 'a.b', namespace: 'ns' }, nsOpts, []],
    ['no name', { namespace: 'ns' }, nsOpts, ['FieldValueRequired metadata.name']],
    ['generateName only still needs a generated name', { generateName: 'a-', namespace: 'ns' }, nsOpts, ['FieldValueRequired metadata.name']],
    ['bad generateName', { generateName: 'A-', name: 'a', namespace: 'ns' }, nsOpts, ['FieldValueInvalid metadata.generateName']],
    ['bad name', { name: 'A', namespace: 'ns' }, nsOpts, ['FieldValueInvalid metadata.name']],
    ['label rule forbids dots', { name: 'a.b' }, clusterOpts, ['FieldValueInvalid metadata.name']],
    ['namespace missing', { name: 'a' }, nsOpts, ['FieldValueRequired metadata.namespace']],
    ['namespace malformed', { name: 'a', namespace: 'N.S' }, nsOpts, ['FieldValueInvalid metadata.namespace']],
    ['namespace on cluster-scoped', { name: 'a', namespace: 'ns' }, clusterOpts, ['FieldValueForbidden metadata.namespace']],
    ['negative generation', { name: 'a', namespace: 'ns', generation: -1 }, nsOpts, ['FieldValueInvalid metadata.generation']],
    ['good labels', { name: 'a', namespace: 'ns', labels: { 'example.com/k': 'v', k2: '' } }, nsOpts, []],
    ['bad label key', { name: 'a', namespace: 'ns', labels: { 'a b': 'v' } }, nsOpts, ['FieldValueInvalid metadata.labels']],
    ['bad label value', { name: 'a', namespace: 'ns', labels: { k: '-v' } }, nsOpts, ['FieldValueInvalid metadata.labels']],
    ['upper-case annotation prefix is fine', { name: 'a', namespace: 'ns', annotations: { 'Example.COM/Key': 'x y z' } }, nsOpts, []],
    ['bad annotation key', { name: 'a', namespace: 'ns', annotations: { 'a/b/c': '' } }, nsOpts, ['FieldValueInvalid metadata.annotations']],
    ['good finalizers', { name: 'a', namespace: 'ns', finalizers: ['example.com/f', 'orphan', 'custom'] }, nsOpts, []],
    ['bad finalizer', { name: 'a', namespace: 'ns', finalizers: ['a b'] }, nsOpts, ['FieldValueInvalid metadata.finalizers']],
    [
      'orphan and foregroundDeletion conflict',
      { name: 'a', namespace: 'ns', finalizers: ['orphan', 'foregroundDeletion'] },
      nsOpts,
      ['FieldValueInvalid metadata.finalizers'],
    ],
    [
      'core finalizer rule',
      { name: 'a', namespace: 'ns', finalizers: ['kubernetes', 'custom', 'example.com/x'] },
      { ...nsOpts, coreFinalizers: true },
      ['FieldValueInvalid metadata.finalizers[1]'],
    ],
    [
      'owner reference missing fields',
      { name: 'a', namespace: 'ns', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] },
      nsOpts,
      [
        'FieldValueInvalid metadata.ownerReferences.apiVersion',
        'FieldValueInvalid metadata.ownerReferences.kind',
        'FieldValueInvalid metadata.ownerReferences.name',
        'FieldValueInvalid metadata.ownerReferences.uid',
      ],
    ],
    [
      'owner reference group without version',
      { name: 'a', namespace: 'ns', ownerReferences: [{ apiVersion: 'apps/', kind: 'K', name: 'n', uid: 'u' }] },
      nsOpts,
      ['FieldValueInvalid metadata.ownerReferences.apiVersion'],
    ],
    [
      'event cannot own',
      { name: 'a', namespace: 'ns', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'n', uid: 'u' }] },
      nsOpts,
      ['FieldValueInvalid metadata.ownerReferences'],
    ],
    [
      'two controllers',
      {
        name: 'a',
        namespace: 'ns',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'K', name: 'n1', uid: 'u1', controller: true },
          { apiVersion: 'apps/v1', kind: 'K', name: 'n2', uid: 'u2', controller: true },
        ],
      },
      nsOpts,
      ['FieldValueInvalid metadata.ownerReferences'],
    ],
    [
      'bad managed fields',
      {
        name: 'a',
        namespace: 'ns',
        managedFields: [{ manager: 'm', operation: 'Patch' as 'Apply', fieldsType: 'FieldsV2' as 'FieldsV1' }],
      },
      nsOpts,
      ['FieldValueInvalid metadata.managedFields[0].operation', 'FieldValueInvalid metadata.managedFields[0].fieldsType'],
    ],
    [
      'custom field path',
      { namespace: 'ns' },
      { ...nsOpts, fieldPath: 'spec.template.metadata' },
      ['FieldValueRequired spec.template.metadata.name'],
    ],
  ])('%s', (_name, meta, opts, want) => {
    expect(summary(validateObjectMeta(meta, opts))).toEqual(want);
  });

  test.each<[string, ObjectMeta, ObjectMetaOptions, string]>([
    ['missing name', { namespace: 'ns' }, nsOpts, 'metadata.name: Required value: name or generateName is required'],
    ['namespace on cluster type', { name: 'a', namespace: 'x' }, clusterOpts, 'metadata.namespace: Forbidden: not allowed on this type'],
    ['missing namespace', { name: 'a' }, nsOpts, 'metadata.namespace: Required value'],
    ['negative generation', { name: 'a', namespace: 'n', generation: -3 }, nsOpts, 'metadata.generation: Invalid value: -3: must be greater than or equal to 0'],
    [
      'owner uid',
      { name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'x', uid: '' }] },
      nsOpts,
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    ],
    [
      'label value message',
      { name: 'a', namespace: 'n', labels: { k: 'a b' } },
      nsOpts,
      `metadata.labels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ],
    [
      'core finalizer',
      { name: 'a', namespace: 'n', finalizers: ['custom'] },
      { ...nsOpts, coreFinalizers: true },
      'metadata.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ],
    [
      'control character in manager',
      { name: 'a', namespace: 'n', managedFields: [{ manager: 'a\u0007', operation: 'Update' }] },
      nsOpts,
      'metadata.managedFields[0].manager: Invalid value: "a\\u0007": invalid character U+0007 (at position 1)',
    ],
  ])('message: %s', (_name, meta, opts, want) => {
    expect(messages(validateObjectMeta(meta, opts))).toEqual([want]);
  });

  test('finalizer conflict detail', () => {
    const errs = validateObjectMeta({ name: 'a', namespace: 'n', finalizers: ['orphan', 'foregroundDeletion'] }, nsOpts);
    expect(errs.map((e) => e.detail)).toEqual(['finalizer orphan and foregroundDeletion cannot be both set']);
  });

  test('annotations may total 256 KiB but not more', () => {
    const at = { name: 'a', namespace: 'n', annotations: { k: 'x'.repeat(256 * 1024 - 1) } };
    expect(validateObjectMeta(at, nsOpts)).toEqual([]);
    const over = { name: 'a', namespace: 'n', annotations: { k: 'x'.repeat(256 * 1024) } };
    expect(messages(validateObjectMeta(over, nsOpts))).toEqual([
      'metadata.annotations: Too long: must have at most 262144 bytes',
    ]);
  });

  test('annotation size counts UTF-8 bytes', () => {
    const meta = { name: 'a', namespace: 'n', annotations: { k: 'é'.repeat(128 * 1024) } };
    expect(summary(validateObjectMeta(meta, nsOpts))).toEqual(['FieldValueTooLong metadata.annotations']);
  });

  test('a prototype-named label key is an ordinary key', () => {
    expect(validateObjectMeta({ name: 'a', namespace: 'n', labels: { constructor: 'x' } }, nsOpts)).toEqual([]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'a',
    namespace: 'ns',
    uid: 'u1',
    resourceVersion: '5',
    generation: 2,
    creationTimestamp: '2024-01-01T00:00:00Z',
  };

  test.each<[string, ObjectMeta, ObjectMeta, string[]]>([
    ['unchanged', old, old, []],
    ['labels may change', { ...old, labels: { a: 'b' } }, old, []],
    ['name changed', { ...old, name: 'b' }, old, ['FieldValueInvalid metadata.name']],
    ['namespace changed', { ...old, namespace: 'other' }, old, ['FieldValueInvalid metadata.namespace']],
    ['uid changed', { ...old, uid: 'u2' }, old, ['FieldValueInvalid metadata.uid']],
    ['creationTimestamp changed', { ...old, creationTimestamp: '2024-01-02T00:00:00Z' }, old, ['FieldValueInvalid metadata.creationTimestamp']],
    ['same instant in another spelling', { ...old, creationTimestamp: '2024-01-01T00:00:00.000+00:00' }, old, []],
    ['deletionTimestamp set', { ...old, deletionTimestamp: '2024-01-02T00:00:00Z' }, old, ['FieldValueInvalid metadata.deletionTimestamp']],
    ['grace period set', { ...old, deletionGracePeriodSeconds: 30 }, old, ['FieldValueInvalid metadata.deletionGracePeriodSeconds']],
    ['generation decremented', { ...old, generation: 1 }, old, ['FieldValueInvalid metadata.generation']],
    ['generation incremented', { ...old, generation: 3 }, old, []],
    ['resourceVersion missing', { ...old, resourceVersion: '' }, old, ['FieldValueInvalid metadata.resourceVersion']],
    ['bad label still reported', { ...old, labels: { '-': 'x' } }, old, ['FieldValueInvalid metadata.labels']],
    [
      'finalizer added while deleting',
      { ...old, deletionTimestamp: 'T', finalizers: ['a', 'x', 'b/c'] },
      { ...old, deletionTimestamp: 'T', finalizers: ['a'] },
      ['FieldValueForbidden metadata.finalizers'],
    ],
    [
      'finalizer removed while deleting',
      { ...old, deletionTimestamp: 'T', finalizers: [] },
      { ...old, deletionTimestamp: 'T', finalizers: ['a'] },
      [],
    ],
    ['finalizer added while live', { ...old, finalizers: ['x'] }, old, []],
  ])('%s', (_name, next, prev, want) => {
    expect(summary(validateObjectMetaUpdate(next, prev, nsOpts))).toEqual(want);
  });

  test('immutable message shows the new value', () => {
    expect(messages(validateObjectMetaUpdate({ ...old, name: 'b' }, old, nsOpts))).toEqual([
      'metadata.name: Invalid value: "b": field is immutable',
    ]);
  });

  test('new finalizers while deleting, message as upstream', () => {
    const errs = validateObjectMetaUpdate(
      { ...old, deletionTimestamp: 'T', finalizers: ['y', 'x'] },
      { ...old, deletionTimestamp: 'T' },
      nsOpts,
    );
    expect(messages(errs)).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"x", "y"}',
    ]);
  });

  test('resourceVersion message', () => {
    expect(messages(validateObjectMetaUpdate({ ...old, resourceVersion: undefined }, old, nsOpts))).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    ]);
  });

  test('without options the scope follows the old object and names only need to be path segments', () => {
    const cluster: ObjectMeta = { name: 'Odd_Name', uid: 'u', resourceVersion: '1' };
    expect(validateObjectMetaUpdate(cluster, cluster)).toEqual([]);
    expect(summary(validateObjectMetaUpdate({ ...cluster, namespace: 'x' }, cluster))).toEqual([
      'FieldValueForbidden metadata.namespace',
      'FieldValueInvalid metadata.namespace',
    ]);
  });
});
