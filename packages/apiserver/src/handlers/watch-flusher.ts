/** Something with output waiting, written when its turn comes. */
export interface FlushTask {
  /** Writes what is waiting (one socket write); may schedule itself again. */
  flush(): void;
  /**
   * What the task writes through when several tasks share it (an HTTP/2 connection): a round
   * flushes the tasks of one group back to back (see startRound).
   */
  readonly group?: object | undefined;
  /** Set and cleared by the flusher only: the task waits for a round. */
  flushQueued?: boolean;
}

/** The tasks of one group (or of none) queued for the next round, in the order they came. */
interface Bucket {
  tasks: (FlushTask | undefined)[];
  count: number;
}

/** Options of a {@link WatchFlusher}. */
export interface WatchFlusherOptions {
  /**
   * CPU time one turn of the event loop may spend flushing before it yields (default 0.2 ms). A
   * request's I/O waits up to a slice at each hop: measured with 1,000 watchers at ~200 updates/s,
   * 0.5 ms slices made a sequential update take 5.6 ms on average, 0.2 ms slices 4.6 ms; 0.1 ms
   * and less cut that little more while stretching rounds (event p99 44-60 ms against 22-32).
   */
  sliceMs?: number;
  /**
   * After a round, the flusher rests this many times the CPU time the round took before the next
   * round starts (default 1: flushing takes at most about half of the event loop).
   */
  restRatio?: number;
  /** Longest rest after a round, however long it took (default 20 ms). */
  maxRestMs?: number;
  /** Runs the next slice after pending I/O (default: setImmediate). */
  defer?: (run: () => void) => void;
  /** Runs `run` after `ms` milliseconds (default: setTimeout). */
  delay?: (run: () => void, ms: number) => void;
  /** Clock in milliseconds (default: performance.now). */
  now?: () => number;
}

/** Tasks flushed between two looks at the clock. */
const TASKS_PER_CLOCK_CHECK = 8;
/** Rests shorter than this are not worth a timer: the next round just waits for pending I/O. */
const MIN_TIMED_REST_MS = 1;

/**
 * Writes the watch streams of a server in rounds, a slice of the event loop at a time.
 *
 * A change seen by thousands of watchers costs one socket write each (TLS plus a syscall, some
 * 10-20 µs here), far longer than the gap between changes under load. Writing each stream as soon
 * as its event arrives would hold the event loop for the whole fan-out (starving the requests
 * that make the changes) and send every event in its own write. Here a stream with events waiting
 * is queued once; a round takes every queued stream and each sends everything it has by then in
 * one write. Between slices of a round other I/O runs.
 *
 * After a round the flusher rests in proportion to the CPU time the round took before it starts
 * the next one. A round of a few streams takes microseconds, so a quiet server writes at once; a
 * fan-out to thousands takes milliseconds, and the rest lets the events of the next changes
 * gather in each stream, so that one write carries several of them. Without it the number of
 * writes grows with the event rate until the fan-out takes the whole event loop, and the writes
 * that make the events fall behind. With it, flushing takes at most about half of the loop, and a
 * stream waits at most one rest and one round.
 *
 * Within a round the streams of one HTTP/2 connection are written back to back (see startRound), so
 * that each turn's frames of a connection leave in few, large TLS writes.
 */
export class WatchFlusher {
  /**
   * Tasks of the round in progress, from `head` to `roundSize`. This and the arrays below are
   * kept and their slots reused from round to round: a fan-out queues every stream once per
   * event, and fresh arrays, Sets and Maps per round were young garbage of every delivery.
   */
  private readonly round: (FlushTask | undefined)[] = [];
  private roundSize = 0;
  private head = 0;
  /** Tasks queued for the next round, by group: the groups in the order they first came. */
  private readonly pendingGroups: (Bucket | undefined)[] = [];
  private pendingGroupCount = 0;
  /** Queued tasks without a group: they come last in a round. */
  private readonly solo: Bucket = { tasks: [], count: 0 };
  private pendingCount = 0;
  private readonly buckets = new WeakMap<object, Bucket>();
  /** A slice or the start of a round is scheduled. */
  private scheduled = false;
  /** CPU time spent in the slices of the round in progress. */
  private roundBusyMs = 0;
  /** No round starts before this time. */
  private restUntil = 0;
  private readonly sliceMs: number;
  private readonly restRatio: number;
  private readonly maxRestMs: number;
  private readonly defer: (run: () => void) => void;
  private readonly delay: (run: () => void, ms: number) => void;
  private readonly now: () => number;
  private readonly run = (): void => this.runSlice();
  private roundsStarted = 0;

