import { Readable } from 'node:stream';
import type { KubeList } from '@cluster/apimachinery';
import { rawItemJson, type RawItem } from '@cluster/storage';

/** Items serialized per chunk: large enough to amortize stream overhead, small enough to bound memory. */
const ITEMS_PER_CHUNK = 2048;

/**
 * A list as a stream of JSON chunks: the envelope, then the items a few hundred at a time. A
 * list of any size is sent without building the whole document as one string first (which for
 * 100,000 objects is hundreds of megabytes of heap held at once).
 */
export function jsonListStream(list: KubeList): Readable {
  const { items, ...envelope } = list;
  function* chunks(): Generator<string> {
    yield `${JSON.stringify(envelope).slice(0, -1)},"items":[`;
    for (let i = 0; i < items.length; i += ITEMS_PER_CHUNK) {
      let chunk = i === 0 ? '' : ',';
      const end = Math.min(items.length, i + ITEMS_PER_CHUNK);
      for (let j = i; j < end; j++) chunk += (j > i ? ',' : '') + JSON.stringify(items[j]);
      yield chunk;
    }
    yield ']}';
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** Lists smaller than this are serialized in one go; streaming only pays off for big ones. */
export const STREAM_LIST_THRESHOLD = 1000;

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
