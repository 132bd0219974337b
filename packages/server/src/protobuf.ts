import type { ProtobufCodec } from '@cluster/apiserver';

/** Protobuf is wired in once the codec lands; until then requests in Protobuf get 415. */
export const protobufCodec: ProtobufCodec | undefined = undefined;
