import { createHash } from 'node:crypto';
import type { JsonObject } from '@cluster/apimachinery';

/** A document rendered once: the exact bytes to serve and their hash. */
export interface SerializedDocument {
  body: string;
  /** Upper-case hex SHA-512 of `body`, as upstream puts in `?hash=` URLs. */
  hash: string;
  /** ETag header value: the hash in double quotes. */
  etag: string;
}

/**
 * Upper-case hex SHA-512 of the served bytes, the form upstream uses for OpenAPI v3
 * `serverRelativeURL` hashes and ETags.
 */
export function openApiHash(body: string | Uint8Array): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

/** Serializes `doc` as compact JSON and hashes the result. */
export function serializeDocument(doc: JsonObject): SerializedDocument {
  const body = JSON.stringify(doc);
  const hash = openApiHash(body);
  return { body, hash, etag: `"${hash}"` };
}
