export {
  PROTOBUF_MAGIC,
  decodeProtobufObject,
  decodeProtobufDeleteOptions,
  encodeProtobufObject,
  wrapInEnvelope,
  type ProtobufDecodeOptions,
} from './envelope.js';
export { encodeWatchEventFrame, decodeWatchEventFrame, type DecodedWatchEvent } from './watch-frame.js';
export {
  isProtobufKind,
  protobufMessageFor,
  DEFAULT_API_DOMAIN,
  type ProtobufCodecOptions,
} from './registry.js';
export { ProtobufEncodeError } from './from-json.js';
export { newNotMarshalable } from './errors.js';
export { findProtoDir, loadProtoRoot } from './proto-root.js';
export { toGoJsonShape } from './go-shape.js';
export { encodeProtoMessage, decodeProtoMessage } from './message.js';
