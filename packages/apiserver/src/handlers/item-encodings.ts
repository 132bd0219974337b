/** Options of an {@link ItemEncodings}. */
export interface ItemEncodingsOptions {
  /** Most characters of JSON kept in all (default 32 Mi, ~32 MiB for ASCII JSON). */
  maxChars?: number;
  /** An encoding unused for between one and two periods is dropped (default 10 s). */
  periodMs?: number;
  /** Clock (ms), for tests. */
  now?: () => number;
}

const DEFAULT_MAX_CHARS = 32 * 1024 * 1024;
const DEFAULT_PERIOD_MS = 10_000;

/**
 * The JSON of recently listed watch-cache objects, by object identity, so a collection listed
 * again (clients relisting, every page of a paged list, many clients listing the same namespace)
 * is not serialized again: JSON.stringify of the items is most of a cached list's CPU time (about
 * 2.5 µs per 1 KiB ConfigMap, three times joining kept strings). Only for objects that are never
 * modified and stay the same object while their state does (ListResult.sharedItems), so an
 * encoding can never be stale.
 *
 * Bounded in characters, and kept in two generations: each period the older one is dropped and
 * the newer becomes older; a hit in the older one moves the entry forward. So an idle server
 * holds none of it after two periods (a timer runs only while entries exist), and a replaced
 * object's encoding keeps it alive at most that long.
 */
export class ItemEncodings {
  private current = new Map<object, string>();
  private previous = new Map<object, string>();
  private chars = 0;
  private previousChars = 0;
  private rotatedAt: number;
  private timer: NodeJS.Timeout | undefined;
  private readonly maxChars: number;
  private readonly periodMs: number;
  private readonly now: () => number;

  constructor(opts: ItemEncodingsOptions = {}) {
    this.maxChars = opts.maxChars ?? DEFAULT_MAX_CHARS;
    this.periodMs = opts.periodMs ?? DEFAULT_PERIOD_MS;
    this.now = opts.now ?? Date.now;
    this.rotatedAt = this.now();
  }

  /** Characters held (both generations). */
  get size(): number {
    return this.chars + this.previousChars;
  }

  /**
   * Whether a list of `count` items whose first encodes to `sample` characters should add its
   * encodings: not when it would take more than half the bound. Such a list would only push out
   * what smaller lists reuse and be pushed out itself before it is listed again; and its
   * encodings would hold as much memory again as the objects themselves.
   */
  worthKeeping(count: number, sample: number): boolean {
    return count * sample <= this.maxChars / 2;
  }

  /** The JSON of `item` (JSON.stringify's), kept when `keep` and there is room. */
  encode(item: object, keep: boolean): string {
    this.maybeRotate();
    const hit = this.current.get(item);
    if (hit !== undefined) return hit;
    const old = this.previous.get(item);
    if (old !== undefined) {
      this.previous.delete(item);
      this.previousChars -= old.length;
      this.add(item, old);
      return old;
    }
    const json = JSON.stringify(item);
    if (keep) this.add(item, json);
    return json;
  }

  /** Drops everything (and stops the timer). */
  clear(): void {
    this.current.clear();
    this.previous.clear();
    this.chars = 0;
    this.previousChars = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private add(item: object, json: string): void {
    if (this.chars + this.previousChars + json.length > this.maxChars) {
      // Full: make room by dropping the older generation, else keep nothing new.
      if (this.previous.size === 0 || this.chars + json.length > this.maxChars) return;
      this.previous = new Map();
      this.previousChars = 0;
    }
    this.current.set(item, json);
    this.chars += json.length;
    this.schedule();
  }

  private maybeRotate(): void {
    const now = this.now();
    if (now - this.rotatedAt < this.periodMs) return;
    // Two periods or more without a rotation: everything is that old.
    this.previous = now - this.rotatedAt >= 2 * this.periodMs ? new Map() : this.current;
    this.previousChars = this.previous === this.current ? this.chars : 0;
    this.current = new Map();
    this.chars = 0;
    this.rotatedAt = now;
  }

  /** Keeps a timer while entries exist, so an idle server lets them go. */
  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.maybeRotate();
      if (this.current.size > 0 || this.previous.size > 0) this.schedule();
    }, this.periodMs);
    this.timer.unref();
  }
}
