/** Something with output waiting, written when its turn comes. */
export interface FlushTask {
  /** Writes what is waiting (one socket write); may schedule itself again. */
  flush(): void;
}

/** Options of a {@link WatchFlusher}. */
export interface WatchFlusherOptions {
  /** CPU time one turn of the event loop may spend flushing before it yields. Default 1 ms. */
  sliceMs?: number;
  /** Runs the next slice after pending I/O (default: setImmediate). */
  defer?: (run: () => void) => void;
  /** Clock in milliseconds (default: performance.now). */
  now?: () => number;
}

/** Tasks flushed between two looks at the clock. */
const TASKS_PER_CLOCK_CHECK = 8;

/**
 * Writes the watch streams of a server in turn, first come first served, a slice of the event
 * loop at a time.
 *
 * A change seen by thousands of watchers costs one socket write each (TLS plus a syscall, some
 * 20 µs here), far longer than the gap between changes under load. Writing each stream as soon as
 * its event arrives would hold the event loop for the whole fan-out (starving the requests that
 * make the changes) and send every event in its own write. Here a stream with events waiting is
 * queued once; when its turn comes it sends everything it has by then in one write. Under load a
 * stream's events coalesce while the queue goes round, so the number of writes per second is
 * bounded by how fast the queue turns rather than by the event rate, and every stream waits at
 * most one round. Between slices other I/O runs, so writes and reads are not held up behind the
 * fan-out.
 */
export class WatchFlusher {
  private queue: FlushTask[] = [];
  private head = 0;
  private readonly queued = new Set<FlushTask>();
  private running = false;
  private readonly sliceMs: number;
  private readonly defer: (run: () => void) => void;
  private readonly now: () => number;
  private readonly run = (): void => this.runSlice();

  constructor(opts: WatchFlusherOptions = {}) {
    this.sliceMs = opts.sliceMs ?? 1;
    this.defer = opts.defer ?? ((run) => void setImmediate(run));
    this.now = opts.now ?? (() => performance.now());
  }

  /** Number of tasks waiting for their turn. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** Queues `task` for a flush unless it already waits for one. */
  schedule(task: FlushTask): void {
    if (this.queued.has(task)) return;
    this.queued.add(task);
    this.queue.push(task);
    if (!this.running) {
      this.running = true;
      this.defer(this.run);
    }
  }

  /** Drops `task` from the queue (its stream ended). */
  cancel(task: FlushTask): void {
    // Left in the array and skipped when reached: removing from the middle would be O(n).
    this.queued.delete(task);
  }

  private runSlice(): void {
    const deadline = this.now() + this.sliceMs;
    let sinceCheck = 0;
    while (this.head < this.queue.length) {
      const task = this.queue[this.head++]!;
      if (!this.queued.delete(task)) continue;
      try {
        task.flush();
      } catch {
        // A task handles its own failures; one that throws anyway must not stop the others.
      }
      if (++sinceCheck >= TASKS_PER_CLOCK_CHECK) {
        sinceCheck = 0;
        if (this.now() >= deadline) break;
      }
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.head < this.queue.length) {
      this.defer(this.run);
    } else {
      this.queue = [];
      this.head = 0;
      this.running = false;
    }
  }
}
