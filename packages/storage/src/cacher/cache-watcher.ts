import type { Predicate, WatchEvent } from '../interfaces.js';
import { tooSlowEvent, watchEventFor, type CacheEvent } from './cache-event.js';

/** Default number of live events a watcher may have waiting before it counts as slow. */
export const DEFAULT_WATCHER_BUFFER = 1000;
/** Default time a watcher may stay over its buffer before it is closed (upstream blocks ~250 ms). */
export const DEFAULT_SLOW_BUDGET_MS = 250;

/** Options of a {@link CacheWatcher}. */
export interface CacheWatcherOptions {
  /** A key prefix ending in '/' (keys under it) or one exact key. */
  prefix: string;
  predicate?: Predicate;
  allowBookmarks?: boolean;
  signal: AbortSignal;
  /** Events delivered first (synthetic ADDED or a replay of the window); not bounded by the buffer. */
  initialEvents?: WatchEvent[];
  /** Only live events with a revision above this are delivered (the start revision). */
  afterRevision: number;
  /** Live events that may wait unread; default {@link DEFAULT_WATCHER_BUFFER}. */
  bufferSize?: number;
  /** How long the buffer may stay over its size before the watcher is closed as too slow. */
  slowBudgetMs?: number;
  /** Called once when the watcher ends for any reason (to unregister it). */
  onClose?: (w: CacheWatcher) => void;
}

/** Longest queue array kept for reuse once drained (slots, 8 bytes each). */
const MAX_KEPT_QUEUE = 64;

/** Whether `key` is watched by a watch on `scope`: a prefix ending in '/' (keys under it) or one exact key. */
export function keyInScope(scope: string, key: string): boolean {
  return scope.endsWith('/') ? key.startsWith(scope) : key === scope;
}

/**
 * One client watch fed by a dispatcher: filters by key and predicate, buffers events, and is
 * consumed as an async iterator. Feeding never blocks: a watcher whose buffer stays over its size
 * for longer than the slow budget (or reaches twice its size) is closed with a 410 ERROR event,
 * so a slow client cannot hold up the dispatcher or other watchers.
 */
export class CacheWatcher implements AsyncIterableIterator<WatchEvent> {
  private initial: WatchEvent[];
  private initialPos = 0;
  /**
   * Live events from `head` to `tail`. The array is kept and its slots reused once everything was
   * taken (a fan-out hands each watcher one event at a time: growing a fresh array per event was a
   * share of the young garbage per delivered event); taken slots are cleared.
   */
  private queue: (WatchEvent | undefined)[] = [];
  private head = 0;
  private tail = 0;
  private closed = false;
  private aborted = false;
  private wake: (() => void) | undefined;
  private listener: (() => void) | undefined;
  private slowTimer: NodeJS.Timeout | undefined;
  private lastRevision: number;
  private readonly bufferSize: number;
  private readonly onAbort = (): void => this.abort();

