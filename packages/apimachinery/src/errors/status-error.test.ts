import { newInvalid, newNotFound, newConflict, isNotFound } from './status-error.js';
import { invalid, required } from '../validation/field-error.js';

describe('status errors', () => {
  test('not found mirrors upstream message and details', () => {
    const e = newNotFound({ group: '', resource: 'configmaps' }, 'x');
    expect(e.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "x" not found',
      reason: 'NotFound',
      details: { name: 'x', kind: 'configmaps' },
      code: 404,
    });
    expect(isNotFound(e)).toBe(true);
  });
  test('conflict names the group-qualified resource', () => {
    const e = newConflict({ group: 'coordination.k8s.io', resource: 'leases' }, 'l', 'the object has been modified');
    expect(e.status.message).toBe(
      'Operation cannot be fulfilled on leases.coordination.k8s.io "l": the object has been modified',
    );
    expect(e.code).toBe(409);
  });
  test.each([
    [[invalid('data[a b]', 'a b', 'bad key')], 'ConfigMap "c" is invalid: data[a b]: Invalid value: "a b": bad key'],
    [
      [required('metadata.name', 'name or generateName is required'), invalid('data[x]', 'x', 'd')],
      'ConfigMap "c" is invalid: [metadata.name: Required value: name or generateName is required, data[x]: Invalid value: "x": d]',
    ],
  ])('invalid joins field errors like upstream (%#)', (errs, message) => {
    const e = newInvalid({ group: '', kind: 'ConfigMap' }, 'c', errs);
    expect(e.status.message).toBe(message);
    expect(e.code).toBe(422);
    expect(e.status.details?.causes?.map((c) => c.field)).toEqual(errs.map((x) => x.field));
  });
});
