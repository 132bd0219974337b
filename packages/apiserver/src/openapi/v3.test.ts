import { createHash } from 'node:crypto';
import { danglingRefs, type JsonObject } from '@cluster/apimachinery';
import { buildOpenApiV3, buildOpenApiV3Document, buildOpenApiV3Index, openApiV3Path, toV3Schema } from './v3.js';
import { openApiHash } from './hash.js';
import { fixtureDefinitions, fixtureResources } from './testing-fixtures.js';

const resources = fixtureResources('example.org');
const definitions = fixtureDefinitions('example.org');
const versionInfo = { gitVersion: 'v1.32.0-cluster' };
const coreDoc = buildOpenApiV3Document({ group: '', version: 'v1', resources, definitions, versionInfo });
const paths = coreDoc['paths'] as Record<string, Record<string, JsonObject>>;
const schemas = (coreDoc['components'] as JsonObject)['schemas'] as Record<string, JsonObject>;

/** kubectl's supportsQueryParamV3: the first PATCH operation for the GVK must list the parameter. */
function kubectlSupportsParam(doc: JsonObject, gvk: JsonObject, param: string): boolean {
  for (const item of Object.values(doc['paths'] as Record<string, Record<string, JsonObject>>)) {
    const patch = item['patch'];
    if (!patch) continue;
    const g = patch['x-kubernetes-group-version-kind'] as JsonObject;
    if (g['group'] !== gvk['group'] || g['version'] !== gvk['version'] || g['kind'] !== gvk['kind']) continue;
    return (patch['parameters'] as JsonObject[]).some((p) => p['name'] === param);
  }
  return false;
}

