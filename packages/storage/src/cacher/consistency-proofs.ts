import type { CacherOptions, CacherSource } from './cacher-source.js';
import type { WatchCache } from './watch-cache.js';

/** Prefixes whose last proof of currency (confirmCurrent) is remembered. */
const MAX_PROOFS = 64;

/** What the proofs read of the {@link Cacher} that holds them. */
export interface ProvenCache {
  /** Whether the cache's list is in (and not being redone after a compaction). */
  ready(): boolean;
  readonly cache: Pick<WatchCache, 'revision' | 'listedRevision' | 'count'>;
  /** Asks etcd for a progress notification on the cache's watch; true when one was asked for. */
  requestProgress(): boolean;
  /** Waits up to `timeoutMs` for the cache to reach `revision`; true when it did. */
  waitForRevision(revision: number, timeoutMs: number): Promise<boolean>;
}

/**
 * The proofs that a watch cache's state is etcd's current one, for consistent reads served from
 * it: by waiting for it to reach a revision read from etcd, or by showing from a count read that
 * nothing under a prefix changed since the cache's revision.
 */
export class ConsistencyProofs {
  /** The last proof per prefix that the cache at `cacheRevision` was etcd's state at `etcdRevision`. */
  private readonly proofs = new Map<string, { etcdRevision: number; cacheRevision: number }>();
  /**
   * The count read last sent per prefix (see confirmCurrent), for callers that may share it.
   * `sentAt` and callers' arrivals are ticks of {@link clock}, which only orders them.
   */
  private readonly countsInFlight = new Map<
    string,
    { sentAt: number; listed: number; checkedAt: number; answer: Promise<{ revision: number; count: number; changedSince: number }> }
  >();
  private clock = 0;
  /** When the last progress request went out (performance.now()), so concurrent reads share one. */
  private lastProgressRequest = -Infinity;

  constructor(
    private readonly source: CacherSource,
    private readonly opts: CacherOptions,
    private readonly cacher: ProvenCache,
  ) {}

  /** Forgets every proof (the cache listed again). */
  forget(): void {
    this.proofs.clear();
  }

  /**
   * Waits (bounded by consistentReadWaitMs) until the cache is complete up to `revision`, a
   * revision just read from etcd with a linearizable read; true when it is, false when it is not
   * ready or does not catch up in time (the caller then reads etcd). An idle cache learns of newer
   * revisions only from progress notifications: when etcd answers progress requests in order with
   * events, one is asked for (one per 100 ms at most, shared by concurrent reads). `since` is
   * when (performance.now()) `revision` was read: a request sent after that is answered with it.
   */
  async waitUntilFresh(revision: number, since: number): Promise<boolean> {
    const { cache } = this.cacher;
    if (!this.cacher.ready()) return false;
    if (cache.revision >= revision) return true;
    if (!(await this.mayRequestProgress())) return false;
    const deadline = performance.now() + (this.opts.consistentReadWaitMs ?? 1_000);
    for (;;) {
      if (!this.cacher.ready()) return false;
      if (cache.revision >= revision) return true;
      const now = performance.now();
      if (now >= deadline) return false;
      // A newer etcd may not answer while the watch is unsynced: ask again every 100 ms.
      if (this.lastProgressRequest < since || now - this.lastProgressRequest >= 100) {
        if (this.cacher.requestProgress()) this.lastProgressRequest = now;
      }
      await this.cacher.waitForRevision(revision, Math.min(100, deadline - now));
    }
  }

  /** Whether {@link confirmCurrent} can prove anything (the source can count changes). */
  get canConfirmCurrent(): boolean {
    return this.cacher.ready() && this.source.countChangesSince !== undefined;
  }

