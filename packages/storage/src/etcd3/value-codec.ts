import type { KubeObject } from '@cluster/apimachinery';
import { StorageError } from '../errors.js';

/** Serializes an object for etcd: JSON without metadata.resourceVersion (the revision is etcd's). */
export function encodeValue(obj: KubeObject): Buffer {
  const { resourceVersion: _rv, ...meta } = obj.metadata;
  // apiVersion, kind and metadata lead, as upstream writes them; it also keeps the top-level
  // metadata near the front, where spliceResourceVersion finds it at once.
  const { apiVersion, kind, metadata: _metadata, ...rest } = obj;
  return Buffer.from(JSON.stringify({ apiVersion, kind, metadata: meta, ...rest }));
}

/** Parses stored bytes and stamps the key's mod revision as resourceVersion. */
export function decodeValue(key: string, value: Buffer, modRevision: string): KubeObject {
  let obj: KubeObject;
  try {
    obj = JSON.parse(value.toString('utf8')) as KubeObject;
  } catch (e) {
    throw new StorageError('InvalidObj', key, `stored object is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof obj !== 'object' || obj === null || typeof obj.metadata !== 'object' || obj.metadata === null) {
    throw new StorageError('InvalidObj', key, 'stored object has no metadata');
  }
  obj.metadata.resourceVersion = modRevision;
  return obj;
}
