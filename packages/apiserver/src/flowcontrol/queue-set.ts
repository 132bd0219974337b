/**
 * Fair queuing for one priority level (upstream's fairqueuing/queueset), as a pure state machine
 * over a clock the caller passes in: requests occupy seats (a list may take several); over the
 * level's seats they wait in one of the level's queues (chosen by shuffle sharding, the shortest
 * of the flow's hand); a freed seat goes to the queue whose virtual dispatch time is lowest. The
 * virtual clock R advances, per active queue, at the rate the level's seats are being used, and
 * each dispatch moves its queue's dispatch time on by the work it is charged (seats times the
 * estimated service time, corrected by the real time when it finishes), so a flow that keeps many
 * requests busy falls behind one that sends few, whatever their arrival rates.
 */

export interface QueueSetConfig {
  /** Seats the level may have in use at once (its nominal concurrency limit), at least 1. */
  concurrencyLimit: number;
  /** 0 queues: the level rejects what does not fit (limitResponse Reject). */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

/** One request's life in a queue set; the caller keeps it to finish or withdraw it. */
export interface QueuedRequest {
  readonly width: number;
  readonly arrivalMs: number;
  /** The queue it waits or ran in; -1 when it never queued (dispatched at once in a queueless level). */
  queue: number;
  state: 'waiting' | 'executing' | 'finished' | 'rejected';
  dispatchedMs?: number;
  /** Work charged at dispatch (seat-seconds of virtual time), corrected when it finishes. */
  charged: number;
  /** Called once when the request gets its seats. */
  onDispatch: () => void;
}

interface Queue {
  waiting: QueuedRequest[];
  head: number;
  waitingSeats: number;
  executingSeats: number;
  executing: number;
  /** Virtual time at which this queue's next request is due. */
  nextDispatchR: number;
}

const newQueue = (): Queue => ({ waiting: [], head: 0, waitingSeats: 0, executingSeats: 0, executing: 0, nextDispatchR: 0 });
const waitingCount = (q: Queue) => q.waiting.length - q.head;
const isActive = (q: Queue) => waitingCount(q) > 0 || q.executing > 0;

/** Counters a dump or the metrics read. */
export interface QueueSetStats {
  dispatched: number;
  rejected: number;
  timedOut: number;
  cancelled: number;
}

export class QueueSet {
  private queues: Queue[] = [];
  /** Requests dispatched with no queue (a queueless level). */
  private executingUnqueued = 0;
  private seatsInUse = 0;
  private waitingSeats = 0;
  private waiting = 0;
  private executing = 0;
  private r = 0;
  /** Queues with requests waiting or executing, kept as they change (the virtual clock divides by it). */
  private activeQueues = 0;
  private lastMs: number;
  /** Estimated service time of a request, in seconds (moving average of real ones). */
  private serviceEstimate = 0.01;
  readonly stats: QueueSetStats = { dispatched: 0, rejected: 0, timedOut: 0, cancelled: 0 };

  constructor(
    private config: QueueSetConfig,
    nowMs: number,
  ) {
    this.lastMs = nowMs;
    this.resize();
  }

  get currentConfig(): Readonly<QueueSetConfig> {
    return this.config;
  }

  /** Takes a new configuration; waiting requests stay in their queues (extra queues drain first). */
  setConfig(config: QueueSetConfig, nowMs: number): void {
    this.advance(nowMs);
    this.config = config;
    this.resize();
    this.dispatchAvailable(nowMs);
  }

  private resize(): void {
    while (this.queues.length < this.config.queues) this.queues.push(newQueue());
    // Queues beyond the new count are dropped once they are idle.
    while (this.queues.length > this.config.queues && !isActive(this.queues[this.queues.length - 1]!)) this.queues.pop();
  }

  /**
   * A request arrives with its hand of queue indexes (ignored by a queueless level). Returns the
   * request (state `executing` when it got its seats at once, `waiting` when queued) or the
   * reason it is rejected now.
   */
  enqueue(hand: readonly number[], width: number, nowMs: number, onDispatch: () => void): QueuedRequest | RejectReason {
    this.advance(nowMs);
    const seats = Math.max(1, Math.min(width, this.config.concurrencyLimit));
    const req: QueuedRequest = { width: seats, arrivalMs: nowMs, queue: -1, state: 'waiting', charged: 0, onDispatch };
    if (this.config.queues === 0) {
      if (this.seatsInUse > 0 && this.seatsInUse + seats > this.config.concurrencyLimit) {
        this.stats.rejected++;
        return 'concurrency-limit';
      }
      this.startExecuting(req, undefined, nowMs);
      return req;
    }
    const qi = this.shortestOf(hand);
    const q = this.queues[qi]!;
    // Fast path: nothing waits anywhere and the seats are free, so this request is the one due.
    if (this.waiting === 0 && this.seatsInUse + seats <= this.config.concurrencyLimit) {
      if (!isActive(q)) {
        q.nextDispatchR = Math.max(q.nextDispatchR, this.r);
        this.activeQueues++;
      }
      req.queue = qi;
      this.startExecuting(req, q, nowMs);
      return req;
    }
    if (waitingCount(q) >= this.config.queueLengthLimit) {
      this.stats.rejected++;
      return 'queue-full';
    }
    if (!isActive(q)) {
      q.nextDispatchR = Math.max(q.nextDispatchR, this.r);
      this.activeQueues++;
    }
    req.queue = qi;
    q.waiting.push(req);
    q.waitingSeats += seats;
    this.waitingSeats += seats;
    this.waiting++;
    this.dispatchAvailable(nowMs);
    return req;
  }

