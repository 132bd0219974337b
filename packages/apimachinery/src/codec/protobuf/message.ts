import { messageType } from './proto-root.js';

/**
 * Encodes a plain object (field names as in the .proto file) as the message `fullName` of the
 * repository's proto/ files, for messages outside the object envelope (OpenAPI documents).
 * @throws Error when the type is unknown or a value does not fit its field (a caller's bug).
 */
export function encodeProtoMessage(fullName: string, value: Record<string, unknown>): Uint8Array {
  const type = messageType(fullName);
  const problem = type.verify(value);
  if (problem) throw new Error(`${fullName}: ${problem}`);
  // A verified plain object is encoded as is: fromObject would copy the whole tree first.
  return type.encode(value).finish();
}

/**
 * Decodes the message `fullName` into a plain object (int64 as numbers, bytes as base64, only
 * fields present on the wire).
 * @throws Error for malformed bytes.
 */
export function decodeProtoMessage(fullName: string, bytes: Uint8Array): Record<string, unknown> {
  const type = messageType(fullName);
  return type.toObject(type.decode(bytes), { longs: Number, bytes: String, oneofs: false }) as Record<string, unknown>;
}
