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
 * large ones are being written. While other flows' small requests are in flight, turns are
 * shorter and each is followed by an idle pause (a timer): the sliced work then takes at most its
 * share of the worker's time (see SliceScheduler and sharingShare).
 */

/** Pending work in rotation: levels in turn, a level's flows in turn, a flow's tasks in order. Pure. */
export class FairRotation<T> {
  private readonly levels = new Map<string, Map<string, T[]>>();
  private count = 0;

  /** Tasks waiting. */
  get size(): number {
    return this.count;
  }

  /** The levels with tasks waiting. */
  levelNames(): IterableIterator<string> {
    return this.levels.keys();
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
  /**
   * The level's nominal share of the server (its concurrency shares over the sum of every limited
   * level's, as its seats are divided; 1 or absent for an exempt or unknown level).
   */
  share?: number;
  /** `${level}\n${flow}`, when the owner is made once for many requests (saves building it per request). */
  key?: string;
}

/** The smallest share sliced work is given while others share the worker: it is slowed, never starved. */
export const MIN_SLICE_SHARE = 0.05;

/**
 * The most of a worker's time sliced responses may take while a flow of another limited level is
 * being served (or was, less than lingerMs ago), whatever their level's nominal share. A big list
 * is bulk work: its latency is its size, and stretching it costs its client little, while every
 * millisecond it holds a core is a millisecond the other level's small requests wait for one. On
 * a machine whose cores are all busy (the replica's workers, etcd, a load generator) the
 * operating system, not this scheduler, decides who runs next, so the nominal share alone (41% of
 * each worker for the default workload-low) still keeps the cores saturated: the noisy-neighbour
 * benchmark's quiet p99 grew 4-5x with it, 1.3-1.6x with this cap (hack/bench/README.md,
 * fifteenth session). Sliced work takes the whole worker again as soon as nobody else is served.
 */
export const OTHER_LEVEL_SHARE = 0.1;

/**
 * The most of a worker's time the waiting sliced responses (of `waitingLevels`) may take, given
 * the flows that have requests in flight and no sliced response among them, or had until less
 * than lingerMs ago (`unslicedByLevel`: how many such flows each level has). Pure.
 *
 * - No such flow: 1 (work-conserving: slices run turn after turn).
 * - Only flows of the sliced levels themselves, or of exempt levels (share 1: system:masters,
 *   the probes, whose requests take no seats from anyone): `sameLevelShare` (1/2: fair queuing
 *   divides a level between its active flows, so a sliced flow and a small one each get half).
 * - A flow of another limited level: the sliced levels' nominal shares of the server added up,
 *   times the cores per worker (a replica of W workers on C cores gives each worker C/W of a
 *   core, so a level entitled to a share of the replica's C cores gets that share of C/W per
 *   worker), and never more than `otherLevelShare` (OTHER_LEVEL_SHARE: bulk work yields to the
 *   other level's requests). Upstream v1.24's priority levels do not lend seats either: a level
 *   gets its nominal concurrency while others are busy; here, in time, it gets all of the worker
 *   while no other level is served.
 *
 * Never below MIN_SLICE_SHARE.
 */
export function sharingShare(
  waitingLevels: Iterable<string>,
  unslicedByLevel: ReadonlyMap<string, number>,
  levelShare: (level: string) => number,
  coresPerWorker = 1,
  sameLevelShare = DEFAULT_SHARED_SHARE,
  otherLevelShare = OTHER_LEVEL_SHARE,
): number {
  const waiting = new Set(waitingLevels);
  let same = false;
  let other = false;
  for (const [level, flows] of unslicedByLevel) {
    if (flows <= 0) continue;
    // An exempt level (share 1) has no nominal share to keep: its requests get half, as a flow's.
    if (waiting.has(level) || levelShare(level) >= 1) same = true;
    else other = true;
  }
  if (!same && !other) return 1;
  let share = sameLevelShare;
  if (other) {
    let sum = 0;
    for (const level of waiting) sum += Math.min(1, Math.max(0, levelShare(level)));
    share = Math.min(share, otherLevelShare, sum * Math.min(1, Math.max(0, coresPerWorker)));
  }
  return Math.min(1, Math.max(MIN_SLICE_SHARE, share));
}

export interface SliceSchedulerOptions {
  /** Work per turn in ms: slices run one after another until this much time has passed (default 1). */
  turnMs?: number;
  /**
   * The most of the process's time slices may take while another flow has a request in flight
   * that is not a sliced response (default 0.5; less while another level's requests are in
   * flight, see sharingShare): a turn then lasts at most
   * share / (1 - share) ms (the shortest timer) and after a turn of t ms the next waits
   * t * (1 - share) / share ms (at least 1), with the event loop idle meanwhile.
   */
  sharedShare?: number;
  /** Cores per worker process: the machine's cores over the replica's workers, at most 1 (default 1). */
  coresPerWorker?: number;
  /**
   * How long (ms) a level still counts as sharing the worker after its last small request ended
   * (default 50). A client's requests come one after another, each in flight for a fraction of a
   * millisecond of the worker's time; without this the slices would run unshared in every gap
   * between two of them, keep the cores saturated, and the next request would wait for a core.
   */
  lingerMs?: number;
  /** The most of the worker's time slices may take while another limited level is served (default OTHER_LEVEL_SHARE). */
  otherLevelShare?: number;
  /** Clock (ms). */
  now?: () => number;
  /** Schedules a turn (default setImmediate: after the I/O that is ready). */
  defer?: (turn: () => void) => void;
  /** Schedules a turn after `ms` (default setTimeout). */
  delay?: (turn: () => void, ms: number) => void;
  /**
   * Runs `settle` once the work a turn's slices left for later has run (default process.nextTick).
   * A slice hands its chunk to the HTTP response, which corks the socket and writes (encrypts and
   * sends) in the next tick; that write costs more than making the chunk, so a turn is measured
   * to the end of it, or the pause after it would be too short for the share.
   */
  afterTurn?: (settle: () => void) => void;
}

const DEFAULT_TURN_MS = 1;
const DEFAULT_LINGER_MS = 50;
const DEFAULT_SHARED_SHARE = 0.5;
/** The shortest idle pause a timer gives (ms). */
const MIN_PAUSE_MS = 1;

/** Requests of one flow in flight, and how many of them are sliced responses being written. */
interface FlowLoad {
  requests: number;
  streams: number;
  /** Whether a sliced response of the flow was written while it had requests in flight. */
  streamed: boolean;
}

/** A queued slice and the level it is of. */
interface Task {
  run: () => void;
  level: string;
}

/**
 * Runs queued slices fairly (see FairRotation), a turn at a time. While some flow has requests in
 * flight and none of them is a sliced response (a user's GETs, say, while another user's lists are
 * written), slices take at most their share of the time (sharingShare: half against a flow of
 * their own level, their level's nominal share against another level's) and the process is idle
 * in between: those requests then find it waiting for I/O rather than busy (the operating system
 * wakes an idle process at once, a busy one when its time comes), and a load generator or another
 * process on the same cores keeps its share. Without such requests slices run turn after turn.
 */
export class SliceScheduler {
  private readonly queue = new FairRotation<Task>();
  private scheduled = false;
  private readonly turnMs: number;
  private readonly sharedShare: number;
  private coresPerWorker: number;
  /** Each level's nominal share, as its owners last gave it. */
  private readonly levelShares = new Map<string, number>();
  /** Per level, its flows with requests in flight and no sliced response among them. */
  private readonly unslicedByLevel = new Map<string, number>();
  /** Per level without such flows now, when its last one ended (see lingerMs). */
  private readonly lastUnslicedAt = new Map<string, number>();
  private readonly lingerMs: number;
  private readonly otherLevelShare: number;
  /** Told when a level's small request ended here (at most once per half linger per level). */
  private levelServedListener: ((level: string, share: number) => void) | undefined;
  /** When each level was last told to the listener. */
  private readonly lastToldAt = new Map<string, number>();
  private readonly shareOf = (level: string): number => this.levelShares.get(level) ?? 1;
  private readonly now: () => number;
  private readonly defer: (turn: () => void) => void;
  private readonly delay: (turn: () => void, ms: number) => void;
  private readonly afterTurn: (settle: () => void) => void;
  private readonly runTurn = (): void => this.turn();
  private readonly loads = new Map<string, FlowLoad>();
  /** Flows with requests in flight and no sliced response among them. */
  private unsliced = 0;
  /** While such flows exist, the next turn starts no earlier than this (the pause after the last). */
  private nextTurnAt = 0;

