import type { KubeObject } from '@cluster/apimachinery';
import { generationPrepare, keepStoredStatus, statusPrepare } from './status-subresource.js';

// A kind with no Protobuf message: the Go-shape step leaves it as it is.
interface Thing extends KubeObject {
  spec?: { size?: number };
  status?: { phase?: string; seen?: number };
}
const thing = (spec: Thing['spec'], status?: Thing['status'], generation?: number): Thing => ({
  apiVersion: 'example.com/v1',
  kind: 'Thing',
  metadata: { name: 't', ...(generation === undefined ? {} : { generation }) },
  spec,
  ...(status ? { status } : {}),
});

describe('generationPrepare', () => {
  const calls: Array<[string, boolean]> = [];
  const prep = generationPrepare<Thing>((obj, old) => {
    calls.push([obj.metadata.name ?? '', old !== undefined]);
    obj.spec ??= {};
    obj.spec.size ??= 1;
  });

  test('create: defaults (without an old object), status emptied, generation 1', () => {
    const obj = thing(undefined, { phase: 'Sent by a client' }, 7);
    prep.prepareForCreate(obj);
    expect(obj).toMatchObject({ spec: { size: 1 }, status: {}, metadata: { generation: 1 } });
    expect(obj.status).toEqual({});
    expect(calls.at(-1)).toEqual(['t', false]);
  });

  test.each([
    ['the same spec keeps the generation', { size: 1 }, 4],
    ['a changed spec adds one', { size: 2 }, 5],
    ['a spec the defaults complete to the same one keeps it', {}, 4],
  ])('update: %s; the stored status is kept', (_name, spec, generation) => {
    const old = thing({ size: 1 }, { phase: 'Stored', seen: 3 }, 4);
    const obj = thing(spec, { phase: 'Sent by a client' });
    prep.prepareForUpdate(obj, old);
    expect(obj.metadata.generation).toBe(generation);
    expect(obj.status).toEqual({ phase: 'Stored', seen: 3 });
    expect(calls.at(-1)).toEqual(['t', true]);
  });

  test('a kind without status: status is never touched', () => {
    const noStatus = generationPrepare<Thing>(() => {}, false);
    const obj = thing({}, undefined);
    noStatus.prepareForCreate(obj);
    expect('status' in obj).toBe(false);
    const updated = thing({ size: 2 }, undefined);
    noStatus.prepareForUpdate(updated, thing({}, undefined, 1));
    expect('status' in updated).toBe(false);
    expect(updated.metadata.generation).toBe(2);
  });
});

describe('statusPrepare', () => {
  const pending = (obj: Thing): void => {
    obj.status ??= {};
    obj.status.phase ||= 'Pending';
  };

  test("create starts from an empty status the defaults may fill (upstream's phase Pending)", () => {
    const obj = thing({}, { phase: 'Bound', seen: 1 });
    statusPrepare<Thing>(pending).prepareForCreate(obj);
    expect(obj.status).toEqual({ phase: 'Pending' });
    expect(obj.metadata.generation).toBeUndefined();
  });

  test("'none' starts without a status", () => {
    const obj = thing({}, { phase: 'Attached' });
    statusPrepare<Thing>(() => {}, 'none').prepareForCreate(obj);
    expect('status' in obj).toBe(false);
  });

  test('update keeps the stored status, or none when none is stored', () => {
    const obj = thing({}, { phase: 'Sent by a client' });
    statusPrepare<Thing>(pending).prepareForUpdate(obj, thing({}, { phase: 'Bound' }));
    expect(obj.status).toEqual({ phase: 'Bound' });
    const bare = thing({}, { phase: 'Sent by a client' });
    statusPrepare<Thing>(() => {}, 'none').prepareForUpdate(bare, thing({}));
    expect('status' in bare).toBe(false);
  });
});

test('keepStoredStatus copies the stored status over the request, or removes it', () => {
  const obj = thing({}, { phase: 'New' });
  keepStoredStatus(obj, thing({}, { phase: 'Old' }));
  expect(obj.status).toEqual({ phase: 'Old' });
  keepStoredStatus(obj, thing({}));
  expect('status' in obj).toBe(false);
});
