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
 * large ones are being written. While other flows' small requests are in flight, each turn is
 * followed by an idle pause (a timer) instead (see SliceScheduler).
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
  /**
   * The most of the process's time slices may take while another flow has a request in flight
   * that is not a sliced response (default 0.5): after a turn of t ms the next waits
   * t * (1 - share) / share ms (at least 1), with the event loop idle meanwhile.
   */
  sharedShare?: number;
  /** Clock (ms). */
  now?: () => number;
  /** Schedules a turn (default setImmediate: after the I/O that is ready). */
  defer?: (turn: () => void) => void;
  /** Schedules a turn after `ms` (default setTimeout). */
  delay?: (turn: () => void, ms: number) => void;
}

const DEFAULT_TURN_MS = 1;
const DEFAULT_SHARED_SHARE = 0.5;

/** Requests of one flow in flight, and how many of them are sliced responses being written. */
interface FlowLoad {
  requests: number;
  streams: number;
}

/**
 * Runs queued slices fairly (see FairRotation), a turn at a time. While some flow has requests in
 * flight and none of them is a sliced response (a user's GETs, say, while another user's lists are
 * written), slices take at most `sharedShare` of the time and the process is idle in between:
 * those requests then find it waiting for I/O rather than busy (the operating system wakes an
 * idle process at once, a busy one when its time comes), and a load generator or another process
 * on the same cores keeps its share. Without such requests slices run turn after turn.
 */
export class SliceScheduler {
  private readonly queue = new FairRotation<() => void>();
  private scheduled = false;
  private readonly turnMs: number;
  private readonly sharedShare: number;
  private readonly now: () => number;
  private readonly defer: (turn: () => void) => void;
  private readonly delay: (turn: () => void, ms: number) => void;
  private readonly runTurn = (): void => this.turn();
  private readonly loads = new Map<string, FlowLoad>();
  /** Flows with requests in flight and no sliced response among them. */
  private unsliced = 0;
  /** While such flows exist, the next turn starts no earlier than this (the pause after the last). */
  private nextTurnAt = 0;

  constructor(opts: SliceSchedulerOptions = {}) {
    this.turnMs = opts.turnMs ?? DEFAULT_TURN_MS;
    this.sharedShare = Math.min(1, Math.max(0.05, opts.sharedShare ?? DEFAULT_SHARED_SHARE));
    this.now = opts.now ?? (() => performance.now());
    this.defer = opts.defer ?? ((turn) => void setImmediate(turn));
    this.delay = opts.delay ?? ((turn, ms) => void setTimeout(turn, ms));
  }

  /** Slices waiting for a turn. */
  get waiting(): number {
    return this.queue.size;
  }

  /** Whether some flow has requests in flight, none of them a sliced response. */
  get sharing(): boolean {
    return this.unsliced > 0;
  }

  /** Counts a request of `owner`'s flow in flight until the returned function is called (once). */
  enter(owner: SliceOwner): () => void {
    return this.count(owner, 'requests');
  }

  /** Counts a sliced response of `owner`'s flow being written until the returned function is called (once). */
  streaming(owner: SliceOwner): () => void {
    return this.count(owner, 'streams');
  }

  private count(owner: SliceOwner, what: keyof FlowLoad): () => void {
    const key = `${owner.level}\n${owner.flow}`;
    let load = this.loads.get(key);
    if (!load) this.loads.set(key, (load = { requests: 0, streams: 0 }));
    const l = load;
    const before = isUnsliced(l);
    l[what]++;
    this.unsliced += Number(isUnsliced(l)) - Number(before);
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      const was = isUnsliced(l);
      l[what]--;
      this.unsliced += Number(isUnsliced(l)) - Number(was);
      if (l.requests <= 0 && l.streams <= 0) this.loads.delete(key);
    };
  }

  /**
   * Queues one slice of `owner`'s work; it runs in a later turn, never synchronously. Returns a
   * function that withdraws it if it has not run yet.
   */
  submit(owner: SliceOwner, slice: () => void): () => void {
    this.queue.add(owner.level, owner.flow, slice);
    this.schedule();
    return () => void this.queue.remove(owner.level, owner.flow, slice);
  }

  /**
   * Runs slices in rotation until the turn's time is used up, then yields to the event loop: at
   * once (setImmediate), or, while other requests share the process, after an idle pause.
   */
  private turn(): void {
    this.scheduled = false;
    const start = this.now();
    const end = start + this.turnMs;
    let now = start;
    for (;;) {
      const slice = this.queue.next();
      if (!slice) break;
      try {
        slice();
      } catch {
        // A slice reports its own failures (its stream is destroyed); the others go on.
      }
      now = this.now();
      if (now >= end) break;
    }
    this.nextTurnAt = now + ((now - start) * (1 - this.sharedShare)) / this.sharedShare;
    if (this.queue.size > 0) this.schedule();
  }

  /** Schedules the next turn unless one is: right after the ready I/O, or after the pause while sharing. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.unsliced > 0 ? this.nextTurnAt - this.now() : 0;
    if (wait > 0) this.delay(this.runTurn, Math.max(1, Math.round(wait)));
    else this.defer(this.runTurn);
  }
}

/** A flow whose requests in flight include no sliced response. */
function isUnsliced(l: FlowLoad): boolean {
  return l.requests > 0 && l.streams === 0;
}

/** This process's scheduler (each worker process has its own). */
export const sliceScheduler = new SliceScheduler();
