import { Readable } from 'node:stream';
import type { KubeList } from '@cluster/apimachinery';
import { Held, rawItemJson, type RawItem } from '@cluster/storage';
import type { ItemEncodings } from './item-encodings.js';
import { sliceScheduler, type SliceOwner, type SliceScheduler } from '../flowcontrol/slice-scheduler.js';

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

/** Whose list a stream writes, for the fair slice scheduler (see SliceScheduler). */
export interface ListStreamOwner extends SliceOwner {
  scheduler?: Slicer;
}

/** What a sliced stream needs of a scheduler. */
type Slicer = Pick<SliceScheduler, 'submit' | 'streaming'>;

/** Lists of no known flow (priority and fairness off) share one. */
const NO_OWNER: SliceOwner = { level: '', flow: '' };

/**
 * A stream of a generator's chunks, one chunk per slice of the fair scheduler: a chunk is made
 * (serialized) only when the consumer wants one (no buffer ahead: highWaterMark 0, so a socket
 * that has not drained its last chunk asks for no next one) and only on its flow's turn. The
 * chunk is pushed in the turn, so the write it causes (and its encryption) is part of the slice.
 */
class SlicedStream extends Readable {
  private withdraw: (() => void) | undefined;
  private readonly runSlice = (): void => this.slice();
  /** Ends the count of this response as being written (from its first read until destroyed). */
  private done: (() => void) | undefined;

  constructor(
    private readonly chunks: Iterator<Buffer>,
    private readonly owner: SliceOwner,
    private readonly scheduler: Slicer,
  ) {
    super({ highWaterMark: 0 });
  }

  override _read(): void {
    this.done ??= this.scheduler.streaming(this.owner);
    this.withdraw ??= this.scheduler.submit(this.owner, this.runSlice);
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.withdraw?.();
    this.withdraw = undefined;
    this.done?.();
    this.chunks.return?.();
    cb(err);
  }

  private slice(): void {
    this.withdraw = undefined;
    if (this.destroyed) return;
    let r: IteratorResult<Buffer>;
    try {
      r = this.chunks.next();
    } catch (e) {
      this.destroy(e as Error);
      return;
    }
    this.push(r.done ? null : r.value);
  }
}

function sliced(chunks: Iterator<Buffer>, owner: ListStreamOwner | undefined): Readable {
  return new SlicedStream(chunks, owner ?? NO_OWNER, owner?.scheduler ?? sliceScheduler);
}

/**
 * A list as a stream of JSON chunks: the envelope, then the items a few dozen at a time, each
 * chunk made in a slice of the fair scheduler under the request's flow (`owner`). A list of any
 * size is sent without building the whole document as one string first (which for 100,000
 * objects is hundreds of megabytes of heap held at once), and without holding the event loop
 * for longer than a slice.
 */
export function jsonListStream(list: KubeList, encodings?: ItemEncodings, owner?: ListStreamOwner): Readable {
  const { items, ...envelope } = list;
  function* chunks(): Generator<Buffer> {
    yield Buffer.from(`${JSON.stringify(envelope).slice(0, -1)},"items":[`);
    if (encodings && items.length > 0) {
      const first = encodings.encode(items[0]!, true);
      if (encodings.worthKeeping(items.length, first.length)) {
        yield* encodedChunks(items, first, encodings);
        yield CLOSE;
        return;
      }
    }
    yield* stringifiedChunks(items);
    yield CLOSE;
  }
  return sliced(chunks(), owner);
}

/** The items' chunks, each one JSON.stringify of its items. */
function* stringifiedChunks(items: readonly object[]): Generator<Buffer> {
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
}

/**
 * The items' chunks from kept encodings (see ItemEncodings), adding those of this list: each
 * chunk is the kept bytes copied into one Buffer, separated by commas, so no string is built or
 * encoded per chunk (the bytes are what the socket is given; only the Buffer is garbage).
 */
function* encodedChunks(items: readonly object[], first: Buffer, encodings: ItemEncodings): Generator<Buffer> {
  const parts: Buffer[] = [];
  for (let i = 0; i < items.length; i += ITEMS_PER_CHUNK) {
    const end = Math.min(items.length, i + ITEMS_PER_CHUNK);
    parts.length = 0;
    // The separator from the previous chunk leads, so every item but the list's first has a comma.
    let length = i === 0 ? -1 : 0;
    for (let j = i; j < end; j++) {
      const bytes = j === 0 ? first : encodings.encode(items[j]!, true);
      parts.push(bytes);
      length += bytes.length + 1;
    }
    const chunk = Buffer.allocUnsafe(length);
    let at = 0;
    for (let j = i; j < end; j++) {
      if (j > 0) chunk[at++] = COMMA_BYTE;
      at += parts[j - i]!.copy(chunk, at);
    }
    yield chunk;
  }
}

/** Lists smaller than this are serialized in one go; bigger ones stream in chunks (see ITEMS_PER_CHUNK). */
export const STREAM_LIST_THRESHOLD = 64;

/**
 * A list of stored items as a stream: each chunk's items get their resourceVersion spliced in as
 * it is written, so the list never exists as a second full copy besides etcd's answer.
 */
export function rawJsonListStream(envelope: Omit<KubeList, 'items'>, rawItems: RawItem[], owner?: ListStreamOwner): Readable {
  function* chunks(): Generator<Buffer> {
    yield Buffer.from(`${JSON.stringify(envelope).slice(0, -1)},"items":[`);
    for (let i = 0; i < rawItems.length; i += ITEMS_PER_CHUNK) {
      const end = Math.min(rawItems.length, i + ITEMS_PER_CHUNK);
      const held = heldChunk(rawItems, i, end);
      if (held) {
        yield held;
        continue;
      }
      const parts: Buffer[] = [];
      for (let j = i; j < end; j++) {
        if (j > 0) parts.push(COMMA);
        parts.push(...rawItemJson(rawItems[j]!));
      }
      yield Buffer.concat(parts);
    }
    yield CLOSE;
  }
  return sliced(chunks(), owner);
}

/**
 * Items [from, end) as one chunk when every one is a watch cache's handle to stored JSON (a shared
 * store, see Held): each copied once, straight into the chunk. Undefined otherwise.
 */
function heldChunk(rawItems: RawItem[], from: number, end: number): Buffer | undefined {
  let length = from === 0 ? -1 : 0;
  for (let j = from; j < end; j++) {
    const item = rawItems[j]!;
    const n = item instanceof Held ? item.storedLength : -1;
    if (n < 0) return undefined;
    length += n + 1;
  }
  const chunk = Buffer.allocUnsafe(length);
  let at = 0;
  for (let j = from; j < end; j++) {
    if (j > 0) chunk[at++] = COMMA_BYTE;
    at += (rawItems[j] as Held).copyInto(chunk, at);
  }
  return chunk;
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');