describe('buildOpenApiV3Document', () => {
  test('is an OpenAPI 3.0 document with only this group version', () => {
    expect(coreDoc).toMatchObject({ openapi: '3.0.0', info: { version: 'v1.32.0-cluster' } });
    expect(Object.keys(paths).every((p) => p.startsWith('/api/v1/'))).toBe(true);
    expect(Object.keys(paths)).toContain('/api/v1/namespaces/{namespace}/configmaps/{name}');
  });

  test('every $ref resolves inside components.schemas and none is in v2 form', () => {
    expect(danglingRefs(coreDoc, '#/components/schemas/')).toEqual([]);
    expect(JSON.stringify(coreDoc)).not.toContain('#/definitions/');
  });

  test('schemas are the closure of what the operations use', () => {
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining([
      'io.k8s.api.core.v1.ConfigMap',
      'io.k8s.api.core.v1.NamespaceCondition',
      'io.k8s.api.authentication.v1.TokenRequest',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
    ]));
    expect(schemas['io.k8s.api.certificates.v1.CertificateSigningRequest']).toBeUndefined();
  });

  test('kubectl finds fieldValidation on PATCH for ConfigMap and Namespace, not for unknown kinds', () => {
    expect(kubectlSupportsParam(coreDoc, { group: '', version: 'v1', kind: 'ConfigMap' }, 'fieldValidation')).toBe(true);
    expect(kubectlSupportsParam(coreDoc, { group: '', version: 'v1', kind: 'Namespace' }, 'fieldValidation')).toBe(true);
    expect(kubectlSupportsParam(coreDoc, { group: '', version: 'v1', kind: 'Pod' }, 'fieldValidation')).toBe(false);
  });

  test('kubectl explain can find ConfigMap by GVK and reach data', () => {
    const gvk = paths['/api/v1/namespaces/{namespace}/configmaps']?.['get']?.['x-kubernetes-group-version-kind'];
    expect(gvk).toEqual({ group: '', kind: 'ConfigMap', version: 'v1' });
    const found = Object.values(schemas).filter((s) =>
      (s['x-kubernetes-group-version-kind'] as JsonObject[] | undefined)?.some((g) => JSON.stringify(g) === JSON.stringify(gvk)),
    );
    expect(found).toHaveLength(1);
    const data = ((found[0] as JsonObject)['properties'] as JsonObject)['data'];
    expect(data).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
  });

  test('request bodies and responses are keyed by media type', () => {
    const patch = paths['/api/v1/namespaces/{namespace}/configmaps/{name}']?.['patch'] as JsonObject;
    expect(Object.keys((patch['requestBody'] as JsonObject)['content'] as JsonObject)).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    const ok = (patch['responses'] as JsonObject)['200'] as JsonObject;
    expect((ok['content'] as JsonObject)['application/json']).toEqual({ schema: { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' } });
    expect(patch['x-kubernetes-action']).toBe('patch');
    const param = (patch['parameters'] as JsonObject[]).find((p) => p['name'] === 'force');
    expect(param).toMatchObject({ in: 'query', schema: { type: 'boolean', uniqueItems: true } });
  });

  test('a missing definition is an error naming it', () => {
    const defs = { ...definitions };
    delete defs['io.k8s.api.core.v1.NamespaceCondition'];
    expect(() => buildOpenApiV3Document({ group: '', version: 'v1', resources, definitions: defs, versionInfo })).toThrow(
      /api\/v1: missing definitions io.k8s.api.core.v1.NamespaceCondition/,
    );
  });
});

describe('toV3Schema', () => {
  test.each([
    [{ $ref: '#/definitions/A' }, { $ref: '#/components/schemas/A' }],
    [{ $ref: '#/definitions/A', description: 'd', default: {} }, { allOf: [{ $ref: '#/components/schemas/A' }], description: 'd', default: {} }],
    [{ type: 'array', items: { $ref: '#/definitions/B' } }, { type: 'array', items: { $ref: '#/components/schemas/B' } }],
    ['plain', 'plain'],
  ])('%j -> %j', (input, output) => {
    expect(toV3Schema(input)).toEqual(output);
  });
});

describe('index and hashes', () => {
  test('openApiV3Path', () => {
    expect(openApiV3Path('', 'v1')).toBe('api/v1');
    expect(openApiV3Path('certificates.k8s.io', 'v1')).toBe('apis/certificates.k8s.io/v1');
  });

  test('openApiHash is upper-case hex SHA-512', () => {
    expect(openApiHash('abc')).toBe(createHash('sha512').update('abc').digest('hex').toUpperCase());
    expect(openApiHash('abc')).toMatch(/^[0-9A-F]{128}$/);
  });

  test('buildOpenApiV3 links every group version by the hash of its served bytes', () => {
    const set = buildOpenApiV3({ resources, definitions, versionInfo });
    expect([...set.documents.keys()].sort()).toEqual(['api/v1', 'apis/authentication.example.org/v1', 'apis/certificates.example.org/v1']);
    const index = JSON.parse(set.index.body) as { paths: Record<string, { serverRelativeURL: string }> };
    for (const [key, doc] of set.documents) {
      expect(doc.hash).toBe(openApiHash(doc.body));
      expect(doc.etag).toBe(`"${doc.hash}"`);
      expect(index.paths[key]?.serverRelativeURL).toBe(`/openapi/v3/${key}?hash=${doc.hash}`);
      expect(danglingRefs(JSON.parse(doc.body) as JsonObject, '#/components/schemas/')).toEqual([]);
    }
  });

  test('the same input gives the same hash; different input a different one', () => {
    const a = buildOpenApiV3({ resources, definitions, versionInfo });
    const b = buildOpenApiV3({ resources, definitions, versionInfo });
    const c = buildOpenApiV3({ resources, definitions, versionInfo: { gitVersion: 'v1.32.1-cluster' } });
    expect(a.documents.get('api/v1')?.hash).toBe(b.documents.get('api/v1')?.hash);
    expect(a.documents.get('api/v1')?.hash).not.toBe(c.documents.get('api/v1')?.hash);
  });

  test('an empty index has no paths', () => {
    expect(buildOpenApiV3Index([])).toEqual({ paths: {} });
  });
});
