import { parseRuntimeConfig, servedGroupVersions, stabilityOf, type ServedGroupVersion } from './runtime-config.js';

const served: ServedGroupVersion[] = [
  { group: '', version: 'v1', resources: ['configmaps', 'secrets'] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resources: ['roles', 'rolebindings'] },
  { group: 'rbac.authorization.k8s.io', version: 'v1beta1', resources: ['roles', 'rolebindings'], removed: true },
  { group: 'example.k8s.io', version: 'v1alpha1', resources: ['things'] },
];

describe('stabilityOf (SPEC 9.2)', () => {
  test.each([
    ['v1', 'ga'],
    ['v2', 'ga'],
    ['v1beta1', 'beta'],
    ['v2beta3', 'beta'],
    ['v1alpha1', 'alpha'],
  ])('%s is %s', (v, level) => expect(stabilityOf(v)).toBe(level));
});

describe('parseRuntimeConfig (SPEC 9.1)', () => {
  const on = (config: Record<string, string>) => {
    const rc = parseRuntimeConfig(config, served);
    return (g: string, v: string, r: string) => rc.serves(g, v, r);
  };

  test('defaults: stable on; removed beta and alpha off', () => {
    const s = on({});
    expect(s('', 'v1', 'configmaps')).toBe(true);
    expect(s('rbac.authorization.k8s.io', 'v1', 'roles')).toBe(true);
    expect(s('rbac.authorization.k8s.io', 'v1beta1', 'roles')).toBe(false);
    expect(s('example.k8s.io', 'v1alpha1', 'things')).toBe(false);
  });

  test.each<[string, Record<string, string>, [string, string, string], boolean]>([
    ['a group/version with no value is on', { 'rbac.authorization.k8s.io/v1beta1': '' }, ['rbac.authorization.k8s.io', 'v1beta1', 'roles'], true],
    ['api/all=false turns off stable versions', { 'api/all': 'false' }, ['', 'v1', 'configmaps'], false],
    ['api/all=false then one group back on', { 'api/all': 'false', 'api/v1': 'true' }, ['', 'v1', 'secrets'], true],
    ['api/beta turns on betas', { 'api/beta': 'true' }, ['rbac.authorization.k8s.io', 'v1beta1', 'rolebindings'], true],
    ['api/alpha turns on alphas', { 'api/alpha': 'true' }, ['example.k8s.io', 'v1alpha1', 'things'], true],
    ['api/ga=false', { 'api/ga': 'false' }, ['rbac.authorization.k8s.io', 'v1', 'roles'], false],
    ['a resource key wins over its version', { 'api/v1/secrets': 'false' }, ['', 'v1', 'secrets'], false],
    ['a resource key leaves the others', { 'api/v1/secrets': 'false' }, ['', 'v1', 'configmaps'], true],
    ['a resource of a disabled version can be turned on alone', { 'rbac.authorization.k8s.io/v1beta1/roles': 'true' }, ['rbac.authorization.k8s.io', 'v1beta1', 'roles'], true],
    ['... and only that one', { 'rbac.authorization.k8s.io/v1beta1/roles': 'true' }, ['rbac.authorization.k8s.io', 'v1beta1', 'rolebindings'], false],
  ])('%s', (_, config, [g, v, r], want) => {
    expect(on(config)(g, v, r)).toBe(want);
  });

  test.each([
    [{ 'apps/v1': 'true' }, 'invalid --runtime-config: unknown api groups or resources: apps/v1'],
    [{ 'api/v1/pods': 'false', 'nope/v2': '' }, 'unknown api groups or resources: api/v1/pods, nope/v2'],
    [{ 'api/all': 'maybe' }, 'invalid value of api/all: maybe'],
  ])('%j is refused', (config, message) => {
    expect(() => parseRuntimeConfig(config, served)).toThrow(message);
  });
});

describe('a version off by default with a resource still served (storage/v1beta1)', () => {
  const infos = [
    { group: 'storage.k8s.io', version: 'v1beta1', resource: 'storageclasses', deprecated: {} },
    { group: 'storage.k8s.io', version: 'v1beta1', resource: 'csistoragecapacities', deprecated: {}, servedByDefault: true },
    { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' },
  ];
  test.each([
    [{}, { storageclasses: false, csistoragecapacities: true }],
    [{ 'storage.k8s.io/v1beta1': 'true' }, { storageclasses: true, csistoragecapacities: true }],
    [{ 'storage.k8s.io/v1beta1': 'false' }, { storageclasses: false, csistoragecapacities: false }],
    [{ 'api/beta': 'false' }, { storageclasses: false, csistoragecapacities: false }],
    [{ 'storage.k8s.io/v1beta1/csistoragecapacities': 'false' }, { storageclasses: false, csistoragecapacities: false }],
  ])('%j', (config, expected) => {
    const rc = parseRuntimeConfig(config, servedGroupVersions(infos));
    expect({ storageclasses: rc.serves('storage.k8s.io', 'v1beta1', 'storageclasses'), csistoragecapacities: rc.serves('storage.k8s.io', 'v1beta1', 'csistoragecapacities') }).toEqual(expected);
    expect(rc.serves('storage.k8s.io', 'v1', 'storageclasses')).toBe(true);
  });
});
