import { StatusError } from '../../errors/status-error.js';
import { messageType } from './proto-root.js';
import { decodeProtobufDeleteOptions, PROTOBUF_MAGIC, wrapInEnvelope } from './index.js';

// Hex printed by client-go v1.24 itself: runtime.Encode with the encoder rest.Request.Body uses
// (runtime.NewClientNegotiator(scheme.Codecs.WithoutConversion(), gv).Encoder(protobuf)).
const CLIENT_GO = {
  // v1 DeleteOptions{GracePeriodSeconds: 0, Preconditions: {UID: "u", ResourceVersion: "7"}, PropagationPolicy: Background}
  full: '6b3873000a130a027631120d44656c6574654f7074696f6e731216080012060a0175120137220a4261636b67726f756e641a002200',
  // v1 DeleteOptions{}
  empty: '6b3873000a130a027631120d44656c6574654f7074696f6e7312001a002200',
  // apps/v1 DeleteOptions{}
  apps: '6b3873000a180a07617070732f7631120d44656c6574654f7074696f6e7312001a002200',
};

const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

function failure(bytes: Uint8Array): StatusError {
  try {
    decodeProtobufDeleteOptions(bytes);
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw new Error(`expected a StatusError, got ${String(e)}`);
  }
  throw new Error('expected decoding to fail');
}

function unknownWith(fields: Record<string, unknown>): Uint8Array {
  const t = messageType('k8s.io.apimachinery.pkg.runtime.Unknown');
  return Uint8Array.from([...PROTOBUF_MAGIC, ...t.encode(t.fromObject(fields)).finish()]);
}

describe('decodeProtobufDeleteOptions', () => {
  test("client-go's bytes decode to the options it meant, a zero grace period included", () => {
    expect(decodeProtobufDeleteOptions(hex(CLIENT_GO.full))).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u', resourceVersion: '7' },
      propagationPolicy: 'Background',
    });
    expect(decodeProtobufDeleteOptions(hex(CLIENT_GO.empty))).toEqual({ apiVersion: 'v1', kind: 'DeleteOptions' });
    expect(decodeProtobufDeleteOptions(hex(CLIENT_GO.apps))).toEqual({ apiVersion: 'apps/v1', kind: 'DeleteOptions' });
  });

  test('orphanDependents, repeated dryRun and a negative (10-byte varint) grace period', () => {
    const raw = Uint8Array.from([0x08, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x18, 0x01, 0x2a, 0x03, 0x41, 0x6c, 0x6c, 0x2a, 0x01, 0x78]);
    expect(decodeProtobufDeleteOptions(wrapInEnvelope('v1', 'DeleteOptions', raw))).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: -5,
      orphanDependents: true,
      dryRun: ['All', 'x'],
    });
  });

  test('an empty typeMeta is meta/v1 DeleteOptions, as upstream defaults it', () => {
    expect(decodeProtobufDeleteOptions(unknownWith({ raw: Uint8Array.of(0x08, 0x03) }), { apiDomain: 'example.org' })).toEqual({
      apiVersion: 'meta.example.org/v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 3,
    });
  });

  test.each<[string, Uint8Array, string]>([
    ['no magic', hex(CLIENT_GO.full).subarray(4), 'provided data does not appear to be a protobuf message'],
    ['only the magic', hex(CLIENT_GO.full).subarray(0, 4), 'empty body'],
    ['a cut envelope', hex(CLIENT_GO.full).subarray(0, 12), 'unexpected EOF'],
    ['a cut DeleteOptions', wrapInEnvelope('v1', 'DeleteOptions', Uint8Array.of(0x12, 0x05, 0x0a)), 'unexpected EOF'],
    ['another kind', wrapInEnvelope('v1', 'ConfigMap', new Uint8Array()), 'no kind "ConfigMap" is registered for version "v1"'],
    ['a content encoding', unknownWith({ typeMeta: { apiVersion: 'v1', kind: 'DeleteOptions' }, contentEncoding: 'gzip' }), 'unsupported content encoding "gzip"'],
    ['a JSON payload', unknownWith({ typeMeta: { apiVersion: 'v1', kind: 'DeleteOptions' }, contentType: 'application/json' }), 'unsupported embedded content type'],
  ])('%s is 400 BadRequest', (_name, bytes, message) => {
    const e = failure(bytes);
    expect(e.status).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(e.status.message).toContain(message);
  });
});