  constructor(private readonly opts: CacheWatcherOptions) {
    this.initial = opts.initialEvents ?? [];
    this.lastRevision = opts.afterRevision;
    this.bufferSize = Math.max(1, opts.bufferSize ?? DEFAULT_WATCHER_BUFFER);
    if (opts.signal.aborted) this.abort();
    else opts.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The key prefix this watcher was opened for. */
  get prefix(): string {
    return this.opts.prefix;
  }

  /** Whether the watcher still accepts events. */
  get isOpen(): boolean {
    return !this.closed;
  }

  /** Live events waiting to be read. */
  get pending(): number {
    return this.tail - this.head;
  }

  /** True while events of the start state (or replayed history) remain to be taken. */
  get initialEventsPending(): boolean {
    return !this.aborted && this.initialPos < this.initial.length;
  }

  /** True once the watcher has ended and every event was taken. */
  get finished(): boolean {
    return this.closed && (this.aborted || (this.initialPos >= this.initial.length && this.head >= this.tail));
  }

  /** Push mode (see WatchStream.onReady): `listener` runs whenever events are ready or the watch ends. */
  onReady(listener: () => void): void {
    this.listener = listener;
    if (this.closed || this.pending > 0 || this.initialPos < this.initial.length) listener();
  }

  /** Whether `key` is one this watcher watches. */
  matchesKey(key: string): boolean {
    return keyInScope(this.opts.prefix, key);
  }

  /** The watcher's selection (label and field selectors), if any. */
  get predicate(): Predicate | undefined {
    return this.opts.predicate;
  }

  /** Whether a live change at `revision` is still to be delivered to this watcher. */
  wants(revision: number): boolean {
    return !this.closed && revision > this.opts.afterRevision;
  }

  /** Offers a cache change; it is delivered if it is new to this watcher and passes its filters. */
  dispatch(ev: CacheEvent): void {
    if (this.closed || ev.revision <= this.opts.afterRevision || !this.matchesKey(ev.key)) return;
    const out = watchEventFor(ev, this.opts.predicate);
    if (out) this.push(out);
  }

  /** Offers a bookmark; sent only when allowed, idle, and newer than everything sent before. */
  bookmark(ev: WatchEvent): void {
    if (this.closed || !this.opts.allowBookmarks || ev.revision <= this.lastRevision || this.pending > 0) return;
    this.push(ev);
  }

  /**
   * Sets the events delivered before the live ones, for a watcher registered before its start
   * state was read (live events are already being buffered meanwhile).
   */
  setInitial(events: WatchEvent[]): void {
    if (this.closed) return;
    this.initial = events;
    this.initialPos = 0;
    this.signalReady();
  }

  /** Queues an event without filtering (e.g. an initial-events-end bookmark). */
  push(ev: WatchEvent): void {
    if (this.closed) return;
    this.queue[this.tail++] = ev;
    if (ev.revision > this.lastRevision) this.lastRevision = ev.revision;
    this.signalReady();
    const pending = this.pending;
    if (pending <= this.bufferSize) return;
    if (pending >= 2 * this.bufferSize) {
      this.terminate(tooSlowEvent());
    } else if (!this.slowTimer) {
      this.slowTimer = setTimeout(() => {
        this.slowTimer = undefined;
        if (this.pending > this.bufferSize) this.terminate(tooSlowEvent());
      }, this.opts.slowBudgetMs ?? DEFAULT_SLOW_BUDGET_MS);
    }
  }

  /**
   * Ends the watcher: anything unread is dropped, `final` (an ERROR event) is delivered last, and
   * the iterator then ends. Without `final` the iterator ends after the events already queued.
   */
  terminate(final?: WatchEvent): void {
    if (this.closed) return;
    if (final) {
      this.initial = [];
      this.initialPos = 0;
      this.queue = [final];
      this.head = 0;
      this.tail = 1;
    }
    this.finish();
  }

  async next(): Promise<IteratorResult<WatchEvent>> {
    for (;;) {
      if (this.aborted) return { value: undefined, done: true };
      const ev = this.take();
      if (ev) return { value: ev, done: false };
      if (this.closed) return { value: undefined, done: true };
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  /** The next event already waiting, without waiting for one (see WatchStream.takeNext). */
  takeNext(): WatchEvent | undefined {
    return this.aborted ? undefined : this.take();
  }

  /** Events already waiting (at most `max`), without waiting for more. */
  takeReady(max: number): WatchEvent[] {
    const out: WatchEvent[] = [];
    if (this.aborted) return out;
    while (out.length < max) {
      const ev = this.take();
      if (!ev) break;
      out.push(ev);
    }
    return out;
  }

  /** Called by `for await` on break: the client is gone. */
  async return(): Promise<IteratorResult<WatchEvent>> {
    this.abort();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private take(): WatchEvent | undefined {
    if (this.initialPos < this.initial.length) {
      const ev = this.initial[this.initialPos++];
      if (this.initialPos === this.initial.length) {
        this.initial = [];
        this.initialPos = 0;
      }
      return ev;
    }
    if (this.head >= this.tail) return undefined;
    const ev = this.queue[this.head];
    this.queue[this.head++] = undefined;
    if (this.head === this.tail) {
      // Drained: start again at slot 0. A queue that grew long (a burst) is let go.
      this.head = this.tail = 0;
      if (this.queue.length > MAX_KEPT_QUEUE) this.queue = [];
    } else if (this.head > 1024 && this.head * 2 > this.tail) {
      this.queue = this.queue.slice(this.head, this.tail);
      this.tail -= this.head;
      this.head = 0;
    }
    if (this.slowTimer && this.pending <= this.bufferSize) {
      clearTimeout(this.slowTimer);
      this.slowTimer = undefined;
    }
    return ev;
  }

  private signalReady(): void {
    this.wake?.();
    this.listener?.();
  }

  private abort(): void {
    this.aborted = true;
    this.initial = [];
    this.queue = [];
    this.head = 0;
    this.tail = 0;
    this.finish();
  }

  private finish(): void {
    const first = !this.closed;
    this.closed = true;
    if (this.slowTimer) clearTimeout(this.slowTimer);
    this.slowTimer = undefined;
    this.opts.signal.removeEventListener('abort', this.onAbort);
    this.signalReady();
    if (first) this.opts.onClose?.(this);
  }
}