  constructor(opts: SliceSchedulerOptions = {}) {
    this.turnMs = opts.turnMs ?? DEFAULT_TURN_MS;
    this.sharedShare = Math.min(1, Math.max(MIN_SLICE_SHARE, opts.sharedShare ?? DEFAULT_SHARED_SHARE));
    this.coresPerWorker = opts.coresPerWorker ?? 1;
    this.lingerMs = Math.max(0, opts.lingerMs ?? DEFAULT_LINGER_MS);
    this.otherLevelShare = Math.min(1, Math.max(MIN_SLICE_SHARE, opts.otherLevelShare ?? OTHER_LEVEL_SHARE));
    this.now = opts.now ?? (() => performance.now());
    this.defer = opts.defer ?? ((turn) => void setImmediate(turn));
    this.delay = opts.delay ?? ((turn, ms) => void setTimeout(turn, ms));
    this.afterTurn = opts.afterTurn ?? ((settle) => process.nextTick(settle));
  }

  /** Slices waiting for a turn. */
  get waiting(): number {
    return this.queue.size;
  }

  /**
   * Whether some flow has requests in flight, none of them a sliced response, or had until less
   * than lingerMs ago.
   */
  get sharing(): boolean {
    return this.unsliced > 0 || this.lingering();
  }

  /** The share of the worker's time the slices waiting now may take (sharingShare). */
  get share(): number {
    if (!this.sharing) return 1;
    let byLevel: ReadonlyMap<string, number> = this.unslicedByLevel;
    if (this.lastUnslicedAt.size > 0) {
      const merged = new Map(this.unslicedByLevel);
      for (const level of this.lastUnslicedAt.keys()) merged.set(level, Math.max(1, merged.get(level) ?? 0));
      byLevel = merged;
    }
    return sharingShare(this.queue.levelNames(), byLevel, this.shareOf, this.coresPerWorker, this.sharedShare, this.otherLevelShare);
  }

