/**
 * Returns stored object JSON with `"resourceVersion":"<rv>"` inserted as the first field of the
 * top-level metadata, without parsing the document, or undefined when the bytes do not have the
 * expected shape (then the caller parses). Stored values never carry a resourceVersion.
 */
export function spliceResourceVersion(value: Buffer, resourceVersion: string): Buffer | undefined {
  const parts = resourceVersionParts(value, resourceVersion);
  return parts && Buffer.concat(parts);
}

/**
 * The same as {@link spliceResourceVersion} as three pieces (two views of `value` around the
 * inserted field), for writers that copy many items into one buffer anyway.
 */
export function resourceVersionParts(value: Buffer, resourceVersion: string): [Buffer, Buffer, Buffer] | undefined {
  const at = metadataBodyStart(value);
  if (at < 0) return undefined;
  const empty = value[at] === 0x7d; // '}': metadata was {}
  const insert = Buffer.from(`"resourceVersion":"${resourceVersion}"${empty ? '' : ','}`);
  return [value.subarray(0, at), insert, value.subarray(at)];
}

const METADATA_KEY = Buffer.from('"metadata"');

/**
 * Index just after the `{` that opens the top-level `"metadata"` object, or -1. Scans from the
 * start, tracking depth and strings, so a `"metadata"` key nested deeper is never taken; stored
 * objects put metadata near the front, so the scan is short.
 */
export function metadataBodyStart(buf: Buffer): number {
  let depth = 0;
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const c = buf[i]!;
    if (c === 0x22) {
      // A string: at depth 1 it may be the key we look for.
      if (depth === 1 && startsWithAt(buf, METADATA_KEY, i)) {
        let j = i + METADATA_KEY.length;
        while (j < n && isSpace(buf[j]!)) j++;
        if (buf[j] === 0x3a) {
          j++;
          while (j < n && isSpace(buf[j]!)) j++;
          return buf[j] === 0x7b ? j + 1 : -1;
        }
      }
      i++;
      while (i < n && buf[i] !== 0x22) i += buf[i] === 0x5c ? 2 : 1;
      i++;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    i++;
  }
  return -1;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Whether `buf` holds `key` at `at`. Compared in JS: a native Buffer.compare call per string
 * costs more than the few bytes compared, and this runs for every object decoded.
 */
function startsWithAt(buf: Buffer, key: Buffer, at: number): boolean {
  if (at + key.length > buf.length) return false;
  for (let k = 0; k < key.length; k++) if (buf[at + k] !== key[k]) return false;
  return true;
}
