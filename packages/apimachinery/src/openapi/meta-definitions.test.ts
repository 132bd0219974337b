import { danglingRefs } from './refs.js';
import { defaultGroupVersions, metaDefinitions } from './meta-definitions.js';
import { META_V1 } from './schema-builders.js';
import type { JsonObject } from '../meta/types.js';

const defs = metaDefinitions('example.org');
const def = (name: string): JsonObject => {
  const d = defs[`${META_V1}.${name}`];
  if (!d) throw new Error(`missing ${name}`);
  return d;
};
const prop = (name: string, field: string): JsonObject => (def(name)['properties'] as Record<string, JsonObject>)[field] as JsonObject;

describe('metaDefinitions', () => {
  test.each([
    'ObjectMeta', 'ListMeta', 'ManagedFieldsEntry', 'FieldsV1', 'OwnerReference', 'Time', 'MicroTime', 'Status',
    'StatusDetails', 'StatusCause', 'DeleteOptions', 'Preconditions', 'LabelSelector', 'LabelSelectorRequirement',
    'WatchEvent', 'APIResource', 'APIResourceList', 'APIGroup', 'APIGroupList', 'APIVersions', 'Patch',
  ])('defines %s with a description and a type', (name) => {
    expect(typeof def(name)['description']).toBe('string');
    expect(['object', 'string']).toContain(def(name)['type']);
  });

  test('every $ref resolves inside the table', () => {
    expect(danglingRefs({ definitions: defs }, '#/definitions/')).toEqual([]);
  });

  test('times are date-time strings', () => {
    expect(def('Time')).toMatchObject({ type: 'string', format: 'date-time' });
    expect(def('MicroTime')).toMatchObject({ type: 'string', format: 'date-time' });
  });

  test('ObjectMeta carries the upstream merge markers', () => {
    expect(prop('ObjectMeta', 'ownerReferences')).toMatchObject({
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
    });
    expect(prop('ObjectMeta', 'finalizers')).toMatchObject({ 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' });
    expect(prop('ObjectMeta', 'managedFields')).toMatchObject({ 'x-kubernetes-list-type': 'atomic' });
    expect(prop('ObjectMeta', 'labels')).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    expect(def('OwnerReference')['x-kubernetes-map-type']).toBe('atomic');
    expect(def('LabelSelector')['x-kubernetes-map-type']).toBe('atomic');
  });

  test('integer fields carry a format', () => {
    expect(prop('Status', 'code')).toMatchObject({ type: 'integer', format: 'int32' });
    expect(prop('ObjectMeta', 'generation')).toMatchObject({ type: 'integer', format: 'int64' });
  });

  test('GVK groups are derived from the API domain, never k8s.io', () => {
    const gvks = def('DeleteOptions')['x-kubernetes-group-version-kind'] as JsonObject[];
    expect(gvks).toContainEqual({ group: 'authorization.example.org', kind: 'DeleteOptions', version: 'v1' });
    expect(gvks).toContainEqual({ group: '', kind: 'DeleteOptions', version: 'v1' });
    expect(JSON.stringify(defs)).not.toContain('k8s.io');
    expect(def('Status')['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Status', version: 'v1' }]);
  });

  test('explicit group versions replace the defaults', () => {
    const only = metaDefinitions('k8s.io', [{ group: 'coordination.k8s.io', version: 'v1' }]);
    expect(only[`${META_V1}.WatchEvent`]?.['x-kubernetes-group-version-kind']).toEqual([
      { group: 'coordination.k8s.io', kind: 'WatchEvent', version: 'v1' },
    ]);
    expect(defaultGroupVersions('k8s.io')).toContainEqual({ group: 'rbac.authorization.k8s.io', version: 'v1' });
  });

  test('calls return independent objects', () => {
    const a = metaDefinitions('k8s.io');
    (a[`${META_V1}.Time`] as JsonObject)['format'] = 'changed';
    expect(metaDefinitions('k8s.io')[`${META_V1}.Time`]?.['format']).toBe('date-time');
  });
});
