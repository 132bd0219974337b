import type { JsonObject } from '@cluster/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import { fixtureResources } from '../openapi/testing-fixtures.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, groupsFromResources, versionInfo } from './documents.js';
import { storageVersionHash } from './storage-version-hash.js';
import { compareVersionPriority } from './version-priority.js';

const resources = fixtureResources('k8s.io');
const byName = (list: JsonObject) => Object.fromEntries((list['resources'] as JsonObject[]).map((r) => [r['name'], r]));

describe('discovery documents', () => {
  test('/api lists v1 and the server address', () => {
    expect(apiVersions('10.0.0.1:6443')).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
    });
  });

  test('/apis lists named groups with their preferred version', () => {
    const withBeta: ResourceInfo[] = [...resources, { ...(resources[4] as ResourceInfo), version: 'v1beta1' }];
    const groups = groupsFromResources(withBeta);
    expect(groups).toEqual([
      { name: 'certificates.k8s.io', versions: ['v1', 'v1beta1'] },
      { name: 'authentication.k8s.io', versions: ['v1'] },
    ]);
    const list = apiGroupList(groups);
    expect(list).toMatchObject({ kind: 'APIGroupList', apiVersion: 'v1' });
    expect((list['groups'] as JsonObject[])[0]).toEqual({
      name: 'certificates.k8s.io',
      versions: [
        { groupVersion: 'certificates.k8s.io/v1', version: 'v1' },
        { groupVersion: 'certificates.k8s.io/v1beta1', version: 'v1beta1' },
      ],
      preferredVersion: { groupVersion: 'certificates.k8s.io/v1', version: 'v1' },
    });
    expect(apiGroup({ name: 'x.io', versions: ['v2'] })).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'x.io',
      versions: [{ groupVersion: 'x.io/v2', version: 'v2' }],
      preferredVersion: { groupVersion: 'x.io/v2', version: 'v2' },
    });
  });

  test('/api/v1 lists core resources and subresources sorted by name', () => {
    const list = apiResourceList('v1', resources);
    expect(list['kind']).toBe('APIResourceList');
    expect(list['apiVersion']).toBeUndefined();
    expect(list['groupVersion']).toBe('v1');
    expect((list['resources'] as JsonObject[]).map((r) => r['name'])).toEqual([
      'configmaps', 'namespaces', 'namespaces/status', 'secrets', 'serviceaccounts', 'serviceaccounts/token',
    ]);
    const r = byName(list);
    expect(r['configmaps']).toEqual({
      name: 'configmaps',
      singularName: 'configmap',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['cm'],
      storageVersionHash: 'qFsyl6wFWjQ=',
    });
    expect(r['namespaces/status']).toEqual({ name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] });
    expect(r['serviceaccounts/token']).toEqual({
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
  });

  test('named group lists carry apiVersion; unstored kinds have no storageVersionHash', () => {
    const certs = apiResourceList('certificates.k8s.io/v1', resources);
    expect(certs).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'certificates.k8s.io/v1' });
    expect(Object.keys(byName(certs))).toEqual([
      'certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status',
    ]);
    const authn = byName(apiResourceList('authentication.k8s.io/v1', resources));
    expect(authn['tokenreviews']).not.toHaveProperty('storageVersionHash');
    expect(apiResourceList('nope.io/v1', resources)['resources']).toEqual([]);
  });

  test('removed versions hash to their storage version', () => {
    const beta: ResourceInfo = { ...(resources[4] as ResourceInfo), version: 'v1beta1', storageVersion: 'v1' };
    const hash = byName(apiResourceList('certificates.k8s.io/v1beta1', [beta]))['certificatesigningrequests']?.['storageVersionHash'];
    expect(hash).toBe(storageVersionHash('certificates.k8s.io', 'v1', 'CertificateSigningRequest'));
  });

  test.each([
    ['', 'v1', 'ConfigMap', 'qFsyl6wFWjQ='],
    ['', 'v1', 'Namespace', 'Q3oi5N2YM8M='],
    ['', 'v1', 'Secret', 'S6u1pOWzb84='],
    ['', 'v1', 'ServiceAccount', 'pbx9ZvyFpBE='],
  ])('storageVersionHash(%j,%j,%j) matches upstream', (g, v, k, hash) => {
    expect(storageVersionHash(g, v, k)).toBe(hash);
  });

  test('/version reports the API level 1.25 with the build\'s commit', () => {
    const build = { gitCommit: 'e5f3f020084e16aa0123456789abcdef01234567', gitTreeState: 'clean' as const, buildDate: '2026-11-25T21:00:00Z' };
    const v = versionInfo({ build, platform: 'linux/amd64', goVersion: 'v20.0.0' });
    expect(v).toEqual({
      major: '1',
      minor: '25',
      gitVersion: 'v1.25.0+cluster.e5f3f020084e16',
      gitCommit: build.gitCommit,
      gitTreeState: 'clean',
      buildDate: '2026-11-25T21:00:00Z',
      goVersion: 'v20.0.0',
      compiler: 'node',
      platform: 'linux/amd64',
    });
    expect(versionInfo()['platform']).toMatch(/^[a-z0-9]+\/[a-z0-9]+$/);
    // Unknown builds report as an unstamped upstream binary does: no commit, no tree state.
    expect(versionInfo()).toMatchObject({ gitVersion: 'v1.25.0+cluster', gitCommit: '', gitTreeState: '' });
  });

  // Upstream's e2e "Kubectl version should check is all data is printed" matches this against
  // `kubectl version`'s Go-syntax output; Go's version.ParseSemantic needs semver 2.0.
  const SEMVER = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
  test.each([
    ['', ''],
    ['0123456789abcdef0123456789abcdef01234567', '.0123456789abcd'],
  ])('gitVersion with commit %j is semver and matches the conformance regex', (gitCommit, suffix) => {
    const v = versionInfo({ build: { gitCommit, gitTreeState: 'clean', buildDate: '2026-01-01T00:00:00Z' } });
    expect(v['gitVersion']).toBe(`v1.25.0+cluster${suffix}`);
    expect(v['gitVersion']).toMatch(SEMVER);
    expect(`Major:"${String(v['major'])}", Minor:"${String(v['minor'])}", GitVersion:"${String(v['gitVersion'])}"`).toMatch(/Major:"\d", Minor:"\d+\+?", GitVersion:"v\d\.\d+\.[\d\w\-.+]+"/);
  });

  test('version priority: GA, then beta, then alpha, then others', () => {
    expect(['v1alpha1', 'foo', 'v1beta1', 'v2', 'v1', 'v1beta2', 'v2alpha1'].sort(compareVersionPriority)).toEqual([
      'v2', 'v1', 'v1beta2', 'v1beta1', 'v2alpha1', 'v1alpha1', 'foo',
    ]);
  });
});
