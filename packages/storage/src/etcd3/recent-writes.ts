import type { KubeObject } from '@cluster/apimachinery';
import { inStoredOrder, rememberWritten } from './written-json.js';

/** Default bound on the writes remembered (those whose watch event has not come yet). */
const DEFAULT_MAX_ENTRIES = 1024;

interface Entry {
  readonly value: Buffer;
  /** The object the bytes encode, without resourceVersion. */
  readonly object: KubeObject;
  /** Once the write is answered: its revision and the object the store returned for it. */
  revision?: string;
  stored?: KubeObject;
}

/**
 * The objects this process is writing or just wrote, by key, until its watch cache sees their
 * events. An event carries the bytes that were written: when they are byte for byte the bytes
 * of a write made here, the event's object is that write's object (with the event's revision),
 * and the JSON need not be parsed again. The event may come before the write's own answer, so a
 * write is remembered from before it is sent ({@link begin}); objects handed over here must not be
 * changed afterwards (like every object the watch cache holds), and must be what their bytes
 * decode to (the store's encoding writes apiVersion, kind and metadata first: objects in another
 * order are not remembered). Bounded: the oldest entries go first (a write whose event never
 * comes here, e.g. of a resource this process does not cache, is forgotten that way).
 */
export class RecentWrites {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  /** A write of `value` (the encoding of `object`) to `key` is about to be sent. */
  begin(key: string, value: Buffer, object: KubeObject): void {
    if (!inStoredOrder(object) || Object.hasOwn(object.metadata, 'resourceVersion')) return;
    this.entries.delete(key);
    this.entries.set(key, { value, object });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  /** The write of `value` to `key` landed in `revision`; the store returned `stored` for it. */
  done(key: string, value: Buffer, revision: string, stored: KubeObject): void {
    const e = this.entries.get(key);
    if (!e || e.value !== value) return;
    e.revision = revision;
    e.stored = stored;
  }

  /** The write of `value` to `key` failed (or was not sent): nothing of it will come. */
  forget(key: string, value: Buffer): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }

  /**
   * The object of the event of `key` at `revision` with bytes `value`, when those are the bytes
   * of a write made here (once: the entry is forgotten); undefined when the event must be parsed.
   */
  take(key: string, revision: string, value: Buffer): KubeObject | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.revision !== undefined && e.revision !== revision) {
      // The event is of an earlier write (ours is still to come) or a later one (ours went by).
      if (Number(revision) > Number(e.revision)) this.entries.delete(key);
      return undefined;
    }
    if (!e.value.equals(value)) return undefined;
    this.entries.delete(key);
    if (e.stored) return e.stored;
    // The event came before the write's answer.
    const stored = { ...e.object, metadata: { ...e.object.metadata, resourceVersion: revision } };
    rememberWritten(stored, e.object, e.value, revision);
    return stored;
  }

  /** Number of writes remembered. */
  get size(): number {
    return this.entries.size;
  }
}
