import { StatusError } from '../errors/status-error.js';
import type { JsonObject } from '../meta/types.js';
import { fieldErrorMessage } from '../validation/field-error.js';
import { validateApplyRequest, validateFieldManager, validatePatchOptions } from './validate-apply.js';

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('validateApplyRequest', () => {
  const body: JsonObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };

  test('fieldManager is required for apply (422 on PatchOptions)', () => {
    const err = statusOf(() => validateApplyRequest(body, undefined, 'k8s.io'));
    expect(err.status.code).toBe(422);
    expect(err.status.reason).toBe('Invalid');
    expect(err.status.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    expect(err.status.details).toEqual({
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
    });
    expect(statusOf(() => validateApplyRequest(body, '', 'example.org')).status.message).toContain('PatchOptions.meta.example.org ""');
  });

  test('managedFields in the body are rejected, even empty; null is fine', () => {
    const err = statusOf(() => validateApplyRequest({ ...body, metadata: { name: 'c', managedFields: [] } }, 'm', 'k8s.io'));
    expect(err.status.code).toBe(400);
    expect(err.status.message).toBe('metadata.managedFields must be nil');
    expect(() => validateApplyRequest({ ...body, metadata: { name: 'c', managedFields: null } }, 'm', 'k8s.io')).not.toThrow();
    expect(() => validateApplyRequest(body, 'kubectl', 'k8s.io')).not.toThrow();
  });
});

describe('validatePatchOptions', () => {
  test('force is forbidden for non-apply patches; fieldManager optional there', () => {
    expect(() => validatePatchOptions({ isApply: false, fieldManager: undefined, forceSet: false, apiDomain: 'k8s.io' })).not.toThrow();
    expect(statusOf(() => validatePatchOptions({ isApply: false, fieldManager: 'x', forceSet: true, apiDomain: 'k8s.io' })).status.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
  });
});

describe('validateFieldManager', () => {
  test.each<[string, string[]]>([
    ['kubectl', []],
    ['my manager/ü', []],
    ['x'.repeat(128), []],
    ['x'.repeat(129), ['fieldManager: Too long: must have at most 128 bytes']],
    ['a\tb', ['fieldManager: Invalid value: "a\\tb": invalid character U+0009 (at position 1)']],
  ])('%j', (name, messages) => {
    expect(validateFieldManager(name).map(fieldErrorMessage)).toEqual(messages);
  });
});
