import type { JsonObject } from '@cluster/apimachinery';
import { mergeOpenApiV2 } from './openapi-v2-merge.js';

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
const getOp = (def: string) => ({ get: { operationId: `read${def}`, responses: { '200': { description: 'OK', schema: ref(def) } } } });

const local: JsonObject = {
  swagger: '2.0',
  info: { title: 'Kubernetes', version: 'v1.24.0' },
  paths: { '/api/v1/namespaces': getOp('io.k8s.api.core.v1.NamespaceList') },
  definitions: {
    'io.k8s.api.core.v1.NamespaceList': { type: 'object', properties: { metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta') } },
    'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta': { type: 'object', properties: { continue: { type: 'string' } } },
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object', properties: { name: { type: 'string' } } },
  },
  securityDefinitions: { BearerToken: { type: 'apiKey' } },
};

const wardle: JsonObject = {
  swagger: '2.0',
  info: { title: 'wardle', version: 'v0' },
  paths: {
    '/apis/wardle.example.io/v1/namespaces/{namespace}/flunders': { ...getOp('io.example.wardle.v1.FlunderList'), parameters: [{ $ref: '#/parameters/namespace-vgWSWtn3' }] },
    '/apis/wardle.example.io/v1/namespaces/{namespace}/flunders/{name}': getOp('io.example.wardle.v1.Flunder'),
    // Not its group version, and a path served here: neither is taken.
    '/apis/apps/v1/deployments': getOp('io.example.Evil'),
    '/api/v1/namespaces': getOp('io.example.Evil'),
    '/version': getOp('io.example.Evil'),
  },
  definitions: {
    'io.example.wardle.v1.FlunderList': { type: 'object', properties: { items: { type: 'array', items: ref('io.example.wardle.v1.Flunder') }, metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta') } },
    'io.example.wardle.v1.Flunder': { type: 'object', description: 'A flunder.', properties: { metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') } },
    // Same name as here, other content (an older apimachinery): renamed. ListMeta is identical: shared.
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object', properties: { name: { type: 'string' }, clusterName: { type: 'string' } } },
    'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta': { type: 'object', properties: { continue: { type: 'string' } } },
    'io.example.Evil': { type: 'object' },
    'io.example.Unused': { type: 'object' },
  },
  parameters: { 'namespace-vgWSWtn3': { in: 'path', name: 'namespace', required: true, type: 'string' } },
};

describe('mergeOpenApiV2', () => {
  const merged = mergeOpenApiV2(local, [{ group: 'wardle.example.io', version: 'v1', doc: wardle }]);
  const paths = merged['paths'] as JsonObject;
  const defs = merged['definitions'] as Record<string, JsonObject>;

  test("the extension's own group version's paths are added; others and conflicts are not", () => {
    expect(Object.keys(paths).sort()).toEqual(['/api/v1/namespaces', '/apis/wardle.example.io/v1/namespaces/{namespace}/flunders', '/apis/wardle.example.io/v1/namespaces/{namespace}/flunders/{name}']);
    expect(paths['/api/v1/namespaces']).toEqual(getOp('io.k8s.api.core.v1.NamespaceList'));
    expect(merged['info']).toEqual(local['info']);
    expect(merged['securityDefinitions']).toEqual(local['securityDefinitions']);
  });

  test('definitions reached are added, identical ones shared, different ones renamed _v2 with their refs', () => {
    expect(Object.keys(defs)).toEqual([
      'io.example.wardle.v1.Flunder',
      'io.example.wardle.v1.FlunderList',
      'io.k8s.api.core.v1.NamespaceList',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2',
    ]);
    expect(defs['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toEqual(local['definitions'] && (local['definitions'] as JsonObject)['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    expect(defs['io.example.wardle.v1.Flunder']).toEqual({ type: 'object', description: 'A flunder.', properties: { metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2') } });
    expect(defs['io.example.wardle.v1.FlunderList']!['properties']).toEqual({ items: { type: 'array', items: ref('io.example.wardle.v1.Flunder') }, metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta') });
  });

  test('shared parameters come along', () => {
    expect(merged['parameters']).toEqual({ 'namespace-vgWSWtn3': { in: 'path', name: 'namespace', required: true, type: 'string' } });
  });

  test('inputs are not mutated; a second extension renames past _v2; the first path wins', () => {
    expect(Object.keys(local['paths'] as JsonObject)).toEqual(['/api/v1/namespaces']);
    const other: JsonObject = {
      paths: { '/apis/wardle.example.io/v1/namespaces/{namespace}/flunders/{name}': getOp('X'), '/apis/other.example.io/v1/things': getOp('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') },
      definitions: { 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object', description: 'third' }, X: { type: 'string' } },
    };
    const twice = mergeOpenApiV2(local, [
      { group: 'wardle.example.io', version: 'v1', doc: wardle },
      { group: 'other.example.io', version: 'v1', doc: other },
      { group: 'wardle.example.io', version: 'v1', doc: other },
    ]);
    const d = twice['definitions'] as JsonObject;
    expect(d['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v3']).toEqual({ type: 'object', description: 'third' });
    expect((twice['paths'] as JsonObject)['/apis/other.example.io/v1/things']).toEqual({ get: { operationId: 'readio.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', responses: { '200': { description: 'OK', schema: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v3') } } } });
    expect((twice['paths'] as JsonObject)['/apis/wardle.example.io/v1/namespaces/{namespace}/flunders/{name}']).toEqual(getOp('io.example.wardle.v1.Flunder'));
    expect(d['X']).toBeUndefined();
  });

  test('malformed documents add nothing and break nothing', () => {
    for (const doc of [{}, { paths: 'x' }, { paths: { '/apis/wardle.example.io/v1/x': 'not an object' } }, { paths: { '/apis/wardle.example.io/v1/x': { get: { $ref: '#/definitions/missing' } } }, definitions: 7 }] as JsonObject[]) {
      const out = mergeOpenApiV2(local, [{ group: 'wardle.example.io', version: 'v1', doc }]);
      expect(Object.keys(out['definitions'] as JsonObject)).toEqual(Object.keys(local['definitions'] as JsonObject).sort());
    }
    expect(mergeOpenApiV2(local, [])).toBe(local);
  });
});
