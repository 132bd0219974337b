/**
 * CPU fairness for large responses (issue 30). Seats bound how many requests of a priority level
 * run at once, not how much of the event loop they take: a few lists of thousands of objects,
 * serialized and encrypted in one go each, keep a worker busy for tens of milliseconds while a
 * small GET of another user waits behind them. So large responses are produced in slices (a few
 * dozen items serialized and written per slice), and a slice runs only when this scheduler gives
 * its flow a turn: turns rotate among priority levels, within a level among its flows, and within
 * a flow among its streams (each stream has at most one slice waiting, asked for only once its
 * socket took the previous one). Slices run in a check-phase callback (setImmediate) for about a
 * millisecond of work at a time, so the requests that arrived meanwhile, which are not sliced,
 * are handled between two such turns: a small request waits for at most one turn, however many
 * large ones are being written.
 */

/** Pending work in rotation: levels in turn, a level's flows in turn, a flow's tasks in order. Pure. */
export class FairRotation<T> {
  private readonly levels = new Map<string, Map<string, T[]>>();
  private count = 0;

  /** Tasks waiting. */
  get size(): number {
    return this.count;
  }

  /** Queues `task` for `flow` of `level`; a new level or flow joins at the end of its rotation. */
  add(level: string, flow: string, task: T): void {
    let flows = this.levels.get(level);
    if (!flows) this.levels.set(level, (flows = new Map()));
    let tasks = flows.get(flow);
    if (!tasks) flows.set(flow, (tasks = []));
    tasks.push(task);
    this.count++;
  }

  /**
   * The next task: the oldest of the first flow of the first level. That flow then goes to the
   * end of its level's rotation and the level to the end of the levels' (each only while it still
   * has tasks), so every level, and every flow within a level, gets one task per round.
   */
  next(): T | undefined {
    const first = this.levels.entries().next();
    if (first.done) return undefined;
    const [level, flows] = first.value;
    const [flow, tasks] = flows.entries().next().value as [string, T[]];
    const task = tasks.shift()!;
    this.count--;
    flows.delete(flow);
    if (tasks.length > 0) flows.set(flow, tasks);
    this.levels.delete(level);
    if (flows.size > 0) this.levels.set(level, flows);
    return task;
  }

  /** Drops a task still waiting (its stream was destroyed); true when it was found. */
  remove(level: string, flow: string, task: T): boolean {
    const flows = this.levels.get(level);
    const tasks = flows?.get(flow);
    const i = tasks ? tasks.indexOf(task) : -1;
    if (i < 0) return false;
    tasks!.splice(i, 1);
    this.count--;
    if (tasks!.length === 0) flows!.delete(flow);
    if (flows!.size === 0) this.levels.delete(level);
    return true;
  }
}

/** Whose work a slice is: its priority level and its flow within the level. */
export interface SliceOwner {
  level: string;
  flow: string;
}

export interface SliceSchedulerOptions {
  /** Work per turn in ms: slices run one after another until this much time has passed (default 1). */
  turnMs?: number;
  /** Clock (ms). */
  now?: () => number;
  /** Schedules a turn (default setImmediate: after the I/O that is ready). */
  defer?: (turn: () => void) => void;
}

const DEFAULT_TURN_MS = 1;

/** Runs queued slices fairly (see FairRotation), a turn at a time. */
export class SliceScheduler {
  private readonly queue = new FairRotation<() => void>();
  private scheduled = false;
  private readonly turnMs: number;
  private readonly now: () => number;
  private readonly defer: (turn: () => void) => void;
  private readonly runTurn = (): void => this.turn();

  constructor(opts: SliceSchedulerOptions = {}) {
    this.turnMs = opts.turnMs ?? DEFAULT_TURN_MS;
    this.now = opts.now ?? (() => performance.now());
    this.defer = opts.defer ?? ((turn) => void setImmediate(turn));
  }

  /** Slices waiting for a turn. */
  get waiting(): number {
    return this.queue.size;
  }

  /**
   * Queues one slice of `owner`'s work; it runs in a later turn, never synchronously. Returns a
   * function that withdraws it if it has not run yet.
   */
  submit(owner: SliceOwner, slice: () => void): () => void {
    this.queue.add(owner.level, owner.flow, slice);
    if (!this.scheduled) {
      this.scheduled = true;
      this.defer(this.runTurn);
    }
    return () => void this.queue.remove(owner.level, owner.flow, slice);
  }

  /** Runs slices in rotation until the turn's time is used up, then yields to the event loop. */
  private turn(): void {
    this.scheduled = false;
    const end = this.now() + this.turnMs;
    for (;;) {
      const slice = this.queue.next();
      if (!slice) return;
      try {
        slice();
      } catch {
        // A slice reports its own failures (its stream is destroyed); the others go on.
      }
      if (this.now() >= end) break;
    }
    if (this.queue.size > 0) {
      this.scheduled = true;
      this.defer(this.runTurn);
    }
  }
}

/** This process's scheduler (each worker process has its own). */
export const sliceScheduler = new SliceScheduler();