  constructor(opts: WatchFlusherOptions = {}) {
    this.sliceMs = opts.sliceMs ?? 0.2;
    this.restRatio = opts.restRatio ?? 1;
    this.maxRestMs = opts.maxRestMs ?? 20;
    this.defer = opts.defer ?? ((run) => void setImmediate(run));
    this.delay = opts.delay ?? ((run, ms) => void setTimeout(run, ms));
    this.now = opts.now ?? (() => performance.now());
  }

  /**
   * Rounds started since the flusher was made: about one per change its watchers saw while they
   * keep up. The memory reclaimer counts them as activity (a thread writing watch events is not
   * quiet, whether or not it serves requests).
   */
  get rounds(): number {
    return this.roundsStarted;
  }

  /** Number of tasks waiting for their turn (cancelled ones included until they are reached). */
  get waiting(): number {
    return this.roundSize - this.head + this.pendingCount;
  }

  /** Queues `task` for the next round unless it already waits for one. */
  schedule(task: FlushTask): void {
    if (task.flushQueued === true) return;
    task.flushQueued = true;
    const group = task.group;
    let bucket = this.solo;
    if (group !== undefined) {
      const known = this.buckets.get(group);
      if (known === undefined) this.buckets.set(group, (bucket = { tasks: [], count: 0 }));
      else bucket = known;
      if (bucket.count === 0) this.pendingGroups[this.pendingGroupCount++] = bucket;
    }
    bucket.tasks[bucket.count++] = task;
    this.pendingCount++;
    if (!this.scheduled) this.scheduleRound();
  }

  /** Drops `task` from the queue (its stream ended). */
  cancel(task: FlushTask): void {
    // Left in the arrays and skipped when reached: removing from the middle would be O(n).
    task.flushQueued = false;
  }

  /** Starts the next round after the rest the last one earned. */
  private scheduleRound(): void {
    this.scheduled = true;
    const rest = this.restUntil - this.now();
    if (rest >= MIN_TIMED_REST_MS) this.delay(this.run, rest);
    else this.defer(this.run);
  }

  private runSlice(): void {
    const start = this.now();
    if (this.head >= this.roundSize) {
      // A new round: everything queued until now.
      this.startRound();
      this.roundBusyMs = 0;
    }
    const deadline = start + this.sliceMs;
    let sinceCheck = 0;
    let end = start;
    while (this.head < this.roundSize) {
      const task = this.round[this.head]!;
      this.round[this.head++] = undefined;
      if (task.flushQueued !== true) continue;
      task.flushQueued = false;
      try {
        task.flush();
      } catch {
        // A task handles its own failures; one that throws anyway must not stop the others.
      }
      if (++sinceCheck >= TASKS_PER_CLOCK_CHECK) {
        sinceCheck = 0;
        end = this.now();
        if (end >= deadline) break;
      }
    }
    if (sinceCheck > 0) end = this.now();
    this.roundBusyMs += end - start;
    if (this.head < this.roundSize) {
      this.defer(this.run);
      return;
    }
    this.roundSize = 0;
    this.head = 0;
    this.restUntil = end + Math.min(this.maxRestMs, this.roundBusyMs * this.restRatio);
    this.scheduled = false;
    if (this.pendingCount > 0) this.scheduleRound();
  }

  /**
   * Moves every queued task into the round, those of each group (HTTP/2 connection) next to each
   * other, groups in the order they first came, tasks without a group after them in their order.
   * Node sends an HTTP/2 connection's pending frames once per turn of the event loop (one TLS
   * write), so a slice that writes one connection's streams together sends one event to all of
   * them in one or two TLS writes, where a slice spread over every connection gives each a small
   * write of its own.
   */
  private startRound(): void {
    this.roundsStarted++;
    let n = 0;
    for (let g = 0; g < this.pendingGroupCount; g++) {
      n = this.take(this.pendingGroups[g]!, n);
      this.pendingGroups[g] = undefined;
    }
    this.pendingGroupCount = 0;
    this.roundSize = this.take(this.solo, n);
    this.head = 0;
    this.pendingCount = 0;
  }

  /** Appends a bucket's tasks to the round from slot `n` on and empties it; returns the next slot. */
  private take(bucket: Bucket, n: number): number {
    const tasks = bucket.tasks;
    for (let i = 0; i < bucket.count; i++) {
      this.round[n++] = tasks[i];
      tasks[i] = undefined;
    }
    bucket.count = 0;
    return n;
  }
}
