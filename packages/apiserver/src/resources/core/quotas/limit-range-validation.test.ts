import { validateLimitRangeQuantities } from './limit-range-validation.js';

// Cases after upstream's TestValidateLimitRange.
const fields = (limits: Parameters<typeof validateLimitRangeQuantities>[0]) => validateLimitRangeQuantities(limits).map((e) => `${e.field}: ${e.detail}`);

describe('validateLimitRangeQuantities', () => {
  test('a consistent range has no errors (the conformance spec range)', () => {
    const range = { type: 'Container', min: { cpu: '50m', memory: '100Mi' }, max: { cpu: '500m', memory: '500Mi' }, default: { cpu: '500m', memory: '500Mi' }, defaultRequest: { cpu: '100m', memory: '200Mi' } };
    expect(fields([range, { type: 'Pod', max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '4' }, min: { cpu: '100m' } }])).toEqual([]);
  });

  test('min <= defaultRequest <= default <= max, per resource', () => {
    expect(fields([{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' }, default: { cpu: '3' }, defaultRequest: { cpu: '4' } }])).toEqual([
      'spec.limits[0].min[cpu]: min value 2 is greater than max value 1',
      'spec.limits[0].defaultRequest[cpu]: default request value 4 is greater than max value 1',
      'spec.limits[0].defaultRequest[cpu]: default request value 4 is greater than default limit value 3',
      'spec.limits[0].default[cpu]: default value 3 is greater than max value 1',
    ]);
    expect(fields([{ type: 'Container', min: { memory: '1Gi' }, default: { memory: '512Mi' }, defaultRequest: { memory: '256Mi' } }])).toEqual([
      'spec.limits[0].defaultRequest[memory]: min value 1Gi is greater than default request value 256Mi',
      'spec.limits[0].default[memory]: min value 1Gi is greater than default value 512Mi',
    ]);
  });

  test('ratios: at least 1, at most max/min', () => {
    expect(fields([{ type: 'Pod', maxLimitRequestRatio: { cpu: '800m' } }])).toEqual(['spec.limits[0].maxLimitRequestRatio[cpu]: ratio 800m is less than 1']);
    expect(fields([{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '200m' }, maxLimitRequestRatio: { cpu: '3' } }])).toEqual([
      'spec.limits[0].maxLimitRequestRatio[cpu]: ratio 3 is greater than max/min = 2.000000',
    ]);
  });

  test('one item per type; resources that cannot be overcommitted need default = defaultRequest', () => {
    expect(fields([{ type: 'Container' }, { type: 'Container' }])).toEqual(['spec.limits[1].type: ']);
    expect(fields([{ type: 'Container', default: { 'hugepages-2Mi': '4Mi', 'example.com/gpu': '2' }, defaultRequest: { 'hugepages-2Mi': '2Mi', 'example.com/gpu': '1' } }])).toEqual([
      'spec.limits[0].defaultRequest[example.com/gpu]: default value 2 must equal to defaultRequest value 1 in example.com/gpu',
      'spec.limits[0].defaultRequest[hugepages-2Mi]: default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi',
    ]);
  });
});