  /** Forgets levels whose linger ended; true while some level still lingers. */
  private lingering(): boolean {
    if (this.lastUnslicedAt.size === 0) return false;
    const since = this.now() - this.lingerMs;
    for (const [level, at] of this.lastUnslicedAt) if (at <= since) this.lastUnslicedAt.delete(level);
    return this.lastUnslicedAt.size > 0;
  }

  /**
   * Tells `listener` when a request of a flow without sliced responses ended here, at most once
   * per half linger per level: the other workers of a replica share this machine's cores, so
   * their slices must yield to it too (see levelServedElsewhere).
   */
  setLevelServedListener(listener: ((level: string, share: number) => void) | undefined): void {
    this.levelServedListener = listener;
  }

  /**
   * Another worker of the replica served a small request of `level` (its nominal `share`): the
   * level counts as served here too for lingerMs, unless it has requests in flight here anyway.
   */
  levelServedElsewhere(level: string, share: number): void {
    if (this.lingerMs <= 0) return;
    this.levelShares.set(level, share);
    if (!this.unslicedByLevel.has(level)) this.lastUnslicedAt.set(level, this.now());
  }

  /** Sets the cores per worker process (the machine's cores over the replica's workers, at most 1). */
  setCoresPerWorker(cores: number): void {
    this.coresPerWorker = Math.min(1, Math.max(0, cores));
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
    const key = owner.key ?? `${owner.level}\n${owner.flow}`;
    let load = this.loads.get(key);
    if (!load) this.loads.set(key, (load = { requests: 0, streams: 0, streamed: false }));
    const l = load;
    const level = owner.level;
    if (owner.share !== undefined) this.levelShares.set(level, owner.share);
    const before = isUnsliced(l);
    l[what]++;
    if (what === 'streams') l.streamed = true;
    this.countUnsliced(level, Number(isUnsliced(l)) - Number(before));
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      const was = isUnsliced(l);
      l[what]--;
      this.countUnsliced(level, Number(isUnsliced(l)) - Number(was));
      if (what === 'requests' && !l.streamed) this.tell(level);
      if (l.requests > 0 || l.streams > 0) return;
      this.loads.delete(key);
      // A flow of small requests only lingers (a flow of lists would otherwise slow itself).
      if (!l.streamed && this.lingerMs > 0 && !this.unslicedByLevel.has(level)) this.lastUnslicedAt.set(level, this.now());
    };
  }

