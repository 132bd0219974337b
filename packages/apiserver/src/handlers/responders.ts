import { stringify as toYaml } from 'yaml';
import { newInternalError, StatusError, type KubeObject, type Status } from '@cluster/apimachinery';
import type { Negotiated } from '../negotiation/negotiate.js';
import type { ProtobufCodec } from './scope.js';

/** An encoded response body and its content type. */
export interface EncodedBody {
  contentType: string;
  body: Buffer | string;
}

/** Serializes an object or Status for the negotiated media type. */
export function encodeBody(obj: KubeObject | Status, n: Negotiated, protobuf: ProtobufCodec | undefined): EncodedBody {
  switch (n.encoding) {
    case 'protobuf':
      if (protobuf) return { contentType: n.contentType, body: Buffer.from(protobuf.encode(obj)) };
      break;
    case 'yaml':
      return { contentType: 'application/yaml', body: toYaml(obj) };
    default:
      break;
  }
  // Bytes, not a string: Koa would measure a string for Content-Length and Node encode it again.
  return { contentType: 'application/json', body: Buffer.from(n.pretty ? JSON.stringify(obj, null, 2) + '\n' : JSON.stringify(obj)) };
}

/** Any thrown value as a StatusError: unknown failures become 500 InternalError. */
export function toStatusError(e: unknown): StatusError {
  if (e instanceof StatusError) return e;
  return newInternalError(e);
}

/**
 * Formats a Warning header value (RFC 7234 5.5): code 299, agent "-", the text quoted with
 * backslash escapes, and control characters (which would break the header) replaced by spaces.
 */
export function warningHeader(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/[\\"]/g, (c) => `\\${c}`);
  return `299 - "${clean}"`;
}
