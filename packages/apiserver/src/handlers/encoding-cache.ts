/**
 * Recently encoded watch events, shared by all watchers of a server: every watcher of the same
 * change sends the same bytes, encoded once. Bounded by entry count, so events kept in the watch
 * cache's history do not also keep their encodings alive for minutes.
 */
export class EncodingCache<K extends object> {
  private readonly entries = new Map<K, Map<string, Uint8Array | string>>();

  constructor(private readonly capacity = 4096) {}

  get(event: K, encoding: string): Uint8Array | string | undefined {
    return this.entries.get(event)?.get(encoding);
  }

  set(event: K, encoding: string, bytes: Uint8Array | string): void {
    let forEvent = this.entries.get(event);
    if (!forEvent) {
      if (this.entries.size >= this.capacity) {
        // Maps iterate in insertion order: the first key is the oldest event.
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      forEvent = new Map();
      this.entries.set(event, forEvent);
    }
    forEvent.set(encoding, bytes);
  }
}
