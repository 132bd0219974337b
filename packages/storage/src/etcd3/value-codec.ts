import type { KubeObject } from '@cluster/apimachinery';
import { StorageError } from '../errors.js';
import { metadataBodyStart } from './splice-rv.js';

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
  return stamped(key, parseStored(key, value), modRevision);
}

/**
 * {@link decodeValue} for an object a watch cache will hold: the same object, key order included,
 * in less memory. The field is put into the text, at the end of the top-level metadata, before
 * parsing, rather than added to the parsed object: V8 gives a parsed object exactly as many
 * in-object fields as the text has, so a field added afterwards goes to a separate property array
 * (~40 bytes more per object, in every worker's cache). The scan for the metadata's end costs ~2 µs
 * per object, which objects read once (a GET, a list from etcd) need not pay. A stored
 * resourceVersion keeps its place, as assignment keeps it; bytes of another shape, or with
 * metadata over {@link MAX_METADATA_SCAN} bytes, are parsed and stamped as by decodeValue.
 */
export function decodeHeldValue(key: string, value: Buffer, modRevision: string): KubeObject {
  const spliced = withResourceVersionAtEnd(value, modRevision);
  if (spliced === undefined) return decodeValue(key, value, modRevision);
  let obj: KubeObject;
  try {
    obj = JSON.parse(spliced.toString('utf8')) as KubeObject;
  } catch {
    // Reported from the stored bytes themselves.
    return decodeValue(key, value, modRevision);
  }
  return stamped(key, obj, modRevision);
}

/**
 * Stored bytes with `"resourceVersion":"<rv>"` put last in their top-level metadata (as bytes, not
 * parsed), or undefined when they do not have that shape (see metadataBodyEnd). Of bytes that
 * encodeValue wrote for an object whose metadata had no resourceVersion, this is byte for byte the
 * JSON.stringify of that object with the resourceVersion added (see writtenJsonOf).
 */
export function withResourceVersionAtEnd(value: Buffer, resourceVersion: string): Buffer | undefined {
  const end = metadataBodyEnd(value);
  if (end < 0) return undefined;
  const at = Math.floor(end / 2);
  // Spliced as bytes and decoded once: two decodes and a concatenation cost more.
  const field = `${end % 2 === 1 ? '' : ','}"resourceVersion":${JSON.stringify(resourceVersion)}`;
  const fieldBytes = Buffer.byteLength(field);
  const spliced = Buffer.allocUnsafe(value.length + fieldBytes);
  value.copy(spliced, 0, 0, at);
  spliced.write(field, at, 'utf8');
  value.copy(spliced, at + fieldBytes, at);
  return spliced;
}

function parseStored(key: string, value: Buffer): KubeObject {
  try {
    return JSON.parse(value.toString('utf8')) as KubeObject;
  } catch (e) {
    throw new StorageError('InvalidObj', key, `stored object is not valid JSON: ${(e as Error).message}`);
  }
}

function stamped(key: string, obj: KubeObject, modRevision: string): KubeObject {
  if (typeof obj !== 'object' || obj === null || typeof obj.metadata !== 'object' || obj.metadata === null) {
    throw new StorageError('InvalidObj', key, 'stored object has no metadata');
  }
  // Already there when spliced in; a second top-level "metadata" (the later one counts) never got it.
  if (obj.metadata.resourceVersion !== modRevision) obj.metadata.resourceVersion = modRevision;
  return obj;
}

/**
 * Where the top-level metadata object of stored JSON is: [index of its `{`, index after its `}`),
 * or undefined when the bytes do not have that shape or its metadata is over
 * {@link MAX_METADATA_SCAN} bytes.
 */
export function metadataSpan(buf: Buffer): [number, number] | undefined {
  const end = metadataBodyEnd(buf);
  if (end < 0) return undefined;
  return [metadataBodyStart(buf) - 1, Math.floor(end / 2) + 1];
}

/** Longest metadata (bytes) whose end decodeValue looks for. */
const MAX_METADATA_SCAN = 4096;

/**
 * Where the top-level metadata object of stored JSON closes: twice the index of its `}`, plus 1
 * when it is empty; -1 when the bytes do not have that shape (a number: this runs for every object
 * decoded). Strings are skipped whole, so braces in them do not count. Metadata longer than
 * {@link MAX_METADATA_SCAN} bytes is not scanned (-1): the scan would cost more than the few bytes
 * it saves next to such an object.
 */
function metadataBodyEnd(buf: Buffer): number {
  const start = metadataBodyStart(buf);
  if (start < 0) return -1;
  let depth = 1;
  let i = start;
  let empty = true;
  const n = Math.min(buf.length, start + MAX_METADATA_SCAN);
  while (i < n) {
    const c = buf[i]!;
    if (c === 0x22) {
      empty = false;
      i++;
      while (i < n && buf[i] !== 0x22) i += buf[i] === 0x5c ? 2 : 1;
      i++;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return c === 0x7d ? i * 2 + (empty ? 1 : 0) : -1;
    } else if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      empty = false;
    }
    i++;
  }
  return -1;
}
