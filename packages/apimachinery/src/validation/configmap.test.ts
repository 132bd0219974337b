import { fieldErrorMessage, type FieldErrorList } from './field-error.js';
import { validateConfigMap, validateConfigMapUpdate, type ConfigMapFields } from './configmap.js';

const summary = (errs: FieldErrorList): string[] => errs.map((e) => `${e.type} ${e.field}`);
const messages = (errs: FieldErrorList): string[] => errs.map(fieldErrorMessage);
const b64 = (s: string): string => Buffer.from(s).toString('base64');

const meta = { name: 'cm', namespace: 'default' };
const cm = (fields: Omit<ConfigMapFields, 'metadata'> = {}): ConfigMapFields => ({ metadata: { ...meta }, ...fields });

describe('validateConfigMap', () => {
  test.each<[string, ConfigMapFields, string[]]>([
    ['empty', cm(), []],
    ['valid keys', cm({ data: { 'a.b': 'x', 'A-_9': 'y', '.dot': '' }, binaryData: { bin: b64('\u0000\u00ff') } }), []],
    ['null maps', cm({ data: null, binaryData: null }), []],
    ['no namespace', { metadata: { name: 'cm' } }, ['FieldValueRequired metadata.namespace']],
    ['bad name', { metadata: { name: 'Bad', namespace: 'n' } }, ['FieldValueInvalid metadata.name']],
    ['bad data key', cm({ data: { 'a b': 'x' } }), ['FieldValueInvalid data[a b]']],
    ['dot key', cm({ data: { '.': 'x' } }), ['FieldValueInvalid data[.]']],
    ['dot-dot prefix key', cm({ binaryData: { '..x': b64('1') } }), ['FieldValueInvalid binaryData[..x]']],
    ['bad binary key', cm({ binaryData: { 'a/b': b64('1') } }), ['FieldValueInvalid binaryData[a/b]']],
    ['key in both', cm({ data: { k: 'x' }, binaryData: { k: b64('y') } }), ['FieldValueInvalid data[k]']],
    ['non-standard finalizer', { metadata: { ...meta, finalizers: ['foo'] } }, ['FieldValueInvalid metadata.finalizers[0]']],
  ])('%s', (_name, obj, want) => {
    expect(summary(validateConfigMap(obj))).toEqual(want);
  });

  test('duplicate key message', () => {
    expect(messages(validateConfigMap(cm({ data: { myname: 'a' }, binaryData: { myname: b64('b') } })))).toEqual([
      'data[myname]: Invalid value: "myname": duplicate of key present in binaryData',
    ]);
  });

  test('bad key message', () => {
    expect(messages(validateConfigMap(cm({ data: { 'a b': '' } })))).toEqual([
      `data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    ]);
  });

  test('total size of exactly 1 MiB is allowed', () => {
    const half = 512 * 1024;
    const obj = cm({ data: { a: 'x'.repeat(half) }, binaryData: { b: Buffer.alloc(half).toString('base64') } });
    expect(validateConfigMap(obj)).toEqual([]);
  });

  test('one byte over 1 MiB is too long, reported on the whole object (path [])', () => {
    const half = 512 * 1024;
    const obj = cm({ data: { a: 'x'.repeat(half + 1) }, binaryData: { b: Buffer.alloc(half).toString('base64') } });
    const errs = validateConfigMap(obj);
    expect(messages(errs)).toEqual(['[]: Too long: must have at most 1048576 bytes']);
  });

  test('binaryData is measured decoded, not as base64 text', () => {
    // 900 KiB decoded is 1.2 MiB of base64 text; only the decoded size counts.
    const obj = cm({ binaryData: { b: Buffer.alloc(900 * 1024).toString('base64') } });
    expect(validateConfigMap(obj)).toEqual([]);
  });

  test('data is measured in UTF-8 bytes', () => {
    const obj = cm({ data: { a: 'é'.repeat(512 * 1024 + 1) } });
    expect(summary(validateConfigMap(obj))).toEqual(['FieldValueTooLong []']);
  });
});

describe('validateConfigMapUpdate', () => {
  const old = (fields: Omit<ConfigMapFields, 'metadata'> = {}): ConfigMapFields => ({
    metadata: { ...meta, uid: 'u', resourceVersion: '3' },
    ...fields,
  });

  test.each<[string, ConfigMapFields, ConfigMapFields, string[]]>([
    ['mutable data change', old({ data: { a: '2' } }), old({ data: { a: '1' } }), []],
    ['becoming immutable', old({ data: { a: '1' }, immutable: true }), old({ data: { a: '1' } }), []],
    ['immutable, only metadata changes', { ...old({ data: { a: '1' }, immutable: true }), metadata: { ...old().metadata, labels: { x: 'y' } } }, old({ data: { a: '1' }, immutable: true }), []],
    ['immutable data change', old({ data: { a: '2' }, immutable: true }), old({ data: { a: '1' }, immutable: true }), ['FieldValueForbidden data']],
    ['immutable data key added', old({ data: { a: '1', b: '' }, immutable: true }), old({ data: { a: '1' }, immutable: true }), ['FieldValueForbidden data']],
    ['immutable binaryData change', old({ binaryData: { b: b64('2') }, immutable: true }), old({ binaryData: { b: b64('1') }, immutable: true }), ['FieldValueForbidden binaryData']],
    ['immutable unset', old({ data: { a: '1' } }), old({ data: { a: '1' }, immutable: true }), ['FieldValueForbidden immutable']],
    ['immutable set to false', old({ immutable: false }), old({ immutable: true }), ['FieldValueForbidden immutable']],
    ['absent data differs from empty data, as upstream DeepEqual', old({ data: {}, immutable: true }), old({ immutable: true }), ['FieldValueForbidden data']],
    ['name change', { ...old(), metadata: { ...old().metadata, name: 'other' } }, old(), ['FieldValueInvalid metadata.name']],
    ['bad key still rejected', old({ data: { 'a b': '' } }), old(), ['FieldValueInvalid data[a b]']],
  ])('%s', (_name, next, prev, want) => {
    expect(summary(validateConfigMapUpdate(next, prev))).toEqual(want);
  });

  test('immutable messages', () => {
    const errs = validateConfigMapUpdate(old({ data: { a: '2' } }), old({ data: { a: '1' }, immutable: true }));
    expect(messages(errs)).toEqual([
      'immutable: Forbidden: field is immutable when `immutable` is set',
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
  });
});
