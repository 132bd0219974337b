import { storedJsonOf } from '@cluster/storage';

/** Options of an {@link ItemEncodings}. */
export interface ItemEncodingsOptions {
  /** Most bytes of JSON (UTF-8) kept in all (default 32 MiB). */
  maxBytes?: number;
  /** An encoding unused for between one and two periods is dropped (default 10 s). */
  periodMs?: number;
  /** Clock (ms), for tests. */
  now?: () => number;
}

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
const DEFAULT_PERIOD_MS = 10_000;

/**
 * The JSON of recently listed watch-cache objects, by object identity, so a collection listed
 * again (clients relisting, every page of a paged list, many clients listing the same namespace)
 * is not serialized again: JSON.stringify of the items is most of a cached list's CPU time (about
 * 2.5 µs per 1 KiB ConfigMap). Only for objects that are never modified and stay the same object
 * while their state does (ListResult.sharedItems), so an encoding can never be stale.
 *
 * Encodings are kept as UTF-8 bytes, each in memory of its own (not a slice of Node's shared
 * Buffer pool, which one kept encoding would hold whole): a list's chunk is then the kept bytes
 * copied into one Buffer, with no string joined and encoded per chunk. A flood of big lists
 * otherwise made a young-generation string and its UTF-8 copy of every chunk (about 3.6 MB of
 * garbage per 3,000-item list), and the scavenges that collected them paused the worker's
 * other requests.
 *
 * Bounded in characters, and kept in two generations: each period the older one is dropped and
 * the newer becomes older; a hit in the older one moves the entry forward. So an idle server
 * holds none of it after two periods (a timer runs only while entries exist), and a replaced
 * object's encoding keeps it alive at most that long.
 */
export class ItemEncodings {
  private current = new Map<object, Buffer>();
  private previous = new Map<object, Buffer>();
  private bytes = 0;
  private previousBytes = 0;
  private rotatedAt: number;
  private timer: NodeJS.Timeout | undefined;
  private readonly maxBytes: number;
  private readonly periodMs: number;
  private readonly now: () => number;

  constructor(opts: ItemEncodingsOptions = {}) {
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    this.periodMs = opts.periodMs ?? DEFAULT_PERIOD_MS;
    this.now = opts.now ?? Date.now;
    this.rotatedAt = this.now();
  }

  /** Bytes held (both generations). */
  get size(): number {
    return this.bytes + this.previousBytes;
  }

  /**
   * Whether a list of `count` items whose first encodes to `sample` bytes should add its
   * encodings: not when it would take more than half the bound. Such a list would only push out
   * what smaller lists reuse and be pushed out itself before it is listed again; and its
   * encodings would hold as much memory again as the objects themselves.
   */
  worthKeeping(count: number, sample: number): boolean {
    return count * sample <= this.maxBytes / 2;
  }

  /**
   * The JSON of `item` (JSON.stringify's) as UTF-8, kept when `keep` and there is room. The
   * bytes may be kept and shared: callers must not change them.
   */
  encode(item: object, keep: boolean): Buffer {
    // An object decoded from a watch cache's shared store: its JSON is there already, kept once
    // per replica (a copy costs less than JSON.stringify, and nothing is kept here for it).
    const stored = storedJsonOf(item);
    if (stored !== undefined) return stored;
    this.maybeRotate();
    const hit = this.current.get(item);
    if (hit !== undefined) return hit;
    const old = this.previous.get(item);
    if (old !== undefined) {
      this.previous.delete(item);
      this.previousBytes -= old.length;
      this.add(item, old);
      return old;
    }
    const json = JSON.stringify(item);
    if (!keep) return Buffer.from(json);
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
    bytes.write(json);
    this.add(item, bytes);
    return bytes;
  }

  /** Drops everything (and stops the timer). */
  clear(): void {
    this.current.clear();
    this.previous.clear();
    this.bytes = 0;
    this.previousBytes = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private add(item: object, json: Buffer): void {
    if (this.bytes + this.previousBytes + json.length > this.maxBytes) {
      // Full: make room by dropping the older generation, else keep nothing new.
      if (this.previous.size === 0 || this.bytes + json.length > this.maxBytes) return;
      this.previous = new Map();
      this.previousBytes = 0;
    }
    this.current.set(item, json);
    this.bytes += json.length;
    this.schedule();
  }

  private maybeRotate(): void {
    const now = this.now();
    if (now - this.rotatedAt < this.periodMs) return;
    // Two periods or more without a rotation: everything is that old.
    this.previous = now - this.rotatedAt >= 2 * this.periodMs ? new Map() : this.current;
    this.previousBytes = this.previous === this.current ? this.bytes : 0;
    this.current = new Map();
    this.bytes = 0;
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
