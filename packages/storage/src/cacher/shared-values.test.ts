import type { KubeObject } from '@cluster/apimachinery';
import { SharedValues } from './shared-values.js';

/** A ConfigMap as decoded from etcd (each call a fresh object, as a watch cache gets them). */
function decoded(name: string, rv: string, time = '2026-11-26T10:00:00Z', manager = 'kubectl-create'): KubeObject {
  return JSON.parse(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace: 'ns',
        uid: `uid-${name}`,
        resourceVersion: rv,
        creationTimestamp: time,
        labels: { app: 'web', tier: 'front' },
        annotations: { 'example.com/revision': '1' },
        finalizers: ['example.com/keep'],
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
        managedFields: [
          { manager, operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:k': {} } } },
        ],
      },
      data: { k: name },
    }),
  ) as KubeObject;
}

describe('SharedValues', () => {
  test('objects keep their exact JSON, key order included', () => {
    const shared = new SharedValues();
    const objects = [decoded('a', '5'), decoded('b', '5'), decoded('c', '6', '2026-11-26T10:00:01Z'), decoded('d', '7', undefined, 'other')];
    const before = objects.map((o) => JSON.stringify(o));
    const after = objects.map((o) => JSON.stringify(shared.share(o)));
    expect(after).toEqual(before);
  });

  test('equal values are held once', () => {
    const shared = new SharedValues();
    const a = shared.share(decoded('a', '5'));
    const b = shared.share(decoded('b', '5'));
    expect(b.metadata.managedFields).toBe(a.metadata.managedFields);
    expect(b.metadata.labels).toBe(a.metadata.labels);
    expect(b.metadata.ownerReferences).toBe(a.metadata.ownerReferences);
    expect(b.metadata.annotations).toBe(a.metadata.annotations);
    expect(b.metadata.finalizers).toBe(a.metadata.finalizers);
    expect(b.metadata.name).not.toBe(a.metadata.name);
    // A later second: the array differs (its time), its fieldsV1 is still shared.
    const c = shared.share(decoded('c', '6', '2026-11-26T10:00:01Z'));
    expect(c.metadata.managedFields).not.toBe(a.metadata.managedFields);
    expect(c.metadata.managedFields![0]!.fieldsV1).toBe(a.metadata.managedFields![0]!.fieldsV1);
    expect(c.metadata.managedFields![0]!.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:k': {} } });
  });

  test('values whose JSON differs are never merged', () => {
    const shared = new SharedValues();
    const a = shared.share(decoded('a', '5'));
    const other = decoded('b', '5');
    // Same keys and values in another order: another JSON, so kept as it is.
    other.metadata.labels = { tier: 'front', app: 'web' };
    const b = shared.share(other);
    expect(b.metadata.labels).not.toBe(a.metadata.labels);
    expect(Object.keys(b.metadata.labels!)).toEqual(['tier', 'app']);
  });

  test('clear forgets the shared instances', () => {
    const shared = new SharedValues();
    const a = shared.share(decoded('a', '5'));
    shared.clear();
    const b = shared.share(decoded('b', '6'));
    expect(b.metadata.labels).not.toBe(a.metadata.labels);
    expect(b.metadata.labels).toEqual(a.metadata.labels);
  });
});
