import type { JsonObject, ManagedFieldsEntry } from '../meta/types.js';
import { applyPatch } from './apply-patch.js';
import { updateManagedFields, type UpdateManagedFieldsInput } from './field-manager.js';
import { widgetType } from './test-schema.js';

const schema = widgetType();
const API = 'example.io/v1';
const T0 = new Date('2024-05-01T10:00:00Z');
const T1 = new Date('2024-05-01T11:00:00Z');

const widget = (body: JsonObject = {}, meta: JsonObject = {}): JsonObject => ({
  apiVersion: API,
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', ...meta },
  ...body,
});

/** Object as stored: uid set, managedFields attached. */
const stored = (obj: JsonObject, mf: ManagedFieldsEntry[] | undefined): JsonObject => ({
  ...obj,
  metadata: { ...(obj['metadata'] as JsonObject), uid: 'u1', resourceVersion: '5', ...(mf ? { managedFields: mf as unknown as JsonObject[] } : {}) },
});

function update(live: JsonObject | undefined, updated: JsonObject, manager: string, extra: Partial<UpdateManagedFieldsInput> = {}): ManagedFieldsEntry[] | undefined {
  return updateManagedFields({ live, updated, manager, schema, apiVersion: API, now: T0, ...extra });
}

const owners = (mf: ManagedFieldsEntry[] | undefined): Array<[string?, string?, JsonObject?]> =>
  (mf ?? []).map((e) => [e.manager, e.operation, e.fieldsV1]);