  private tell(level: string): void {
    if (!this.levelServedListener || this.lingerMs <= 0) return;
    const now = this.now();
    const last = this.lastToldAt.get(level);
    if (last !== undefined && now - last < this.lingerMs / 2) return;
    this.lastToldAt.set(level, now);
    this.levelServedListener(level, this.shareOf(level));
  }

  private countUnsliced(level: string, change: number): void {
    if (change === 0) return;
    this.unsliced += change;
    const n = (this.unslicedByLevel.get(level) ?? 0) + change;
    if (n > 0) {
      this.unslicedByLevel.set(level, n);
      this.lastUnslicedAt.delete(level);
    } else this.unslicedByLevel.delete(level);
  }

  /**
   * Queues one slice of `owner`'s work; it runs in a later turn, never synchronously. Returns a
   * function that withdraws it if it has not run yet.
   */
  submit(owner: SliceOwner, slice: () => void): () => void {
    const task: Task = { run: slice, level: owner.level };
    if (owner.share !== undefined) this.levelShares.set(owner.level, owner.share);
    this.queue.add(owner.level, owner.flow, task);
    this.schedule();
    return () => void this.queue.remove(owner.level, owner.flow, task);
  }

  /**
   * Runs slices in rotation until the turn's time is used up, then yields to the event loop: at
   * once (setImmediate), or, while other requests share the process, after an idle pause. A share
   * under a half shortens the turn rather than lengthening the pause past the shortest timer, so
   * a request arriving meanwhile waits less. The turn lasts until its slices' writes are done
   * (afterTurn); until then the next turn is not scheduled, so a stream asking for its next chunk
   * meanwhile waits for the pause that includes them.
   */
  private turn(): void {
    const share = this.share;
    const start = this.now();
    const budget = share >= 1 ? this.turnMs : Math.min(this.turnMs, (MIN_PAUSE_MS * share) / (1 - share));
    const end = start + budget;
    for (;;) {
      const task = this.queue.next();
      if (!task) break;
      try {
        task.run();
      } catch {
        // A slice reports its own failures (its stream is destroyed); the others go on.
      }
      if (this.now() >= end) break;
    }
    this.afterTurn(() => this.settle(start, share));
  }

  /** Ends a turn that began at `start`: the pause after it, and the next turn if slices wait. */
  private settle(start: number, share: number): void {
    this.scheduled = false;
    const now = this.now();
    // A turn that began unshared pauses as against a flow of its own level if sharing begins.
    const pauseShare = share >= 1 ? this.sharedShare : share;
    this.nextTurnAt = now + ((now - start) * (1 - pauseShare)) / pauseShare;
    if (this.queue.size > 0) this.schedule();
  }

  /** Schedules the next turn unless one is: right after the ready I/O, or after the pause while sharing. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.sharing ? this.nextTurnAt - this.now() : 0;
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
