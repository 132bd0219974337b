/**
 * Shares linearizable reads of etcd's current revision between concurrent callers, so that N
 * quorum reads arriving together cost one or two etcd round trips instead of N.
 *
 * The rule that keeps every caller linearizable: a caller may only share a request that has NOT
 * been sent yet. etcd answers a linearizable read with a revision that includes every write
 * committed before the request reached it. A request sent after a caller arrived therefore covers
 * every write acknowledged (by any replica) before that caller arrived; a request sent earlier may
 * have been answered from a point before such a write and must not be reused for it.
 *
 * So at most one request is in flight and at most one is waiting to be sent: a caller arriving
 * while none is in flight sends one at once; a caller arriving while one is in flight joins the
 * waiting one (creating it if needed), which is sent as soon as the in-flight one settles. Callers
 * share a promise rather than queue, so memory stays constant however many arrive. A failure is
 * given to every caller that joined the failed request; the waiting request is still sent.
 */
export class RevisionBatcher {
  private inFlight = false;
  private waiting: { promise: Promise<number>; resolve: (rev: number) => void; reject: (e: unknown) => void } | undefined;
  private sentCount = 0;

  constructor(
    /** One linearizable read of etcd's current revision; called once per batch. */
    private readonly readRevision: () => Promise<number>,
  ) {}

  /** How many etcd requests were sent so far (for tests and metrics). */
  get sent(): number {
    return this.sentCount;
  }

  /** Whether a request is in flight / one is waiting to be sent (for tests). */
  get state(): { inFlight: boolean; waiting: boolean } {
    return { inFlight: this.inFlight, waiting: this.waiting !== undefined };
  }

  /** A revision at least as new as every write acknowledged before this call. */
  read(): Promise<number> {
    if (!this.inFlight) return this.send();
    if (!this.waiting) {
      let resolve!: (rev: number) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<number>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.waiting = { promise, resolve, reject };
    }
    return this.waiting.promise;
  }

  private send(): Promise<number> {
    this.inFlight = true;
    this.sentCount++;
    let request: Promise<number>;
    try {
      request = this.readRevision();
    } catch (e) {
      request = Promise.reject(e);
    }
    const settled = (): void => {
      this.inFlight = false;
      const next = this.waiting;
      this.waiting = undefined;
      if (next) this.send().then(next.resolve, next.reject);
    };
    request.then(settled, settled);
    return request;
  }
}