describe('updateManagedFields', () => {
  test('create: the manager owns every field it set except identity and server metadata', () => {
    const mf = update(undefined, widget({ data: { a: '1' } }, { labels: { x: 'y' }, uid: 'u', resourceVersion: '1', generation: 1 }), 'kubectl-create');
    expect(mf).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: API,
        time: '2024-05-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } },
      },
    ]);
  });

  test('an Update after an Apply takes the fields it modifies, without conflict (rule 3)', () => {
    const applied = applyPatch({ live: undefined, applied: widget({ data: { a: '1', b: '1' } }), manager: 'm1', force: false, schema, apiVersion: API, now: T0 });
    const live = stored(applied.object, applied.managedFields);
    const mf = update(live, widget({ data: { a: '2', b: '1' } }), 'kubectl-edit', { now: T1 });
    expect(owners(mf)).toEqual([
      ['m1', 'Apply', { 'f:data': { 'f:b': {} } }],
      ['kubectl-edit', 'Update', { 'f:data': { 'f:a': {} } }],
    ]);
    expect(mf?.[1]?.time).toBe('2024-05-01T11:00:00Z');
  });

  test('removed fields leave every manager', () => {
    const created = update(undefined, widget({ data: { a: '1', b: '1' } }), 'creator');
    const mf = update(stored(widget({ data: { a: '1', b: '1' } }), created), widget({ data: { a: '1' } }), 'editor');
    expect(owners(mf)).toEqual([['creator', 'Update', { 'f:data': { '.': {}, 'f:a': {} } }]]);
  });

  test('entries merge per manager, operation and subresource; time only moves on change', () => {
    const created = update(undefined, widget({ data: { a: '1' } }), 'ctl');
    const live1 = stored(widget({ data: { a: '1' } }), created);
    const again = update(live1, widget({ data: { a: '1', b: '2' } }), 'ctl', { now: T1 });
    expect(owners(again)).toEqual([['ctl', 'Update', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } }]]);
    expect(again?.[0]?.time).toBe('2024-05-01T11:00:00Z');
    const noop = update(stored(widget({ data: { a: '1', b: '2' } }), again), widget({ data: { a: '1', b: '2' } }), 'ctl', { now: T0 });
    expect(noop?.[0]?.time).toBe('2024-05-01T11:00:00Z');
    const status = update(stored(widget({ data: { a: '1', b: '2' } }), again), widget({ data: { a: '1', b: '2' }, spec: { paused: true } }), 'ctl', {
      subresource: 'status',
    });
    expect(status?.map((e) => [e.manager, e.subresource])).toEqual([
      ['ctl', 'status'],
      ['ctl', undefined],
    ]);
    expect(Object.keys(status?.[0] ?? {})).toEqual(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource']);
  });

  test('an empty manager name is recorded as "unknown"', () => {
    expect(update(undefined, widget({ data: { a: '1' } }), '')?.[0]?.manager).toBe('unknown');
  });

  describe('managedFields in the request (rule 9)', () => {
    const created = update(undefined, widget({ data: { a: '1' } }), 'creator');
    const live = stored(widget({ data: { a: '1' } }), created);

    test('[{}] resets; the requester then owns what it changed', () => {
      const mf = update(live, widget({ data: { a: '1', b: '2' } }, { managedFields: [{}] }), 'editor');
      expect(owners(mf)).toEqual([['editor', 'Update', { 'f:data': { 'f:b': {} } }]]);
    });

    test('[{}] without other changes strips managedFields', () => {
      expect(update(live, widget({ data: { a: '1' } }, { managedFields: [{}] }), 'editor')).toBeUndefined();
      expect(update(live, widget({ data: { a: '1' } }, { managedFields: [{}, { manager: '' }] }), 'editor')).toBeUndefined();
    });

    test('upstream mode: a reset leaves the object untracked', () => {
      expect(update(live, widget({ data: { b: '2' } }, { managedFields: [{}] }), 'editor', { ownFieldsAfterReset: false })).toBeUndefined();
    });

    test('an empty list does not reset', () => {
      expect(owners(update(live, widget({ data: { a: '1' } }, { managedFields: [] }), 'editor'))).toEqual(owners(created));
    });

    test('valid managedFields from the client are taken as written', () => {
      const edited: ManagedFieldsEntry[] = [{ manager: 'someone', operation: 'Apply', apiVersion: API, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
      expect(owners(update(live, widget({ data: { a: '1' } }, { managedFields: edited as unknown as JsonObject[] }), 'editor'))).toEqual([
        ['someone', 'Apply', { 'f:data': { 'f:a': {} } }],
      ]);
    });

    test.each<[string, JsonObject]>([
      ['bad operation', { manager: 'x', operation: 'Bogus', apiVersion: API, fieldsType: 'FieldsV1', fieldsV1: {} }],
      ['no apiVersion', { manager: 'x', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: {} }],
      ['no fieldsType', { manager: 'x', operation: 'Update', apiVersion: API, fieldsV1: {} }],
      ['bad fieldsType', { manager: 'x', operation: 'Update', apiVersion: API, fieldsType: 'FieldsV2', fieldsV1: {} }],
      ['bad fieldsV1', { manager: 'x', operation: 'Update', apiVersion: API, fieldsType: 'FieldsV1', fieldsV1: { 'i:x': {} } }],
    ])('invalid managedFields (%s) fall back to the live ones', (_n, entry) => {
      expect(owners(update(live, widget({ data: { a: '1' } }, { managedFields: [entry] }), 'editor'))).toEqual(owners(created));
    });
  });

  test('keys named like Object.prototype members are owned, kept and removed like any other', () => {
    const created = update(undefined, widget({ data: { constructor: '1', toString: '1' } }), 'creator');
    expect(owners(created)).toEqual([['creator', 'Update', { 'f:data': { '.': {}, 'f:constructor': {}, 'f:toString': {} } }]]);
    // An update removing one of them and adding another: removal leaves the creator, the addition is the editor's.
    const mf = update(stored(widget({ data: { constructor: '1', toString: '1' } }), created), widget({ data: { toString: '1', valueOf: '2' } }), 'editor', { now: T1 });
    expect(owners(mf)).toEqual([
      ['creator', 'Update', { 'f:data': { '.': {}, 'f:toString': {} } }],
      ['editor', 'Update', { 'f:data': { 'f:valueOf': {} } }],
    ]);
  });

  test('an update of an existing object without managedFields stays untracked', () => {
    expect(update(stored(widget({ data: { a: '1' } }), undefined), widget({ data: { a: '2' } }), 'editor')).toBeUndefined();
  });

  test('more than 10 Update managers: the oldest merge into ancient-changes', () => {
    let mf: ManagedFieldsEntry[] | undefined;
    let data: JsonObject = {};
    for (let i = 0; i < 12; i++) {
      data = { ...data, [`k${i}`]: 'v' };
      const live = i === 0 ? undefined : stored(widget({ data: { ...data, [`k${i}`]: undefined } }), mf);
      mf = update(live, widget({ data }), `m${String(i).padStart(2, '0')}`, { now: new Date(T0.getTime() + i * 1000) });
    }
    expect(mf?.length).toBe(10);
    const ancient = mf?.find((e) => e.manager === 'ancient-changes');
    expect(ancient?.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } });
    expect(ancient?.time).toBe('2024-05-01T10:00:02Z');
    expect(mf?.map((e) => e.manager)).toEqual(['ancient-changes', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09', 'm10', 'm11']);
  });
});