  /** The queue of the hand with the least work waiting and executing (upstream's shortest queue). */
  private shortestOf(hand: readonly number[]): number {
    let best = -1;
    let bestLoad = Infinity;
    for (const i of hand) {
      const q = this.queues[i % this.queues.length]!;
      const load = q.waitingSeats + q.executingSeats;
      if (load < bestLoad) {
        best = i % this.queues.length;
        bestLoad = load;
      }
    }
    return best < 0 ? 0 : best;
  }

  /** A waiting request leaves (its wait timed out, or its client went away). No-op otherwise. */
  withdraw(req: QueuedRequest, reason: 'time-out' | 'cancelled', nowMs: number): void {
    if (req.state !== 'waiting') return;
    this.advance(nowMs);
    const q = this.queues[req.queue]!;
    const at = q.waiting.indexOf(req, q.head);
    if (at >= 0) q.waiting.splice(at, 1);
    q.waitingSeats -= req.width;
    this.waitingSeats -= req.width;
    this.waiting--;
    if (!isActive(q)) this.activeQueues--;
    req.state = 'rejected';
    if (reason === 'time-out') this.stats.timedOut++;
    else this.stats.cancelled++;
  }

  /** A dispatched request is done: its seats go to the next requests due. */
  finish(req: QueuedRequest, nowMs: number): void {
    if (req.state !== 'executing') return;
    this.advance(nowMs);
    req.state = 'finished';
    this.seatsInUse -= req.width;
    this.executing--;
    const seconds = Math.max(0, (nowMs - (req.dispatchedMs ?? nowMs)) / 1000);
    this.serviceEstimate += (seconds - this.serviceEstimate) * 0.05;
    if (req.queue >= 0) {
      const q = this.queues[req.queue];
      if (q) {
        q.executingSeats -= req.width;
        q.executing--;
        if (!isActive(q)) this.activeQueues--;
        // Charge the real work instead of the estimate.
        q.nextDispatchR += req.width * seconds - req.charged;
      }
    } else this.executingUnqueued--;
    this.resize();
    this.dispatchAvailable(nowMs);
  }

  /** Moves the virtual clock to `nowMs`: per active queue, at the rate seats are demanded (at most the limit). */
  private advance(nowMs: number): void {
    const dt = (nowMs - this.lastMs) / 1000;
    this.lastMs = nowMs;
    if (dt <= 0) return;
    if (this.activeQueues === 0) return;
    const demand = Math.min(this.seatsInUse + this.waitingSeats, this.config.concurrencyLimit);
    this.r += (dt * demand) / this.activeQueues;
  }

  /** Gives free seats to the due requests, lowest virtual dispatch time first. */
  private dispatchAvailable(nowMs: number): void {
    while (this.waiting > 0 && this.seatsInUse < this.config.concurrencyLimit) {
      let best: Queue | undefined;
      for (const q of this.queues) {
        if (waitingCount(q) === 0) continue;
        if (!best || q.nextDispatchR < best.nextDispatchR) best = q;
      }
      if (!best) return;
      const req = best.waiting[best.head]!;
      // Over the limit only when nothing runs (a request wider than the level still gets through).
      if (this.seatsInUse > 0 && this.seatsInUse + req.width > this.config.concurrencyLimit) return;
      best.waiting[best.head] = undefined as unknown as QueuedRequest;
      best.head++;
      if (best.head > 64 && best.head * 2 > best.waiting.length) {
        best.waiting = best.waiting.slice(best.head);
        best.head = 0;
      }
      best.waitingSeats -= req.width;
      this.waitingSeats -= req.width;
      this.waiting--;
      this.startExecuting(req, best, nowMs);
    }
  }

  private startExecuting(req: QueuedRequest, q: Queue | undefined, nowMs: number): void {
    req.state = 'executing';
    req.dispatchedMs = nowMs;
    this.seatsInUse += req.width;
    this.executing++;
    this.stats.dispatched++;
    if (q) {
      req.charged = req.width * this.serviceEstimate;
      q.nextDispatchR += req.charged;
      q.executingSeats += req.width;
      q.executing++;
    } else this.executingUnqueued++;
    req.onDispatch();
  }

  /** Figures for the metrics and the debug dumps. */
  snapshot(): { waiting: number; executing: number; seatsInUse: number; activeQueues: number; virtualTime: number } {
    return { waiting: this.waiting, executing: this.executing, seatsInUse: this.seatsInUse, activeQueues: this.activeQueues, virtualTime: this.r };
  }

  /** One row per queue: index, waiting, executing, seats in use, next dispatch R, waiting seats. */
  queueRows(): Array<{ index: number; waiting: number; executing: number; seatsInUse: number; nextDispatchR: number; waitingSeats: number }> {
    return this.queues.map((q, index) => ({
      index,
      waiting: waitingCount(q),
      executing: q.executing,
      seatsInUse: q.executingSeats,
      nextDispatchR: q.nextDispatchR,
      waitingSeats: q.waitingSeats,
    }));
  }

  /** True when nothing waits or runs. */
  get idle(): boolean {
    return this.waiting === 0 && this.executing === 0;
  }
}
