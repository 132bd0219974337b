import { StatusError } from '../errors/status-error.js';
import type { JsonObject, ManagedFieldsEntry } from '../meta/types.js';
import { applyPatch, type ApplyPatchResult } from './apply-patch.js';
import { LAST_APPLIED_ANNOTATION } from './last-applied.js';
import { widgetType } from './test-schema.js';

const schema = widgetType();
const API = 'example.io/v1';
const T0 = new Date('2024-05-01T10:00:00.123Z');
const T1 = new Date('2024-05-01T11:00:00Z');

const widget = (body: JsonObject = {}, meta: JsonObject = {}): JsonObject => ({
  apiVersion: API,
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', ...meta },
  ...body,
});

function apply(live: JsonObject | undefined, applied: JsonObject, manager: string, force = false, now = T0): ApplyPatchResult {
  return applyPatch({ live, applied, manager, force, schema, apiVersion: API, kind: 'Widget', now });
}

/** [manager, operation, fieldsV1] of each entry, in order. */
const owners = (r: ApplyPatchResult | ManagedFieldsEntry[] | undefined): Array<[string?, string?, JsonObject?]> =>
  (Array.isArray(r) ? r : (r?.managedFields ?? [])).map((e) => [e.manager, e.operation, e.fieldsV1]);

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('applyPatch: ownership (SPEC 4.8 rule 4)', () => {
  test('create via apply: merged object, one Apply entry without identity fields', () => {
    const r = apply(undefined, widget({ data: { a: '1' } }, { labels: { x: 'y' } }), 'm1');
    expect(r.object).toEqual(widget({ data: { a: '1' } }, { labels: { x: 'y' }, managedFields: r.managedFields as unknown as JsonObject[] }));
    expect(r.managedFields).toEqual([
      {
        manager: 'm1',
        operation: 'Apply',
        apiVersion: API,
        time: '2024-05-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } },
      },
    ]);
    expect(Object.keys(r.managedFields?.[0] ?? {})).toEqual(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
  });

  test('two appliers of disjoint fields both own theirs; Apply entries sorted by time then manager', () => {
    const r1 = apply(undefined, widget({ data: { a: '1' } }), 'zeta', false, T0);
    const r2 = apply(r1.object, widget({ data: { b: '2' } }), 'alpha', false, T1);
    expect(r2.object['data']).toEqual({ a: '1', b: '2' });
    expect(owners(r2)).toEqual([
      ['zeta', 'Apply', { 'f:data': { 'f:a': {} } }],
      ['alpha', 'Apply', { 'f:data': { 'f:b': {} } }],
    ]);
  });

  test('applying a different value owned by another applier is a 409 with one cause per field', () => {
    const r1 = apply(undefined, widget({ data: { a: '1' } }), 'm1');
    const err = statusOf(() => apply(r1.object, widget({ data: { a: '2' } }), 'm2'));
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "m1": .data.a',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "m1"', field: '.data.a' }] },
      code: 409,
    });
  });

  test('conflicts with Update managers name their apiVersion; several are grouped per manager', () => {
    const live = widget({ data: { a: '1', b: '1' }, spec: { replicas: 1 } });
    const mf: ManagedFieldsEntry[] = [
      { manager: 'm1', operation: 'Apply', apiVersion: API, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: API,
        time: '2024-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } },
      },
    ];
    (live['metadata'] as JsonObject)['managedFields'] = mf as unknown as JsonObject[];
    const one = statusOf(() => apply(live, widget({ data: { a: '2' } }), 'm2'));
    expect(one.status.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using example.io/v1: .data.a');
    expect(one.status.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using example.io/v1', field: '.data.a' },
    ]);
    const many = statusOf(() => apply(live, widget({ data: { a: '2', b: '2' }, spec: { replicas: 3 } }), 'm2'));
    expect(many.status.code).toBe(409);
    expect(many.status.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "kubectl-client-side-apply" using example.io/v1:\n- .data.a\n- .data.b\nconflicts with "m1":\n- .spec.replicas',
    );
    expect(many.status.details?.causes?.map((c) => c.field)).toEqual(['.data.a', '.data.b', '.spec.replicas']);
  });

  test('force changes the value, transfers ownership and drops emptied entries', () => {
    const r1 = apply(undefined, widget({ data: { a: '1' } }), 'm1');
    const r2 = apply(r1.object, widget({ data: { a: '2' } }), 'm2', true);
    expect(r2.object['data']).toEqual({ a: '2' });
    expect(owners(r2)).toEqual([['m2', 'Apply', { 'f:data': { 'f:a': {} } }]]);
  });

  test('force keeps the other fields of the losing manager', () => {
    const r1 = apply(undefined, widget({ data: { a: '1', b: '1' } }), 'm1');
    const r2 = apply(r1.object, widget({ data: { a: '2' } }), 'm2', true, T1);
    expect(owners(r2)).toEqual([
      ['m1', 'Apply', { 'f:data': { 'f:b': {} } }],
      ['m2', 'Apply', { 'f:data': { 'f:a': {} } }],
    ]);
  });

  test('a live key named like an Object.prototype member survives an apply that does not name it', () => {
    const r1 = apply(undefined, widget({ data: { constructor: '1' } }), 'm1');
    const r2 = apply(r1.object, widget({ data: { a: '2' } }), 'm2');
    expect(r2.object['data']).toEqual({ constructor: '1', a: '2' });
    expect(owners(r2)).toEqual([
      ['m1', 'Apply', { 'f:data': { 'f:constructor': {} } }],
      ['m2', 'Apply', { 'f:data': { 'f:a': {} } }],
    ]);
  });

  test('the same value is shared ownership, not a conflict', () => {
    const r1 = apply(undefined, widget({ data: { a: '1' } }), 'm1');
    const r2 = apply(r1.object, widget({ data: { a: '1' } }), 'm2');
    // m2 did not change the object, so its entry has no time (upstream sets it only on change)
    // and sorts first, as a zero time does upstream.
    expect(owners(r2).map((o) => [o[0], o[2]])).toEqual([
      ['m2', { 'f:data': { 'f:a': {} } }],
      ['m1', { 'f:data': { 'f:a': {} } }],
    ]);
    expect(r2.managedFields?.[0]?.time).toBeUndefined();
  });
});

