import type { KubeObject } from '../../meta/types.js';
import { decodeProtobufObject, encodeProtobufObject } from './envelope.js';
import type { ProtobufCodecOptions } from './registry.js';

/**
 * The object as upstream would store it after decoding JSON into its Go struct: value structs
 * and scalars without omitempty appear (zero Times as null, `resources: {}`, `ready: false`),
 * Times at second precision. Going through the kind's Protobuf message gives exactly that shape,
 * so JSON and Protobuf reads of a stored object agree.
 * @throws ProtobufEncodeError when the object does not fit its message; NotMarshalable when the
 *   kind has no Protobuf form.
 */
export function toGoJsonShape<T extends KubeObject>(obj: T, options: ProtobufCodecOptions = {}): T {
  return decodeProtobufObject(encodeProtobufObject(obj, options), options) as T;
}
