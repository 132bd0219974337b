import { isHidden, validateShowHiddenMetricsVersion, withStability } from './stability.js';

const text = [
  '# HELP apiserver_request_total Counter of apiserver requests.',
  '# TYPE apiserver_request_total counter',
  'apiserver_request_total{code="200"} 3',
  '# HELP old_metric Something old.',
  '# TYPE old_metric gauge',
  'old_metric 1',
  '# HELP process_cpu_seconds_total Total user and system CPU time.',
  '# TYPE process_cpu_seconds_total counter',
  'process_cpu_seconds_total 0.5',
  '',
].join('\n');

describe('metric stability (SPEC 9.3 rule 9)', () => {
  test('classes prefix the help; unlisted metrics are left as they are', () => {
    const out = withStability(text, undefined, { apiserver_request_total: { level: 'STABLE' }, old_metric: { level: 'ALPHA', deprecatedVersion: '1.24' } });
    expect(out).toContain('# HELP apiserver_request_total [STABLE] Counter of apiserver requests.');
    expect(out).toContain('# HELP old_metric [ALPHA] (Deprecated since 1.24.0) Something old.');
    expect(out).toContain('# HELP process_cpu_seconds_total Total user and system CPU time.');
  });

  test('a metric deprecated two releases ago is hidden unless the previous release is asked for', () => {
    const table = { old_metric: { level: 'ALPHA' as const, deprecatedVersion: '1.23' } };
    const hidden = withStability(text, undefined, table);
    expect(hidden).not.toContain('old_metric');
    expect(hidden).toContain('apiserver_request_total{code="200"} 3');
    const shown = withStability(text, '1.24', table);
    expect(shown).toContain('# HELP old_metric [ALPHA] (Deprecated since 1.23.0) Something old.');
    expect(shown).toContain('old_metric 1');
  });

  test.each<[string, string | undefined, boolean]>([
    ['1.24', undefined, false],
    ['1.23', undefined, true],
    ['1.23', '1.24', false],
    ['1.22', '1.24', true],
  ])('deprecated in %s, shown for %s: hidden %s', (dep, show, hidden) => {
    expect(isHidden({ level: 'ALPHA', deprecatedVersion: dep }, show)).toBe(hidden);
  });

  test('--show-hidden-metrics-for-version accepts only the previous minor release', () => {
    expect(validateShowHiddenMetricsVersion('')).toBeUndefined();
    expect(validateShowHiddenMetricsVersion('1.24')).toBeUndefined();
    expect(validateShowHiddenMetricsVersion('1.23')).toBe("--show-hidden-metrics-for-version must be omitted or have the value '1.24'. Only the previous minor version is allowed");
  });
});
