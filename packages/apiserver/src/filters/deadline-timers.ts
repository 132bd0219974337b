/** A deadline started by {@link DeadlineTimers.start}: stop it when the work is done. */
export interface Deadline {
  stop(): void;
}

class Entry implements Deadline {
  prev: Entry | undefined;
  next: Entry | undefined;

  constructor(
    private readonly owner: DeadlineTimers,
    readonly at: number,
    readonly expire: () => void,
  ) {}

  stop(): void {
    this.owner.remove(this);
  }
}

/**
 * Deadlines of one length (the server's --request-timeout, which nearly every request has) under
 * one timer. Started in order, they expire in that order, so they are kept in a list by start
 * time and the timer is armed for the oldest only: a request costs a list entry instead of a Node
 * timer of its own (a Timeout object with its async id, the timer list's clock read and its
 * removal), and under load the timer is re-armed about once per length, not once per request.
 * When no deadline is left the timer is not cleared but unreferenced (it holds no process open)
 * and dropped when it fires, at most one length later: a request that starts and ends within
 * one turn, as a cached GET does, then costs no timer at all, where clearing and arming again
 * cost a Node timer per request whenever the requests do not overlap. An idle server holds none.
 */
export class DeadlineTimers {
  private head: Entry | undefined;
  private tail: Entry | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly lengthMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Calls `expire` once `lengthMs` has passed, unless stopped before. */
  start(expire: () => void): Deadline {
    const e = new Entry(this, this.now() + this.lengthMs, expire);
    e.prev = this.tail;
    if (this.tail) this.tail.next = e;
    else {
      this.head = e;
      // Armed for an earlier deadline (now stopped): it fires no later than this one's, and then
      // arms for whatever is oldest.
      this.timer?.ref();
    }
    this.tail = e;
    if (!this.timer) this.arm();
    return e;
  }

  /** Deadlines running (tests). */
  get size(): number {
    let n = 0;
    for (let e = this.head; e; e = e.next) n++;
    return n;
  }

  /** Takes a deadline out (its Entry's stop); nothing when it is out already. */
  remove(e: Entry): void {
    if (e.prev) e.prev.next = e.next;
    else if (this.head === e) this.head = e.next;
    else return; // stopped already, or expired
    if (e.next) e.next.prev = e.prev;
    else this.tail = e.prev;
    e.prev = e.next = undefined;
    if (!this.head) this.timer?.unref();
  }

  private arm(): void {
    this.timer = setTimeout(this.fire, Math.max(0, this.head!.at - this.now()));
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    const now = this.now();
    while (this.head && this.head.at <= now) {
      const e = this.head;
      this.remove(e);
      e.expire();
    }
    if (this.head && !this.timer) this.arm();
  };
}
