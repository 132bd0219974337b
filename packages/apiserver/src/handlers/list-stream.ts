import { Readable } from 'node:stream';
import type { KubeList } from '@cluster/apimachinery';
import { rawItemJson, type RawItem } from '@cluster/storage';
import type { ItemEncodings } from './item-encodings.js';

/**
 * Items per chunk, decoded or stored. Small on purpose: a chunk of a few dozen typical objects
 * stays under V8's 128 KB limit for ordinary heap objects, so its string and bytes are
 * young-generation and malloc allocations. Bigger chunks land in V8's large-object space and in
 * fresh mmap'd pages every time, and page-faulting that memory costs more than serializing it (a
 * 10,000-item list of 1 KiB ConfigMaps: ~90 ms with 128-item chunks of ~160 KB, ~20 ms with 32
 * to 96).
 */
const ITEMS_PER_CHUNK = 64;
const COMMA_BYTE = 0x2c;

/**
 * A list as a stream of JSON chunks: the envelope, then the items a few dozen at a time. A
 * list of any size is sent without building the whole document as one string first (which for
 * 100,000 objects is hundreds of megabytes of heap held at once).
 */
export function jsonListStream(list: KubeList, encodings?: ItemEncodings): Readable {
  const { items, ...envelope } = list;
  function* chunks(): Generator<Buffer> {
    yield Buffer.from(`${JSON.stringify(envelope).slice(0, -1)},"items":[`);
    if (encodings && items.length > 0) {
      yield* encodedChunks(items, encodings);
      yield CLOSE;
      return;
    }
    for (let i = 0; i < items.length; i += ITEMS_PER_CHUNK) {
      // One stringify of the slice ("[a,b]") is a flat string, cheaper to encode than one built
      // by concatenation; its brackets become the separator from the previous chunk, or nothing.
      const bytes = Buffer.from(JSON.stringify(items.slice(i, i + ITEMS_PER_CHUNK)));
      if (i === 0) {
        yield bytes.subarray(1, bytes.length - 1);
      } else {
        bytes[0] = COMMA_BYTE;
        yield bytes.subarray(0, bytes.length - 1);
      }
    }
    yield CLOSE;
  }
  return Readable.from(chunks(), { objectMode: false });
}

/**
 * The items' chunks from kept encodings (see ItemEncodings), adding those of this list when it
 * is small enough to be worth keeping. Joining the kept strings of a chunk makes one flat string,
 * as the one stringify of a slice does.
 */
function* encodedChunks(items: readonly object[], encodings: ItemEncodings): Generator<Buffer> {
  const first = encodings.encode(items[0]!, true);
  const keep = encodings.worthKeeping(items.length, first.length);
  for (let i = 0; i < items.length; i += ITEMS_PER_CHUNK) {
    const end = Math.min(items.length, i + ITEMS_PER_CHUNK);
    // A leading '' puts the separator from the previous chunk in front.
    const parts: string[] = i === 0 ? [] : [''];
    for (let j = i; j < end; j++) parts.push(j === 0 ? first : encodings.encode(items[j]!, keep));
    yield Buffer.from(parts.join(','));
  }
}

/** Lists smaller than this are serialized in one go; bigger ones stream in chunks (see ITEMS_PER_CHUNK). */
export const STREAM_LIST_THRESHOLD = 64;

/**
 * A list of stored items as a stream: each chunk's items get their resourceVersion spliced in as
 * it is written, so the list never exists as a second full copy besides etcd's answer.
 */
export function rawJsonListStream(envelope: Omit<KubeList, 'items'>, rawItems: RawItem[]): Readable {
  function* chunks(): Generator<Buffer> {
    yield Buffer.from(`${JSON.stringify(envelope).slice(0, -1)},"items":[`);
    for (let i = 0; i < rawItems.length; i += ITEMS_PER_CHUNK) {
      const parts: Buffer[] = [];
      const end = Math.min(rawItems.length, i + ITEMS_PER_CHUNK);
      for (let j = i; j < end; j++) {
        if (j > 0) parts.push(COMMA);
        parts.push(...rawItemJson(rawItems[j]!));
      }
      yield Buffer.concat(parts);
    }
    yield CLOSE;
  }
  return Readable.from(chunks(), { objectMode: false });
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');
