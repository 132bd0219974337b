import { resolveFeatureGates } from './feature-gates.js';

describe('resolveFeatureGates (SPEC 9.3 rule 8, 7 rule 5)', () => {
  test('defaults: beta and GA on', () => {
    expect(resolveFeatureGates({}).enabled).toEqual({
      APIListChunking: true,
      ConsistentGetFromCache: true,
      ConsistentListFromCache: true,
      ServerSideApply: true,
      ServerSideFieldValidation: true,
      WatchBookmark: true,
    });
  });

  test.each<[string, Record<string, boolean>, string[]]>([
    ['an unknown gate', { Nope: true }, ['unrecognized feature gate: Nope']],
    ['a GA gate switched off', { WatchBookmark: false }, ['cannot set feature gate WatchBookmark to false, feature is locked to true']],
    ['two problems', { ServerSideApply: false, X: false }, ['cannot set feature gate ServerSideApply to false, feature is locked to true', 'unrecognized feature gate: X']],
  ])('%s fails start-up', (_, set, errors) => {
    expect(resolveFeatureGates(set).errors).toEqual(errors);
  });

  test('a beta gate can be turned off; setting a GA gate to its value only warns', () => {
    const r = resolveFeatureGates({ APIListChunking: false, ServerSideApply: true });
    expect(r.errors).toEqual([]);
    expect(r.enabled['APIListChunking']).toBe(false);
    expect(r.warnings).toEqual(['Setting GA feature gate ServerSideApply=true. It will be removed in a future release.']);
  });

  test('AllBeta switches every beta gate not named on its own', () => {
    const r = resolveFeatureGates({ AllBeta: false, ConsistentListFromCache: true });
    expect(r.enabled).toMatchObject({ APIListChunking: false, ConsistentGetFromCache: false, ConsistentListFromCache: true, WatchBookmark: true });
  });
});
