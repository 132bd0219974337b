import { danglingRefs, type JsonObject } from '@cluster/apimachinery';
import { buildOpenApiV2 } from './v2.js';
import { fixtureDefinitions, fixtureResources } from './testing-fixtures.js';

const doc = buildOpenApiV2({
  resources: fixtureResources('example.org'),
  definitions: fixtureDefinitions('example.org'),
  version: { gitVersion: 'v1.32.0-cluster' },
});
const paths = doc['paths'] as Record<string, Record<string, JsonObject>>;
const op = (path: string, method: string): JsonObject => {
  const o = paths[path]?.[method];
  if (!o) throw new Error(`no ${method} ${path}`);
  return o;
};

describe('buildOpenApiV2', () => {
  test('is a swagger 2.0 document', () => {
    expect(doc).toMatchObject({ swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.32.0-cluster' } });
  });

  test('every $ref resolves to a definition', () => {
    expect(danglingRefs(doc, '#/definitions/')).toEqual([]);
  });

  test('dangling refs are detected', () => {
    const defs = fixtureDefinitions('example.org');
    delete defs['io.k8s.apimachinery.pkg.apis.meta.v1.Time'];
    const broken = buildOpenApiV2({ resources: fixtureResources('example.org'), definitions: defs, version: { gitVersion: 'v' } });
    expect(danglingRefs(broken, '#/definitions/').length).toBeGreaterThan(0);
  });

  test('patch declares the four patch media types and fieldValidation', () => {
    const patch = op('/api/v1/namespaces/{namespace}/configmaps/{name}', 'patch');
    expect(patch['consumes']).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    const names = (patch['parameters'] as JsonObject[]).map((p) => p['name']);
    expect(names).toEqual(['body', 'dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(patch['x-kubernetes-action']).toBe('patch');
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: '', kind: 'ConfigMap', version: 'v1' });
  });

  test('operations carry body, responses and 401', () => {
    const create = op('/apis/certificates.example.org/v1/certificatesigningrequests', 'post');
    expect((create['parameters'] as JsonObject[])[0]).toEqual({
      in: 'body',
      name: 'body',
      required: true,
      schema: { $ref: '#/definitions/io.k8s.api.certificates.v1.CertificateSigningRequest' },
    });
    expect(Object.keys(create['responses'] as JsonObject)).toEqual(['200', '201', '202', '401']);
    expect(create['x-kubernetes-group-version-kind']).toEqual({
      group: 'certificates.example.org',
      kind: 'CertificateSigningRequest',
      version: 'v1',
    });
    expect(create['consumes']).toEqual(['*/*']);
  });

  test('query parameters are typed, path parameters required', () => {
    const list = op('/api/v1/namespaces/{namespace}/configmaps', 'get');
    expect((list['parameters'] as JsonObject[]).find((p) => p['name'] === 'limit')).toMatchObject({ in: 'query', type: 'integer' });
    expect(paths['/api/v1/namespaces/{namespace}/configmaps']?.['parameters']).toEqual([
      expect.objectContaining({ name: 'namespace', in: 'path', required: true, type: 'string' }),
      expect.objectContaining({ name: 'pretty', in: 'query', type: 'string' }),
    ]);
  });

  test('all definitions are emitted', () => {
    expect(Object.keys(doc['definitions'] as JsonObject)).toEqual(Object.keys(fixtureDefinitions('example.org')).sort());
  });
});
