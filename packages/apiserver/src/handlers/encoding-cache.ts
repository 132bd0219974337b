/**
 * Recently encoded watch events, shared by all watchers of a server: every watcher of the same
 * change sends the same bytes, encoded once. Bounded by entry count, so events kept in the watch
 * cache's history do not also keep their encodings alive for minutes; and emptied once no event
 * was encoded for a whole idle period, since after a burst of watch traffic the last `capacity`
 * events (with their objects, already gone from the history) would otherwise stay for good.
 */
export class EncodingCache<K extends object> {
  private readonly entries = new Map<K, Map<string, Uint8Array | string>>();
  /** Entries added since the idle timer last looked (no clock on the hot path). */
  private added = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly capacity = 4096,
    private readonly idleMs = 10_000,
  ) {}

  /** Events with encodings held. */
  get size(): number {
    return this.entries.size;
  }

  get(event: K, encoding: string): Uint8Array | string | undefined {
    return this.entries.get(event)?.get(encoding);
  }

  set(event: K, encoding: string, bytes: Uint8Array | string): void {
    let forEvent = this.entries.get(event);
    if (!forEvent) {
      if (this.entries.size >= this.capacity) this.evictOldest();
      forEvent = new Map();
      this.entries.set(event, forEvent);
    }
    forEvent.set(encoding, bytes);
    this.added++;
    this.watchIdle();
  }

  /**
   * Drops the oldest quarter (Maps iterate in insertion order). In batches because a Map keeps
   * deleted entries as holes until it rehashes, and iteration starts over them: dropping one
   * entry per insert made each insert walk past up to `capacity` holes (a share of the worker's
   * time in create profiles, with many watchers).
   */
  private evictOldest(): void {
    let n = Math.max(1, this.capacity >> 2);
    for (const key of this.entries.keys()) {
      this.entries.delete(key);
      if (--n === 0) break;
    }
  }

  /** While entries exist, a timer empties the cache after a period without new encodings. */
  private watchIdle(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.added === 0) {
        this.entries.clear();
        clearInterval(this.timer);
        this.timer = undefined;
      }
      this.added = 0;
    }, this.idleMs);
    this.timer.unref();
  }
}
