import { decodeProtobufDeleteOptions, decodeProtobufObject, encodeProtobufObject, isProtobufKind } from '@cluster/apimachinery';
import type { ProtobufCodec } from '@cluster/apiserver';

/** The Protobuf wire codec (SPEC 2.7) for built-in kinds, with group names under `apiDomain`. */
export function protobufCodecFor(apiDomain: string): ProtobufCodec {
  return {
    decode: (bytes) => decodeProtobufObject(bytes, { apiDomain }),
    encode: (obj) => encodeProtobufObject(obj, { apiDomain }),
    supports: (apiVersion, kind) => isProtobufKind(apiVersion, kind, { apiDomain }),
    decodeDeleteOptions: (bytes) => decodeProtobufDeleteOptions(bytes, { apiDomain }),
  };
}
