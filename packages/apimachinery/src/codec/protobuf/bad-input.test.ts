import { StatusError } from '../../errors/status-error.js';
import { messageType } from './proto-root.js';
import { decodeProtobufObject, encodeProtobufObject, ProtobufEncodeError, PROTOBUF_MAGIC, wrapInEnvelope } from './index.js';

const configMapBytes = encodeProtobufObject({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'b' },
  data: { k: 'v' },
});

function decodeError(bytes: Uint8Array, expectedKind?: string): StatusError {
  try {
    decodeProtobufObject(bytes, expectedKind ? { expectedKind } : {});
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw new Error(`expected a StatusError, got ${String(e)}`);
  }
  throw new Error('expected decoding to fail');
}

/** An envelope whose raw bytes claim a given apiVersion/kind. */
function withTypeMeta(apiVersion: string, kind: string, raw = new Uint8Array()): Uint8Array {
  return wrapInEnvelope(apiVersion, kind, raw);
}

function unknownWith(fields: Record<string, unknown>): Uint8Array {
  const t = messageType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const body = t.encode(t.fromObject(fields)).finish();
  return Uint8Array.from([...PROTOBUF_MAGIC, ...body]);
}

describe('decodeProtobufObject rejects bad bodies with 400 BadRequest', () => {
  test.each<[string, Uint8Array, string]>([
    ['an empty body', new Uint8Array(), 'empty data'],
    [
      'JSON instead of Protobuf',
      Uint8Array.from(Buffer.from('{"kind":"ConfigMap"}')),
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    ],
    ['a short body', Uint8Array.of(0x6b, 0x38), 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]'],
    ['only the magic prefix', Uint8Array.from(PROTOBUF_MAGIC), 'empty body'],
    ['a truncated envelope', configMapBytes.subarray(0, 20), 'unexpected EOF'],
    ['a truncated envelope raw field', configMapBytes.subarray(0, configMapBytes.length - 8), 'unexpected EOF'],
    ['a truncated object', withTypeMeta('v1', 'ConfigMap', Uint8Array.of(0x0a, 0x05, 0x0a, 0x01)), 'unexpected EOF'],
    ['an illegal wire type', Uint8Array.of(...PROTOBUF_MAGIC, 0x0f), 'proto: illegal wireType 7'],
    [
      'a kind that is not served',
      withTypeMeta('v1', 'RangeAllocation'),
      'no kind "RangeAllocation" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    ],
    [
      'a kind in a version that is not served',
      withTypeMeta('rbac.authorization.k8s.io/v1alpha1', 'Role'),
      'no kind "Role" is registered for version "rbac.authorization.k8s.io/v1alpha1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    ],
    ['Status outside v1', withTypeMeta('meta.k8s.io/v1', 'Status'), 'no kind "Status" is registered for version "meta.k8s.io/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"'],
    ['a Table', withTypeMeta('meta.k8s.io/v1', 'Table'), 'no kind "Table" is registered for version "meta.k8s.io/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"'],
    ['a missing kind', withTypeMeta('v1', ''), `Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"v1", Kind:""}'`],
    ['a missing apiVersion', withTypeMeta('', 'ConfigMap'), `Object 'apiVersion' is missing in 'runtime.TypeMeta{APIVersion:"", Kind:"ConfigMap"}'`],
    [
      'a content encoding',
      unknownWith({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw: new Uint8Array(), contentEncoding: 'gzip' }),
      'unsupported content encoding "gzip"',
    ],
    [
      'an embedded JSON content type',
      unknownWith({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw: new Uint8Array(), contentType: 'application/json' }),
      'unsupported embedded content type "application/json"',
    ],
    [
      'a time beyond year 9999',
      withTypeMeta('v1', 'ConfigMap', Uint8Array.from([0x0a, 0x09, 0x42, 0x07, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10])),
      '.metadata.creationTimestamp: Time.MarshalJSON: year outside of range [0,9999]',
    ],
    [
      'FieldsV1 that is not JSON',
      withTypeMeta('v1', 'ConfigMap', Uint8Array.from([0x0a, 0x09, 0x8a, 0x01, 0x06, 0x3a, 0x04, 0x0a, 0x02, 0x7b, 0x7b])),
      '.metadata.managedFields[0].fieldsV1: FieldsV1 does not hold valid JSON',
    ],
  ])('%s', (_name, bytes, message) => {
    const err = decodeError(bytes);
    expect(err.status).toMatchObject({ kind: 'Status', status: 'Failure', code: 400, reason: 'BadRequest', message });
  });

  test('with an expected kind, a known envelope is worded like upstream create handlers', () => {
    const truncatedObject = withTypeMeta('v1', 'ConfigMap', Uint8Array.of(0x0a, 0x05, 0x0a, 0x01));
    expect(decodeError(truncatedObject, 'ConfigMap').status.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF',
    );
    expect(decodeError(withTypeMeta('v1', 'RangeAllocation'), 'ConfigMap').status.message).toBe(
      'RangeAllocation in version "v1" cannot be handled as a ConfigMap: no kind "RangeAllocation" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
  });

  test('with an expected kind, an unreadable envelope names the body', () => {
    expect(decodeError(Uint8Array.from(Buffer.from('{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}')), 'ConfigMap').status.message).toBe(
      'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"ConfigMap","apiVersio ...)',
    );
    expect(decodeError(Uint8Array.of(0x6b, 0x38, 0x73, 0x00, 0x0a), 'Namespace').status.message).toBe(
      'the object provided is unrecognized (must be of type Namespace): unexpected EOF (6b3873000a)',
    );
  });

  test('every truncation of a valid body either decodes or fails with a StatusError', () => {
    // Cuts that end between envelope fields leave a valid, shorter message (upstream accepts those
    // too); every other cut must fail cleanly.
    let failures = 0;
    for (let n = 0; n < configMapBytes.length; n++) {
      try {
        decodeProtobufObject(configMapBytes.subarray(0, n));
      } catch (e) {
        expect(e).toBeInstanceOf(StatusError);
        failures++;
      }
    }
    expect(failures).toBeGreaterThan(configMapBytes.length - 6);
  });

  test('flipped bytes never escape as anything but a StatusError', () => {
    for (let i = 4; i < configMapBytes.length; i++) {
      const copy = Uint8Array.from(configMapBytes);
      copy[i] = (copy[i] ?? 0) ^ 0xff;
      try {
        decodeProtobufObject(copy);
      } catch (e) {
        expect(e).toBeInstanceOf(StatusError);
      }
    }
  });

  test('unknown fields on the wire are skipped, as upstream', () => {
    // ConfigMap with an extra field 15 (varint) after the metadata.
    const raw = Uint8Array.from([0x0a, 0x03, 0x0a, 0x01, 0x61, 0x78, 0x01]);
    expect(decodeProtobufObject(withTypeMeta('v1', 'ConfigMap', raw))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', creationTimestamp: null },
    });
  });
});

describe('encodeProtobufObject', () => {
  test.each([
    ['Table', { apiVersion: 'meta.k8s.io/v1', kind: 'Table', metadata: {} }, 'object *v1.Table does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message'],
    ['a custom resource', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: {} }, 'object *v1.Widget does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message'],
  ])('refuses %s with 406 NotAcceptable', (_name, obj, message) => {
    let err: unknown;
    try {
      encodeProtobufObject(obj);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({ code: 406, reason: 'NotAcceptable', message });
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['an unknown field', { metadata: {}, spec: {} }, '.spec: field is not part of ConfigMap'],
    ['a number where a string belongs', { metadata: { name: 5 } }, '.metadata.name: expected a string'],
    ['invalid base64', { metadata: {}, binaryData: { k: 'not base64!' } }, '.binaryData[k]: expected a base64 string'],
    ['an invalid time', { metadata: { creationTimestamp: 'yesterday' } }, '.metadata.creationTimestamp: invalid RFC 3339 time "yesterday"'],
    ['a fraction where an integer belongs', { metadata: { generation: 1.5 } }, '.metadata.generation: expected an integer that fits int64'],
    ['a list where a map belongs', { metadata: { labels: ['a'] } }, '.metadata.labels: expected an object'],
  ])('rejects %s as a server bug (ProtobufEncodeError)', (_name, body, message) => {
    expect(() => encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', ...body })).toThrow(ProtobufEncodeError);
    expect(() => encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', ...body })).toThrow(message);
  });
});
