import { fieldErrorMessage, type JSONSchemaProps, type KubeObject } from '@cluster/apimachinery';
import { customResourceStrategy, type CustomResourceVersionSpec } from './strategy.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { replicas: { type: 'integer', default: 1, maximum: 5 }, image: { type: 'string' } } },
    status: { type: 'object', properties: { ready: { type: 'boolean' }, replicas: { type: 'integer' } } },
  },
};
const spec = (extra: Partial<CustomResourceVersionSpec> = {}): CustomResourceVersionSpec => ({
  namespaced: true,
  schema,
  statusSubresource: true,
  columns: [
    { name: 'Image', type: 'string', jsonPath: '.spec.image' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ready', type: 'string', jsonPath: '.status.ready' },
  ],
  ...extra,
});
const obj = (body: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'stable.example.com/v1',
  kind: 'CronTab',
  metadata: { name: 'c', namespace: 'default', generation: 1 },
  ...body,
});

describe('customResourceStrategy', () => {
  test('create drops status (status subresource), sets generation 1 and defaults', () => {
    const o = obj({ spec: {}, status: { ready: true } });
    customResourceStrategy(spec()).prepareForCreate(o, {});
    expect(o).toMatchObject({ spec: { replicas: 1 }, metadata: { generation: 1 } });
    expect(o['status']).toBeUndefined();
  });

  test('without the status subresource status is written like the rest', () => {
    const o = obj({ spec: {}, status: { ready: true } });
    customResourceStrategy(spec({ statusSubresource: false })).prepareForCreate(o, {});
    expect(o['status']).toEqual({ ready: true });
  });

  test.each<[string, Record<string, unknown>, number]>([
    ['spec change counts', { spec: { replicas: 2, image: 'b' } }, 2],
    ['metadata-only change does not', { spec: { replicas: 2, image: 'a' } }, 1],
  ])('update generation: %s', (_name, body, generation) => {
    const old = obj({ spec: { replicas: 2, image: 'a' }, status: { ready: true } });
    const next = obj({ ...body, status: { ready: false } });
    next.metadata.labels = { a: 'b' };
    customResourceStrategy(spec()).prepareForUpdate(next, old, {});
    expect(next.metadata.generation).toBe(generation);
    expect(next['status']).toEqual({ ready: true });
  });

  test('validation names the field and ignores type meta', () => {
    const errs = customResourceStrategy(spec()).validate(obj({ spec: { replicas: 9, image: 3 } }));
    expect(errs.map(fieldErrorMessage)).toEqual([
      'spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5',
      'spec.image: Invalid value: "integer": spec.image in body must be of type string: "integer"',
    ]);
  });

  test('the status subresource takes only status', () => {
    const status = customResourceStrategy(spec()).subresources!['status']!;
    const merged = status.merge(obj({ spec: { replicas: 5 }, status: { ready: true } }), obj({ spec: { replicas: 2 } }));
    expect(merged).toMatchObject({ spec: { replicas: 2 }, status: { ready: true } });
  });

  test('table cells follow the printer columns', () => {
    const table = customResourceStrategy(spec()).table!;
    expect(table.columns.map((c) => `${c.name}:${c.type}`)).toEqual(['Name:string', 'Image:string', 'Replicas:integer', 'Ready:string']);
    expect(table.cells(obj({ spec: { image: 'x', replicas: 2 }, status: { ready: true } }))).toEqual(['c', 'x', 2, 'true']);
    expect(table.cells(obj({ spec: {} }))).toEqual(['c', null, null, null]);
  });

  test('no printer columns: Name and Age', () => {
    const table = customResourceStrategy(spec({ columns: [] })).table!;
    expect(table.columns.map((c) => c.name)).toEqual(['Name', 'Age']);
    expect(table.cells(obj())[1]).toBeNull();
  });

  test('scale reads and writes the replica paths', () => {
    const scale = customResourceStrategy(spec({ scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } })).subresources!['scale']!;
    const current = obj({ spec: { replicas: 2 }, status: { replicas: 1 } });
    expect(scale.view!.toView(current)).toMatchObject({ spec: { replicas: 2 }, status: { replicas: 1 } });
    const scaleOf = (replicas: number) => ({ metadata: { name: 'x' }, spec: { replicas } });
    const requested = scale.view!.fromView(scaleOf(4), current);
    expect(requested).toMatchObject({ spec: { replicas: 4 }, status: { replicas: 1 } });
    const merged = scale.merge(requested, current);
    expect(merged).toMatchObject({ spec: { replicas: 4 }, status: { replicas: 1 }, metadata: { generation: 2 } });
    expect(() => scale.view!.fromView(scaleOf(-1), current)).toThrow('must be greater than or equal to 0');
  });

  test('a terminating CRD refuses new objects with 405', () => {
    expect(() => customResourceStrategy(spec({ terminating: true })).prepareForCreate(obj(), {})).toThrow(
      'create not allowed while custom resource definition is terminating',
    );
  });
});
