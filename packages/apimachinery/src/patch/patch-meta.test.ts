import { EMPTY_PATCH_SCHEMA, patchMetaFromOpenApi, type OpenApiSchema, type PatchSchema } from './patch-meta.js';
import { testDefinitions } from './smp-test-schema.js';

function at(schema: PatchSchema, path: string[]): ReturnType<PatchSchema['lookup']> {
  let cur: ReturnType<PatchSchema['lookup']> = { meta: {}, schema };
  for (const key of path) cur = cur.schema.lookup(key);
  return cur;
}

describe('patchMetaFromOpenApi', () => {
  const pod = patchMetaFromOpenApi(testDefinitions, 'Pod');

  test.each<[string[], { patchStrategy?: string; patchMergeKey?: string }, string]>([
    [['metadata'], {}, 'struct'],
    [['metadata', 'finalizers'], { patchStrategy: 'merge' }, 'string'],
    [['metadata', 'ownerReferences'], { patchStrategy: 'merge', patchMergeKey: 'uid' }, 'struct'],
    [['metadata', 'labels'], {}, 'map'],
    [['metadata', 'labels', 'app'], {}, 'string'],
    [['spec', 'containers'], { patchStrategy: 'merge', patchMergeKey: 'name' }, 'struct'],
    [['spec', 'containers', 'env'], { patchStrategy: 'merge', patchMergeKey: 'name' }, 'struct'],
    [['spec', 'volumes'], { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' }, 'struct'],
    [['spec', 'strategy'], { patchStrategy: 'retainKeys' }, 'struct'],
    [['spec', 'tolerations'], {}, 'struct'],
    [['spec', 'nope'], {}, 'struct'],
    [['spec', 'containers', 'nope', 'deeper'], {}, 'struct'],
  ])('%j', (path, meta, name) => {
    const got = at(pod, path);
    expect(got.meta).toEqual(meta);
    expect(got.schema.name).toBe(name);
  });

  test('an unknown root knows nothing', () => {
    expect(patchMetaFromOpenApi(testDefinitions, 'Nope')).toBe(EMPTY_PATCH_SCHEMA);
  });

  test('v3-style allOf wrappers and components refs are followed; the wrapper carries the extensions', () => {
    const defs: Record<string, OpenApiSchema> = {
      Spec: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            items: { allOf: [{ $ref: '#/components/schemas/Item' }] },
            'x-kubernetes-patch-strategy': 'merge',
            'x-kubernetes-patch-merge-key': 'id',
          },
          tpl: { allOf: [{ $ref: '#/components/schemas/Spec' }], 'x-kubernetes-patch-strategy': 'replace' },
        },
      },
      Item: { type: 'object', properties: { id: { type: 'integer', format: 'int32' } } },
    };
    const spec = patchMetaFromOpenApi(defs, 'Spec');
    expect(at(spec, ['items'])).toMatchObject({ meta: { patchStrategy: 'merge', patchMergeKey: 'id' } });
    expect(at(spec, ['items', 'id']).schema.name).toBe('int32');
    expect(at(spec, ['tpl']).meta).toEqual({ patchStrategy: 'replace' });
    // Recursive definitions resolve lazily to the same schema object.
    expect(at(spec, ['tpl', 'tpl']).schema).toBe(at(spec, ['tpl']).schema);
  });

  test('reference cycles and dangling refs end in the empty schema', () => {
    const defs: Record<string, OpenApiSchema> = {
      A: { $ref: '#/definitions/B' },
      B: { $ref: '#/definitions/A' },
      C: { properties: { x: { $ref: '#/definitions/Missing' } } },
    };
    expect(patchMetaFromOpenApi(defs, 'A')).toBe(EMPTY_PATCH_SCHEMA);
    expect(at(patchMetaFromOpenApi(defs, 'C'), ['x']).schema).toBe(EMPTY_PATCH_SCHEMA);
  });
});
