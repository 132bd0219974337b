import { StatusError } from '../../errors/status-error.js';
import type { KubeObject } from '../../meta/types.js';
import { decodeWatchEventFrame, encodeProtobufObject, encodeWatchEventFrame, PROTOBUF_MAGIC } from './index.js';

/** Protobuf base-128 varint. */
function varint(n: number): number[] {
  const out: number[] = [];
  for (let v = n; v >= 128; v = Math.floor(v / 128)) out.push((v % 128) | 0x80);
  out.push(n >= 128 ? Math.floor(n / 128 ** out.length) : n);
  return out;
}

const cm: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'b', resourceVersion: '5', creationTimestamp: '2024-01-02T03:04:05Z' },
  data: { k: 'v' },
};

describe('Protobuf watch frames', () => {
  test('a frame is a 4-byte big-endian length, then WatchEvent{type = 1, object = 2{raw = 1}} without envelope', () => {
    const frame = encodeWatchEventFrame('ADDED', cm);
    const object = encodeProtobufObject(cm);
    const length = new DataView(frame.buffer, frame.byteOffset).getUint32(0, false);
    expect(length).toBe(frame.length - 4);
    const event = frame.subarray(4);
    // No magic prefix on the event itself: the raw serializer writes it.
    expect(Buffer.from(event.subarray(0, 4)).equals(Buffer.from(PROTOBUF_MAGIC))).toBe(false);
    const rawExtension = [0x0a, ...varint(object.length), ...object];
    const expected = [0x0a, 5, ...Buffer.from('ADDED'), 0x12, ...varint(rawExtension.length), ...rawExtension];
    expect([...event]).toEqual(expected);
    expect(varint(300)).toEqual([0xac, 0x02]);
  });

  test.each(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'])('%s frames decode back to the event', (type) => {
    expect(decodeWatchEventFrame(encodeWatchEventFrame(type, cm))).toEqual({
      type,
      object: cm,
      frameLength: encodeWatchEventFrame(type, cm).length,
    });
  });

  test('an ERROR event carries a Status', () => {
    const status = {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message: 'too old resource version: 1 (5)',
      reason: 'Expired',
      code: 410,
    };
    expect(decodeWatchEventFrame(encodeWatchEventFrame('ERROR', status as unknown as KubeObject))?.object).toEqual(status);
  });

  test('frames concatenate; a partial frame reads as undefined', () => {
    const a = encodeWatchEventFrame('ADDED', cm);
    const b = encodeWatchEventFrame('DELETED', cm);
    const stream = Uint8Array.from([...a, ...b]);
    const first = decodeWatchEventFrame(stream);
    expect(first?.type).toBe('ADDED');
    expect(decodeWatchEventFrame(stream.subarray(first?.frameLength ?? 0))?.type).toBe('DELETED');
    expect(decodeWatchEventFrame(b.subarray(0, 3))).toBeUndefined();
    expect(decodeWatchEventFrame(b.subarray(0, b.length - 1))).toBeUndefined();
  });

  test('a malformed event is a 400', () => {
    expect(() => decodeWatchEventFrame(Uint8Array.of(0, 0, 0, 2, 0x0a, 0x05))).toThrow(StatusError);
  });

  test('a Table cannot be framed (406, as upstream)', () => {
    expect(() => encodeWatchEventFrame('ADDED', { apiVersion: 'meta.k8s.io/v1', kind: 'Table', metadata: {} })).toThrow(
      'does not implement the protobuf marshalling interface',
    );
  });
});