  /**
   * Proves, with linearizable reads and without waiting, that the cache's state under `prefix`
   * is etcd's current state: the revision to report for it, or undefined when that cannot be shown
   * (the caller then waits for the cache or reads etcd). The cache is current when it has seen
   * etcd's revision, or when no key under the prefix was written after the cache's revision and
   * the key count is the same (nothing created, changed or deleted since) while the cache did not
   * move meanwhile; a proof is reused while neither etcd's revision nor the cache has moved since.
   * This needs no progress request, whose answers some etcd versions send ahead of the events
   * they cover.
   */
  async confirmCurrent(prefix: string): Promise<{ revision: number; cacheRevision: number } | undefined> {
    const { cache } = this.cacher;
    if (!this.cacher.ready() || !this.source.countChangesSince) return undefined;
    const arrivedAt = ++this.clock;
    const listed = cache.listedRevision;
    // Cheap first: etcd has not moved since the last proof for this prefix (nor has the cache).
    const current = await this.source.currentRevision();
    if (!this.cacher.ready() || cache.listedRevision !== listed) return undefined;
    if (cache.revision >= current) return { revision: cache.revision, cacheRevision: cache.revision };
    const proven = this.proofs.get(prefix);
    if (proven && proven.etcdRevision === current && proven.cacheRevision === cache.revision) {
      return { revision: current, cacheRevision: cache.revision };
    }
    const count = cache.count(prefix);
    const checkedAt = cache.revision;
    const etcd = await this.countChanges(prefix, listed, checkedAt, arrivedAt);
    if (!this.cacher.ready() || cache.listedRevision !== listed) return undefined;
    const cacheRevision = cache.revision;
    if (cacheRevision >= etcd.revision) return { revision: cacheRevision, cacheRevision };
    if (cacheRevision === checkedAt && etcd.changedSince === 0 && etcd.count === count) {
      if (this.proofs.size >= MAX_PROOFS) this.proofs.clear();
      this.proofs.set(prefix, { etcdRevision: etcd.revision, cacheRevision });
      return { revision: etcd.revision, cacheRevision };
    }
    return undefined;
  }

  /**
   * countChangesSince for a caller of confirmCurrent that arrived at tick `arrivedAt`. Concurrent
   * callers share one count read, but only one SENT AFTER they arrived: that read covers every
   * write acknowledged before they arrived (it is linearizable), while one sent earlier may not
   * (the rule of RevisionBatcher). They must also have looked at the same cache state
   * (`listed`, `checkedAt`). So a burst of quorum reads after etcd moved costs one count.
   */
  private countChanges(
    prefix: string,
    listed: number,
    checkedAt: number,
    arrivedAt: number,
  ): Promise<{ revision: number; count: number; changedSince: number }> {
    const last = this.countsInFlight.get(prefix);
    if (last && last.sentAt > arrivedAt && last.listed === listed && last.checkedAt === checkedAt) return last.answer;
    const entry = { sentAt: ++this.clock, listed, checkedAt, answer: this.source.countChangesSince!(prefix, checkedAt) };
    this.countsInFlight.set(prefix, entry);
    const forget = (): void => {
      if (this.countsInFlight.get(prefix) === entry) this.countsInFlight.delete(prefix);
    };
    entry.answer.then(forget, forget);
    return entry.answer;
  }

  /** Waits up to `timeoutMs` for the cache to move beyond `revision`; true when it did. */
  waitBeyond(revision: number, timeoutMs: number): Promise<boolean> {
    return this.cacher.waitForRevision(revision + 1, timeoutMs);
  }

  /**
   * Whether what {@link confirmCurrent} showed still holds: the cache is at `revision` or beyond,
   * or has not moved from where it was when checked (`cacheRevision`).
   */
  stillCurrent(revision: number, cacheRevision: number): boolean {
    const { cache } = this.cacher;
    return this.cacher.ready() && (cache.revision >= revision || cache.revision === cacheRevision);
  }

  private mayRequestProgress(): Promise<boolean> {
    const mode = this.opts.progressRequests ?? 'auto';
    if (mode !== 'auto') return Promise.resolve(mode === 'always');
    // The source asks etcd once and remembers the answer (or asks again after a failure).
    return this.source.progressRequestsSafe?.() ?? Promise.resolve(false);
  }
}
