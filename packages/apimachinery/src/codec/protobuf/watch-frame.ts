import type { KubeObject } from '../../meta/types.js';
import { newBadRequest } from '../../errors/status-error.js';
import { decodeProtobufObject, encodeProtobufObject } from './envelope.js';
import { META_V1, messageType } from './proto-root.js';
import type { ProtobufCodecOptions } from './registry.js';

/*
 * Framing of a Protobuf watch stream, as upstream writes it:
 * - The watch handler (k8s.io/apiserver pkg/endpoints/handlers/watch.go) encodes each event's
 *   object with the negotiated *embedded* serializer, i.e. the normal Protobuf serializer: magic
 *   prefix + runtime.Unknown{typeMeta, raw}. Those bytes become WatchEvent.object.raw.
 * - The event itself, a meta/v1 WatchEvent{type = 1, object = 2 (RawExtension{raw = 1})}, is
 *   encoded by the *stream* serializer, which for Protobuf is the raw serializer
 *   (k8s.io/apimachinery pkg/runtime/serializer codec_factory.go: StreamSerializer =
 *   protobuf.NewRawSerializer): no magic prefix and no Unknown envelope around the event.
 * - The framer is protobuf.LengthDelimitedFramer: each event is preceded by its length as a
 *   4-byte big-endian unsigned integer.
 * The response Content-Type is `application/vnd.kubernetes.protobuf;stream=watch`.
 */

const LENGTH_PREFIX = 4;

/**
 * One frame of a Protobuf watch stream: 4-byte big-endian length + WatchEvent{type, object:
 * {raw: <the object's full Protobuf body>}}.
 * @throws StatusError 406 when the object has no Protobuf form (see encodeProtobufObject).
 */
export function encodeWatchEventFrame(type: string, obj: KubeObject, options: ProtobufCodecOptions = {}): Uint8Array {
  const eventType = messageType(`${META_V1}.WatchEvent`);
  const raw = encodeProtobufObject(obj, options);
  const event = eventType.encode(eventType.fromObject({ type, object: { raw } })).finish();
  const frame = new Uint8Array(LENGTH_PREFIX + event.length);
  new DataView(frame.buffer).setUint32(0, event.length, false);
  frame.set(event, LENGTH_PREFIX);
  return frame;
}

/** A decoded watch frame and how many bytes of the input it used. */
export interface DecodedWatchEvent {
  type: string;
  object: KubeObject;
  frameLength: number;
}

/**
 * Reads the first frame of a Protobuf watch stream (the inverse of encodeWatchEventFrame).
 * Returns undefined while the input does not yet hold a whole frame.
 * @throws StatusError 400 when the frame is malformed.
 */
export function decodeWatchEventFrame(
  bytes: Uint8Array,
  options: ProtobufCodecOptions = {},
): DecodedWatchEvent | undefined {
  if (bytes.length < LENGTH_PREFIX) return undefined;
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, false);
  if (bytes.length < LENGTH_PREFIX + length) return undefined;
  let event: { type?: string; object?: { raw?: Uint8Array } };
  try {
    event = messageType(`${META_V1}.WatchEvent`).decode(
      bytes.subarray(LENGTH_PREFIX, LENGTH_PREFIX + length),
    ) as typeof event;
  } catch {
    throw newBadRequest('unable to decode watch event: unexpected EOF');
  }
  const object = decodeProtobufObject(event.object?.raw ?? new Uint8Array(), options);
  return { type: event.type ?? '', object, frameLength: LENGTH_PREFIX + length };
}
