import { parseRequestInfo } from './request-info.js';

type Row = [string, string, string, Partial<Record<'verb' | 'apiGroup' | 'apiVersion' | 'namespace' | 'resource' | 'subresource' | 'name', string>> & { isResourceRequest?: boolean }];

// Cases follow upstream's requestinfo_test.go table in spirit.
const rows: Row[] = [
  ['GET', '/api/v1/namespaces', '', { verb: 'list', resource: 'namespaces', namespace: '', name: '' }],
  ['GET', '/api/v1/namespaces/other', '', { verb: 'get', resource: 'namespaces', namespace: 'other', name: 'other' }],
  ['GET', '/api/v1/namespaces/other/configmaps/foo', '', { verb: 'get', resource: 'configmaps', namespace: 'other', name: 'foo' }],
  ['GET', '/api/v1/namespaces/other/configmaps', '', { verb: 'list', resource: 'configmaps', namespace: 'other' }],
  ['GET', '/api/v1/namespaces/other/configmaps', 'watch=true', { verb: 'watch', resource: 'configmaps', namespace: 'other' }],
  ['GET', '/api/v1/namespaces/other/configmaps', 'watch=false', { verb: 'list' }],
  ['GET', '/api/v1/configmaps', '', { verb: 'list', resource: 'configmaps', namespace: '' }],
  ['GET', '/api/v1/configmaps', 'watch=1', { verb: 'watch', resource: 'configmaps' }],
  ['GET', '/api/v1/namespaces/ns/secrets', 'fieldSelector=metadata.name%3Ds1', { verb: 'list', name: 's1' }],
  ['GET', '/api/v1/namespaces/ns/secrets', 'watch=1&fieldSelector=metadata.name%3D%3Ds1%2Ctype%3Dx', { verb: 'watch', name: 's1' }],
  ['GET', '/api/v1/namespaces/ns/secrets', 'fieldSelector=metadata.name!%3Ds1', { verb: 'list', name: '' }],
  ['GET', '/api/v1/namespaces/ns/secrets', 'fieldSelector=metadata.name%3Da%2Fb', { verb: 'list', name: '' }],
  ['GET', '/api/v1/namespaces/ns/secrets', 'fieldSelector=metadata.name%3D..', { verb: 'list', name: '' }],
  ['GET', '/api/v1/namespaces/ns/secrets', 'fieldSelector=%3D%3D%3D', { verb: 'list', name: '' }],
  ['POST', '/api/v1/namespaces/other/configmaps', '', { verb: 'create', resource: 'configmaps', namespace: 'other' }],
  ['PUT', '/api/v1/namespaces/other/configmaps/foo', '', { verb: 'update', name: 'foo' }],
  ['PATCH', '/api/v1/namespaces/other/configmaps/foo', '', { verb: 'patch', name: 'foo' }],
  ['DELETE', '/api/v1/namespaces/other/configmaps/foo', '', { verb: 'delete', name: 'foo' }],
  ['DELETE', '/api/v1/namespaces/other/configmaps', '', { verb: 'deletecollection', resource: 'configmaps' }],
  ['PUT', '/api/v1/namespaces/other/finalize', '', { verb: 'update', resource: 'namespaces', name: 'other', subresource: 'finalize', namespace: 'other' }],
  ['PUT', '/api/v1/namespaces/other/status', '', { verb: 'update', resource: 'namespaces', name: 'other', subresource: 'status' }],
  ['GET', '/api/v1/watch/namespaces/other/configmaps', '', { verb: 'watch', resource: 'configmaps', namespace: 'other' }],
  ['GET', '/api/v1/watch/namespaces/other/configmaps/foo', '', { verb: 'watch', name: 'foo' }],
  ['PUT', '/apis/certificates.k8s.io/v1/certificatesigningrequests/csr1/approval', '', { verb: 'update', apiGroup: 'certificates.k8s.io', apiVersion: 'v1', resource: 'certificatesigningrequests', name: 'csr1', subresource: 'approval', namespace: '' }],
  ['POST', '/api/v1/namespaces/ns/serviceaccounts/sa/token', '', { verb: 'create', resource: 'serviceaccounts', name: 'sa', subresource: 'token' }],
  ['GET', '/apis/coordination.k8s.io/v1/namespaces/ns/leases/l', '', { verb: 'get', apiGroup: 'coordination.k8s.io', resource: 'leases' }],
  ['GET', '/api/v1', '', { isResourceRequest: false, verb: 'get' }],
  ['GET', '/apis', '', { isResourceRequest: false }],
  ['GET', '/apis/apps', '', { isResourceRequest: false }],
  ['GET', '/healthz', '', { isResourceRequest: false, verb: 'get' }],
  ['GET', '/api/v1/watch', '', { isResourceRequest: false }],
  ['OPTIONS', '/api/v1/namespaces/a/configmaps', '', { verb: '' }],
];

describe('parseRequestInfo', () => {
  test.each(rows)('%s %s?%s', (method, path, query, want) => {
    const got = parseRequestInfo(method, path, new URLSearchParams(query));
    expect(got).toMatchObject({ isResourceRequest: true, ...want });
  });
});