describe('applyPatch: giving up and removing fields (rules 5 and 6)', () => {
  test('dropping a shared field from the configuration gives up ownership, value unchanged', () => {
    const r1 = apply(undefined, widget({ data: { a: '1' } }), 'm1');
    const r2 = apply(r1.object, widget({ data: { a: '1', b: '2' } }), 'm2');
    const r3 = apply(r2.object, widget({ data: { b: '2' } }), 'm2');
    expect(r3.object['data']).toEqual({ a: '1', b: '2' });
    expect(owners(r3).map((o) => [o[0], o[2]])).toEqual([
      ['m1', { 'f:data': { 'f:a': {} } }],
      ['m2', { 'f:data': { 'f:b': {} } }],
    ]);
  });

  test.each<[string, JsonObject, JsonObject, JsonObject]>([
    ['map key', { data: { a: '1', b: '2' } }, { data: { a: '1' } }, { a: '1' }],
    ['whole map', { data: { a: '1' }, spec: { replicas: 1 } }, { spec: { replicas: 1 } }, { spec: { replicas: 1 } }],
  ])('a field no longer applied and owned by nobody else is removed: %s', (_n, first, second, expected) => {
    const r1 = apply(undefined, widget(first), 'm1');
    const r2 = apply(r1.object, widget(second), 'm1');
    if ('data' in second) expect(r2.object['data']).toEqual(expected);
    else {
      expect(r2.object['data']).toBeUndefined();
      expect(r2.object['spec']).toEqual(expected['spec']);
    }
  });

  test('a struct left empty disappears; other managers keep their fields', () => {
    const r1 = apply(undefined, widget({ spec: { replicas: 1, paused: true } }), 'm1');
    const r2 = apply(r1.object, widget({}), 'm1');
    expect(r2.object['spec']).toBeUndefined();
    expect(r2.managedFields).toBeUndefined();
    expect((r2.object['metadata'] as JsonObject)['managedFields']).toBeUndefined();
  });

  test('fields also owned by another applier or an updater are kept', () => {
    const r1 = apply(undefined, widget({ data: { a: '1', b: '1', c: '1' } }), 'm1');
    const r2 = apply(r1.object, widget({ data: { b: '1' } }), 'm2');
    const mf = [
      ...(r2.managedFields ?? []),
      { manager: 'editor', operation: 'Update', apiVersion: API, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:c': {} } } },
    ] as ManagedFieldsEntry[];
    const live = { ...r2.object, metadata: { ...(r2.object['metadata'] as JsonObject), managedFields: mf as unknown as JsonObject[] } };
    const r3 = apply(live, widget({ data: {} }), 'm1');
    expect(r3.object['data']).toEqual({ b: '1', c: '1' });
    expect(owners(r3).map((o) => o[0])).toEqual(['m2', 'm1', 'editor']);
    expect(r3.managedFields?.[1]?.fieldsV1).toEqual({ 'f:data': {} });
  });
});

describe('applyPatch: list and map markers', () => {
  test('map-list items merge by key; items of another applier stay; own dropped items go', () => {
    const r1 = apply(undefined, widget({ spec: { ports: [{ port: 80, name: 'http' }, { port: 443 }] } }), 'm1');
    const r2 = apply(r1.object, widget({ spec: { ports: [{ port: 53, protocol: 'UDP' }] } }), 'm2');
    expect((r2.object['spec'] as JsonObject)['ports']).toEqual([{ port: 80, name: 'http' }, { port: 443 }, { port: 53, protocol: 'UDP' }]);
    const r3 = apply(r2.object, widget({ spec: { ports: [{ port: 443, name: 'https' }] } }), 'm1');
    expect((r3.object['spec'] as JsonObject)['ports']).toEqual([{ port: 443, name: 'https' }, { port: 53, protocol: 'UDP' }]);
    expect(r3.managedFields?.find((e) => e.manager === 'm1')?.fieldsV1).toEqual({
      'f:spec': { 'f:ports': { 'k:{"port":443,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } } },
    });
  });

  test('a field of a map-list item owned by another applier conflicts', () => {
    const r1 = apply(undefined, widget({ spec: { containers: [{ name: 'c', image: 'v1' }] } }), 'm1');
    const err = statusOf(() => apply(r1.object, widget({ spec: { containers: [{ name: 'c', image: 'v2' }] } }), 'm2'));
    expect(err.status.message).toBe('Apply failed with 1 conflict: conflict with "m1": .spec.containers[name="c"].image');
  });

  test('shared items keep the configuration order, live-only items keep their place', () => {
    const r1 = apply(undefined, widget({ spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } }), 'm1');
    const r2 = apply(r1.object, widget({ spec: { containers: [{ name: 'c' }, { name: 'a' }, { name: 'd' }] } }), 'm2');
    expect(((r2.object['spec'] as JsonObject)['containers'] as JsonObject[]).map((c) => c['name'])).toEqual(['b', 'c', 'a', 'd']);
  });

  test('set lists are unions; each applier removes only its own items', () => {
    const r1 = apply(undefined, widget({ spec: { tags: ['a', 'b'] } }), 'm1');
    const r2 = apply(r1.object, widget({ spec: { tags: ['b', 'c'] } }), 'm2');
    expect((r2.object['spec'] as JsonObject)['tags']).toEqual(['a', 'b', 'c']);
    const r3 = apply(r2.object, widget({ spec: { tags: [] } }), 'm1');
    expect((r3.object['spec'] as JsonObject)['tags']).toEqual(['b', 'c']);
  });

  test('atomic lists and maps are replaced whole and owned whole', () => {
    const r1 = apply(undefined, widget({ spec: { args: ['x', 'y'], selector: { a: '1' }, ref: { kind: 'K', name: 'n' } } }), 'm1');
    const err = statusOf(() => apply(r1.object, widget({ spec: { selector: { b: '2' }, args: ['z'] } }), 'm2'));
    expect(err.status.details?.causes?.map((c) => c.field)).toEqual(['.spec.args', '.spec.selector']);
    const r2 = apply(r1.object, widget({ spec: { selector: { b: '2' }, args: ['z'] } }), 'm2', true);
    expect(r2.object['spec']).toEqual({ args: ['z'], selector: { b: '2' }, ref: { kind: 'K', name: 'n' } });
    expect(r2.managedFields?.find((e) => e.manager === 'm2')?.fieldsV1).toEqual({ 'f:spec': { 'f:args': {}, 'f:selector': {} } });
  });

  test('granular maps merge key by key', () => {
    const r1 = apply(undefined, widget({ spec: { settings: { a: '1' } } }), 'm1');
    const r2 = apply(r1.object, widget({ spec: { settings: { b: '2' } } }), 'm2');
    expect((r2.object['spec'] as JsonObject)['settings']).toEqual({ a: '1', b: '2' });
  });
});

describe('applyPatch: schema changes (rule 10)', () => {
  const withMf = (obj: JsonObject, mf: ManagedFieldsEntry[]): JsonObject => ({
    ...obj,
    metadata: { ...(obj['metadata'] as JsonObject), managedFields: mf as unknown as JsonObject[] },
  });
  const entry = (manager: string, fieldsV1: JsonObject): ManagedFieldsEntry => ({ manager, operation: 'Apply', apiVersion: API, fieldsType: 'FieldsV1', fieldsV1 });

  test('owners of elements of a now-atomic map own the whole field', () => {
    const live = withMf(widget({ spec: { selector: { a: '1' } } }), [entry('old', { 'f:spec': { 'f:selector': { 'f:a': {} } } })]);
    const err = statusOf(() => apply(live, widget({ spec: { selector: { a: '1', b: '2' } } }), 'm2'));
    expect(err.status.message).toBe('Apply failed with 1 conflict: conflict with "old": .spec.selector');
  });

  test('owner of a now-granular field keeps it; element changes do not conflict', () => {
    const live = withMf(widget({ spec: { settings: { a: '1' } } }), [entry('old', { 'f:spec': { 'f:settings': {} } })]);
    const r = apply(live, widget({ spec: { settings: { b: '2' } } }), 'm2');
    expect((r.object['spec'] as JsonObject)['settings']).toEqual({ a: '1', b: '2' });
  });
});

describe('applyPatch: first apply, no-ops, kubectl and bad input', () => {
  test('existing fields of an object without managedFields belong to before-first-apply', () => {
    const live = widget({ data: { a: '1' } }, { uid: 'u1', labels: { x: 'y' } });
    const err = statusOf(() => apply(live, widget({ data: { a: '2' } }), 'm1'));
    expect(err.status.message).toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using example.io/v1: .data.a');
    const r = apply(live, widget({ data: { b: '2' } }), 'm1');
    expect(owners(r)).toEqual([
      ['m1', 'Apply', { 'f:data': { 'f:b': {} } }],
      ['before-first-apply', 'Update', { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } }],
    ]);
  });

  test('re-applying the same configuration changes nothing and keeps the entry time', () => {
    const r1 = apply(undefined, widget({ data: { a: '1' } }), 'm1', false, T0);
    const r2 = apply(r1.object, widget({ data: { a: '1' } }), 'm1', false, T1);
    expect(r2.object).toEqual(r1.object);
    expect(r2.managedFields?.[0]?.time).toBe('2024-05-01T10:00:00Z');
  });

  test('kubectl takes over fields it set with client-side apply and keeps the annotation in sync', () => {
    const lastApplied = JSON.stringify(widget({ data: { a: '1' } }));
    const live = widget({ data: { a: '1', b: '1' } }, { annotations: { [LAST_APPLIED_ANNOTATION]: lastApplied } });
    (live['metadata'] as JsonObject)['managedFields'] = [
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: API,
        time: '2024-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:annotations': { '.': {}, [`f:${LAST_APPLIED_ANNOTATION}`]: {} } } },
      },
    ];
    const applied = widget({ data: { a: '2' } });
    const r = apply(live, applied, 'kubectl');
    expect(r.object['data']).toEqual({ a: '2', b: '1' });
    const ann = ((r.object['metadata'] as JsonObject)['annotations'] as JsonObject)[LAST_APPLIED_ANNOTATION];
    expect(ann).toBe('{"apiVersion":"example.io/v1","data":{"a":"2"},"kind":"Widget","metadata":{"name":"w","namespace":"ns"}}\n');
    // b is not in the last-applied configuration: another manager may not take it without force.
    expect(() => apply(live, widget({ data: { b: '2' } }), 'kubectl')).toThrow('conflict with "kubectl-client-side-apply" using example.io/v1: .data.b');
    expect(() => apply(live, applied, 'other')).toThrow('Apply failed with 1 conflict');
  });

  test.each<[string, JsonObject, number, string]>([
    ['another kind', { ...widget(), kind: 'Gadget' }, 400, 'invalid object type: example.io/v1, Kind=Gadget'],
    ['another version', { ...widget(), apiVersion: 'example.io/v2' }, 400, 'invalid object type: example.io/v2, Kind=Widget'],
    ['no apiVersion', { kind: 'Widget', metadata: { name: 'w' } }, 400, 'invalid object type: /, Kind=Widget'],
    ['managedFields in the body', widget({}, { managedFields: [] }), 400, 'metadata.managedFields must be nil'],
    [
      'duplicate list keys',
      widget({ spec: { tags: ['a', 'a'] } }),
      500,
      'Internal error occurred: failed to create typed patch object (example.io/v1, Kind=Widget ns/w): .spec.tags: duplicate entries for key [="a"]',
    ],
  ])('rejects %s', (_n, body, code, message) => {
    const err = statusOf(() => apply(undefined, body, 'm1'));
    expect(err.status.code).toBe(code);
    expect(err.status.message).toBe(message);
  });

  test('inputs are not modified', () => {
    const r1 = apply(undefined, widget({ data: { a: '1' } }), 'm1');
    const snapshot = JSON.stringify(r1.object);
    const applied = widget({ data: { a: '2' } });
    apply(r1.object, applied, 'm2', true);
    expect(JSON.stringify(r1.object)).toBe(snapshot);
    expect(applied).toEqual(widget({ data: { a: '2' } }));
  });
});
