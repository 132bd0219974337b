import { createHash } from 'node:crypto';

/**
 * Upstream's storageVersionHash: base64 of the first 8 bytes of SHA-256 over
 * `<group>/<version>/<kind>` of the storage version (so `/v1/ConfigMap` for core). Clients only
 * compare it for equality, to notice storage version changes.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}
