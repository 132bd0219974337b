import type { ResourceInfo } from '../registry/resource-info.js';
import { groupIdentifier, listDefinitionName, resourcePaths, type PathSpec } from './operations.js';
import { fixtureResources } from './testing-fixtures.js';

const paths = resourcePaths(fixtureResources('k8s.io'));
const methodsOf = (list: PathSpec[]) => Object.fromEntries(list.map((p) => [p.path, p.operations.map((o) => `${o.method}:${o.action}`)]));
const find = (path: string, method: string) => {
  const op = paths.find((p) => p.path === path)?.operations.find((o) => o.method === method);
  if (!op) throw new Error(`no ${method} ${path}`);
  return op;
};

describe('resourcePaths', () => {
  test('every resource yields the expected paths and actions', () => {
    expect(methodsOf(paths)).toEqual({
      '/api/v1/configmaps': ['get:list'],
      '/api/v1/namespaces': ['get:list', 'post:post'],
      '/api/v1/namespaces/{name}': ['get:get', 'put:put', 'patch:patch', 'delete:delete'],
      '/api/v1/namespaces/{name}/status': ['get:get', 'put:put', 'patch:patch'],
      '/api/v1/namespaces/{namespace}/configmaps': ['get:list', 'post:post', 'delete:deletecollection'],
      '/api/v1/namespaces/{namespace}/configmaps/{name}': ['get:get', 'put:put', 'patch:patch', 'delete:delete'],
      '/api/v1/namespaces/{namespace}/secrets': ['get:list', 'post:post', 'delete:deletecollection'],
      '/api/v1/namespaces/{namespace}/secrets/{name}': ['get:get', 'put:put', 'patch:patch', 'delete:delete'],
      '/api/v1/namespaces/{namespace}/serviceaccounts': ['get:list', 'post:post', 'delete:deletecollection'],
      '/api/v1/namespaces/{namespace}/serviceaccounts/{name}': ['get:get', 'put:put', 'patch:patch', 'delete:delete'],
      '/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token': ['post:post'],
      '/api/v1/secrets': ['get:list'],
      '/api/v1/serviceaccounts': ['get:list'],
      '/apis/authentication.k8s.io/v1/tokenreviews': ['post:post'],
      '/apis/certificates.k8s.io/v1/certificatesigningrequests': ['get:list', 'post:post', 'delete:deletecollection'],
      '/apis/certificates.k8s.io/v1/certificatesigningrequests/{name}': ['get:get', 'put:put', 'patch:patch', 'delete:delete'],
      '/apis/certificates.k8s.io/v1/certificatesigningrequests/{name}/approval': ['get:get', 'put:put', 'patch:patch'],
      '/apis/certificates.k8s.io/v1/certificatesigningrequests/{name}/status': ['get:get', 'put:put', 'patch:patch'],
    });
  });

  test('path-level parameters: namespace and name are required path parameters, pretty is a query', () => {
    const item = paths.find((p) => p.path === '/api/v1/namespaces/{namespace}/configmaps/{name}');
    expect(item?.parameters.map((p) => `${p.in}:${p.name}:${p.required ?? false}`)).toEqual([
      'path:name:true',
      'path:namespace:true',
      'query:pretty:false',
    ]);
  });

  test.each([
    ['patch', ['dryRun', 'fieldManager', 'fieldValidation', 'force']],
    ['put', ['dryRun', 'fieldManager', 'fieldValidation']],
    ['delete', ['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy']],
    ['get', []],
  ])('item %s takes the upstream query parameters', (method, names) => {
    expect(find('/api/v1/namespaces/{namespace}/configmaps/{name}', method).parameters.map((p) => p.name)).toEqual(names);
  });

  test('list takes selection, paging and watch parameters and streams', () => {
    const list = find('/api/v1/namespaces/{namespace}/configmaps', 'get');
    expect(list.parameters.map((p) => p.name)).toEqual([
      'allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion',
      'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch',
    ]);
    expect(list.produces).toContain('application/json;stream=watch');
    expect(list.responses).toEqual([{ code: 200, description: 'OK', definition: 'io.k8s.api.core.v1.ConfigMapList' }]);
  });

  test('operation ids and tags follow upstream naming', () => {
    expect(find('/api/v1/namespaces/{namespace}/configmaps', 'delete').operationId).toBe('deleteCoreV1CollectionNamespacedConfigMap');
    expect(find('/api/v1/configmaps', 'get').operationId).toBe('listCoreV1ConfigMapForAllNamespaces');
    expect(find('/api/v1/namespaces/{name}/status', 'patch').operationId).toBe('patchCoreV1NamespaceStatus');
    const token = find('/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token', 'post');
    expect(token.operationId).toBe('createCoreV1NamespacedServiceAccountToken');
    expect(token.gvk).toEqual({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' });
    const approval = find('/apis/certificates.k8s.io/v1/certificatesigningrequests/{name}/approval', 'put');
    expect(approval.operationId).toBe('replaceCertificatesV1CertificateSigningRequestApproval');
    expect(approval.tag).toBe('certificates_v1');
  });

  test('patch bodies are Patch, deletes return Status', () => {
    expect(find('/api/v1/namespaces/{name}', 'patch').body).toEqual({
      definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
      required: true,
      patch: true,
    });
    expect(find('/api/v1/namespaces/{name}', 'delete').responses.map((r) => r.code)).toEqual([200, 202]);
    expect(find('/api/v1/namespaces', 'post').responses.map((r) => r.code)).toEqual([200, 201, 202]);
  });

  test('legacy watch paths only on request', () => {
    const withWatch = resourcePaths(fixtureResources('k8s.io').slice(0, 1), { legacyWatchPaths: true });
    expect(methodsOf(withWatch)).toMatchObject({
      '/api/v1/watch/namespaces/{namespace}/configmaps': ['get:watchlist'],
      '/api/v1/watch/namespaces/{namespace}/configmaps/{name}': ['get:watch'],
      '/api/v1/watch/configmaps': ['get:watchlist'],
    });
    expect(paths.some((p) => p.path.includes('/watch/'))).toBe(false);
  });

  test('a resource without verbs yields no paths; non-watchable lists have no watch parameter', () => {
    const base = fixtureResources('k8s.io')[0] as ResourceInfo;
    expect(resourcePaths([{ ...base, verbs: [] }])).toEqual([]);
    const listOnly = resourcePaths([{ ...base, verbs: ['list'] }]);
    const op = listOnly[0]?.operations[0];
    expect(op?.parameters.map((p) => p.name)).not.toContain('watch');
    expect(op?.produces).not.toContain('application/json;stream=watch');
  });

  test('a definitionName that does not end with the kind is rejected', () => {
    const base = fixtureResources('k8s.io')[0] as ResourceInfo;
    expect(() => listDefinitionName({ ...base, definitionName: 'io.k8s.api.core.v1.Other' })).toThrow(/does not end with kind/);
  });

  test.each([
    ['', 'k8s.io', 'core'],
    ['rbac.authorization.k8s.io', 'k8s.io', 'rbacAuthorization'],
    ['certificates.example.org', 'example.org', 'certificates'],
    ['apps', 'k8s.io', 'apps'],
  ])('groupIdentifier(%j, %j) = %j', (group, domain, id) => {
    expect(groupIdentifier(group, domain)).toBe(id);
  });
});
