import type { FieldError, JsonObject } from '@cluster/apimachinery';
import { invalidDeleteOptions, readDeleteOptions, type DeleteOptionsBase } from './delete-options.js';

// Upstream's ValidateDeleteOptions (apimachinery meta/v1 validation): the shared reading of a
// DeleteOptions object behind DELETE's options and pods/eviction's deleteOptions.
describe('readDeleteOptions', () => {
  const read = (body: JsonObject | undefined, base?: DeleteOptionsBase) => {
    const errs: FieldError[] = [];
    const options = readDeleteOptions(body, errs, base);
    return { options, errs: errs.map((e) => `${e.field}: ${e.type}`) };
  };

  test.each<[string, JsonObject | undefined, DeleteOptionsBase | undefined, object, string[]]>([
    ['nothing', undefined, undefined, { dryRun: false }, []],
    ['the body over the base', { gracePeriodSeconds: 5, propagationPolicy: 'Foreground' }, { dryRun: false, gracePeriodSeconds: 30, propagationPolicy: 'Orphan' }, { dryRun: false, gracePeriodSeconds: 5, propagationPolicy: 'Foreground' }, []],
    ['dryRun All', { dryRun: ['All'] }, undefined, { dryRun: true }, []],
    ['an empty dryRun keeps the base', { dryRun: [] }, { dryRun: true }, { dryRun: true }, []],
    ['dryRun other than All', { dryRun: ['All', 'Foo'] }, undefined, { dryRun: true }, ['dryRun: FieldValueNotSupported']],
    ['preconditions', { preconditions: { uid: 'u', resourceVersion: '7' } }, undefined, { dryRun: false, preconditions: { uid: 'u', resourceVersion: '7' } }, []],
    ['orphanDependents true', { orphanDependents: true }, undefined, { dryRun: false, propagationPolicy: 'Orphan' }, []],
    ['orphanDependents false (from the query)', undefined, { dryRun: false, orphanDependents: false }, { dryRun: false, propagationPolicy: 'Background' }, []],
    ['orphanDependents beside a policy', { orphanDependents: true, propagationPolicy: 'Orphan' }, undefined, { dryRun: false, propagationPolicy: 'Orphan' }, ['propagationPolicy: FieldValueInvalid']],
    ['an unknown policy', { propagationPolicy: 'Sideways' }, undefined, { dryRun: false, propagationPolicy: 'Sideways' }, ['propagationPolicy: FieldValueNotSupported']],
  ])('%s', (_name, body, base, options, errs) => {
    expect(read(body, base)).toEqual({ options, errs });
  });

  test('the base is not changed', () => {
    const base: DeleteOptionsBase = { dryRun: false, orphanDependents: true, preconditions: { uid: 'a' } };
    read({ preconditions: { uid: 'b' } }, base);
    expect(base).toEqual({ dryRun: false, orphanDependents: true, preconditions: { uid: 'a' } });
  });

  test('refusals are 422 Invalid on meta.k8s.io DeleteOptions', () => {
    const errs: FieldError[] = [];
    readDeleteOptions({ propagationPolicy: 'Sideways' }, errs);
    expect(invalidDeleteOptions(errs).status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      details: { group: 'meta.k8s.io', kind: 'DeleteOptions', causes: [{ field: 'propagationPolicy', reason: 'FieldValueNotSupported' }] },
    });
  });
});
