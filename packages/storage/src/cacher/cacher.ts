import type { KubeObject } from '@cluster/apimachinery';
import { StorageError, isStorageError } from '../errors.js';
import type { Predicate, WatchEvent, WatchOptions, WatchStream } from '../interfaces.js';
import { parseRevision } from '../etcd3/revisions.js';
import { bookmarkEvent, errorEvent, expiredEvent, watchEventFor, type CacheEvent } from './cache-event.js';
import { CacheWatcher, keyInScope } from './cache-watcher.js';
import type { CacherOptions, CacherSource } from './cacher-source.js';
import { WatchCache, type StoreChange } from './watch-cache.js';
import { SnapshotStore, listOfEntries, type ListSnapshot } from './list-snapshot.js';
import type { ListResult } from '../interfaces.js';
import { ConsistencyProofs } from './consistency-proofs.js';

type Waiter = { revision: number; resolve: () => void };

/** The selection group each registered watcher was put in. */
const selectionOf = new WeakMap<CacheWatcher, string>();

/**
 * The watch cache of one resource prefix, after upstream's Cacher: ONE etcd watch, started from
 * the revision of an initial list, feeds a {@link WatchCache}; every client watch is served from it.
 * Compaction of the resume revision makes it list again and end every client watch with 410.
 */
export class Cacher {
  private readonly cache: WatchCache;
  /**
   * Open watchers by key prefix, then by selection: watchers whose predicates share a selectorKey
   * (or have none) see the same events, so each change is filtered once per selection and the
   * resulting event handed to all of them.
   */
  private readonly groups = new Map<string, Map<string, Set<CacheWatcher>>>();
  private nextSoloSelection = 0;
  /** Proofs that the cache is etcd's current state, for consistent reads (see ConsistencyProofs). */
  private readonly proofs: ConsistencyProofs;
  private waiters: Waiter[] = [];
  private readyWaiters: Array<() => void> = [];
  private etcdWatch: { close(): Promise<void>; requestProgress?(): boolean } | undefined;
  /** Snapshots that served a first page, for the pages after it (see snapshotFor). */
  private readonly snapshots: SnapshotStore;
  private ready = false;
  private closed = false;
  private started = false;
  private bookmarkTimer: NodeJS.Timeout;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: CacherSource,
    /** The resource prefix, e.g. `/registry/core/configmaps/`. */
    readonly resourcePrefix: string,
    private readonly opts: CacherOptions = {},
  ) {
    this.cache = new WatchCache(opts);
    this.snapshots = new SnapshotStore(opts.maxListSnapshots ?? 16, opts.listSnapshotTtlMs ?? 30_000);
    this.proofs = new ConsistencyProofs(source, opts, {
      ready: () => this.ready,
      cache: this.cache,
      requestProgress: () => this.etcdWatch?.requestProgress?.() ?? false,
      waitForRevision: (revision, timeoutMs) => this.waitForRevision(revision, timeoutMs),
    });
    this.bookmarkTimer = setInterval(() => this.tick(), opts.bookmarkIntervalMs ?? 1_000);
    this.bookmarkTimer.unref();
  }

  /** Whether the initial list is done (and not being redone after a compaction). */
  get isReady(): boolean {
    return this.ready;
  }

  /** The revision the cache is complete up to. */
  get revision(): number {
    return this.cache.revision;
  }

  /** Objects in the cache; undefined until its first list is in. */
  get objectCount(): number | undefined {
    return this.ready ? this.cache.size : undefined;
  }

  /** Number of open client watchers. */
  /** Revision of the cache's last full list; it knows no events at or before it. */
  get listedRevision(): number {
    return this.cache.listedRevision;
  }

  get watcherCount(): number {
    let n = 0;
    for (const selections of this.groups.values()) for (const set of selections.values()) n += set.size;
    return n;
  }

  /**
   * Lists the resource and starts the etcd watch (once). With `initialRevision` the first list is
   * read at that revision when it is still available, so that a watch from it can be served.
   */
  start(initialRevision = 0): void {
    if (this.started || this.closed) return;
    this.started = true;
    void this.relist(initialRevision, 0);
  }

  /** Resolves once the cache is ready; throws UnreachableEtcd after the ready timeout or when closed. */
  async waitReady(signal?: AbortSignal): Promise<void> {
    if (this.ready) return;
    if (this.closed) throw new StorageError('UnreachableEtcd', this.resourcePrefix, 'the watch cache is closed');
    const timeoutMs = this.opts.readyTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        this.readyWaiters.push(resolve);
        timer = setTimeout(
          () => reject(new StorageError('UnreachableEtcd', this.resourcePrefix, `the watch cache of ${this.resourcePrefix} is not ready`)),
          timeoutMs,
        );
        onAbort = () => reject(new StorageError('UnreachableEtcd', this.resourcePrefix, 'the request ended'));
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
    if (this.closed) throw new StorageError('UnreachableEtcd', this.resourcePrefix, 'the watch cache is closed');
  }

  /** The cached objects under `prefix` passing `predicate`, or undefined while not ready. */
  list(prefix: string, predicate?: Predicate): { items: KubeObject[]; revision: number } | undefined {
    if (!this.ready) return undefined;
    return { items: this.cache.list(prefix, predicate), revision: this.cache.revision };
  }

  /**
   * The cached objects under `prefix` passing `predicate` as a list result, with `raw` as handles to
   * their stored JSON when the cache keeps a shared store (nothing decoded); undefined while not ready.
   */
  listAll(prefix: string, raw: boolean, predicate?: Predicate): { result: ListResult; revision: number } | undefined {
    if (!this.ready) return undefined;
    const revision = this.cache.revision;
    return { result: listOfEntries(this.cache.selectEntries(prefix, predicate), raw, String(revision)), revision };
  }

  /** See ConsistencyProofs.waitUntilFresh: waits (bounded) for the cache to reach `revision`, read from etcd at `since`. */
  waitUntilFresh(revision: number, since: number): Promise<boolean> {
    return this.proofs.waitUntilFresh(revision, since);
  }

  /** Whether {@link confirmCurrent} can prove anything (the source can count changes). */
  get canConfirmCurrent(): boolean {
    return this.proofs.canConfirmCurrent;
  }

  /** See ConsistencyProofs.confirmCurrent: the revision the cache's state under `prefix` is proven current at. */
  confirmCurrent(prefix: string): Promise<{ revision: number; cacheRevision: number } | undefined> {
    return this.proofs.confirmCurrent(prefix);
  }

  /** Waits up to `timeoutMs` for the cache to move beyond `revision`; true when it did. */
  waitBeyond(revision: number, timeoutMs: number): Promise<boolean> {
    return this.proofs.waitBeyond(revision, timeoutMs);
  }

  /** See ConsistencyProofs.stillCurrent: whether what confirmCurrent showed still holds. */
  stillCurrent(revision: number, cacheRevision: number): boolean {
    return this.proofs.stillCurrent(revision, cacheRevision);
  }

  /**
   * The current state under `prefix` at {@link revision}, sorted by key, or undefined while not
   * ready. Cheap (references only); stays valid however the cache changes later.
   */
  snapshot(prefix: string): ListSnapshot | undefined {
    if (!this.ready) return undefined;
    const { keys, objects } = this.cache.snapshot(prefix);
    return { prefix, revision: this.cache.revision, keys, objects };
  }

  /**
   * The state under `prefix` (ending in '/') at exactly `revision` from the cache's own state and
   * history, or undefined when it does not reach back to it or is not there yet.
   */
  snapshotAt(prefix: string, revision: number): ListSnapshot | undefined {
    if (!this.ready) return undefined;
    const state = this.cache.stateAt(prefix, revision);
    return state && { prefix, revision, keys: state.keys, objects: state.objects };
  }

  /** Keeps `snap` for the continue tokens of the list it served (bounded count, short lifetime). */
  keepSnapshot(snap: ListSnapshot): void {
    if (!this.closed) this.snapshots.add(snap);
  }

  /** A kept snapshot of `prefix` at exactly `revision`. */
  snapshotFor(prefix: string, revision: number): ListSnapshot | undefined {
    return this.snapshots.get(prefix, revision);
  }

  /** The cached object at `key` (null when absent), or undefined while not ready. */
  get(key: string): KubeObject | null | undefined {
    if (!this.ready) return undefined;
    return this.cache.get(key) ?? null;
  }

  /**
   * Opens a client watch on `prefix` (a namespace or the whole resource, or one key) with the
   * SPEC 4.4 start semantics. Throws Compacted when a start revision is older than the window,
   * TooLargeResourceVersion when it is newer than etcd after the wait, InvalidError for a bad one.
   */
  async watch(prefix: string, opts: WatchOptions): Promise<WatchStream> {
    const rvText = opts.resourceVersion ?? '';
    const rv = parseRevision(rvText);
    await this.waitReady(opts.signal);
    const wantState = opts.sendInitialEvents ?? rv === 0;
    const mostRecent = rvText === '';
    if (!wantState) {
      if (rv === 0) return this.register(prefix, opts, mostRecent ? await this.source.currentRevision() : this.cache.revision, []);
      if (rv > this.cache.revision) await this.ensureNotFuture(rv, prefix);
      if (rv >= this.cache.revision) return this.register(prefix, opts, rv, []);
      const replay: WatchEvent[] = [];
      for (const ev of this.cache.eventsAfter(rv, prefix)) {
        const out = this.select(ev, prefix, opts.predicate);
        if (out) replay.push(out);
      }
      return this.register(prefix, opts, this.cache.revision, replay);
    }

    // "Get state": the state at a revision at least `target`.
    let target = rv;
    if (mostRecent) target = await this.source.currentRevision();
    else if (rv > this.cache.revision) await this.ensureNotFuture(rv, prefix);
    if (this.cache.revision < target) await this.waitForRevision(target, this.opts.freshWaitMs ?? 100);
    if (this.cache.revision >= target) {
      const initial = this.cache.addedEvents(prefix, opts.predicate);
      return this.register(prefix, opts, this.cache.revision, initial, opts.sendInitialEvents === true);
    }
    // The cache lags (an idle resource hears of newer revisions only from progress notifications):
    // read the start state from etcd and let the watcher skip what the cache has not caught up on.
    const at = Math.max(target, await this.source.currentRevision());
    const w = this.register(prefix, opts, at, undefined);
    try {
      const { entries } = await this.source.listEntries(prefix, at);
      const initial: WatchEvent[] = [];
      for (const [, obj] of entries) {
        if (!opts.predicate || opts.predicate(obj)) {
          initial.push({ type: 'ADDED', object: obj, revision: Number(obj.metadata.resourceVersion ?? 0) });
        }
      }
      if (opts.sendInitialEvents === true && opts.allowBookmarks) initial.push(this.initialEventsEnd(at));
      w.setInitial(initial);
    } catch (e) {
      w.terminate();
      throw e;
    }
    return w;
  }

  /** Stops the etcd watch and ends every client watcher. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ready = false;
    clearInterval(this.bookmarkTimer);
    this.snapshots.clear();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    for (const w of this.allWatchers()) w.terminate();
    for (const resolve of this.readyWaiters.splice(0)) resolve();
    const watch = this.etcdWatch;
    this.etcdWatch = undefined;
    await watch?.close();
  }

  private register(
    prefix: string,
    opts: WatchOptions,
    afterRevision: number,
    initial: WatchEvent[] | undefined,
    endBookmark = false,
  ): CacheWatcher {
    const events = initial ?? [];
    if (endBookmark && opts.allowBookmarks) events.push(this.initialEventsEnd(afterRevision));
    const w = new CacheWatcher({
      prefix,
      ...(opts.predicate ? { predicate: opts.predicate } : {}),
      allowBookmarks: opts.allowBookmarks === true,
      signal: opts.signal,
      initialEvents: events,
      afterRevision,
      ...(this.opts.watcherBufferSize !== undefined ? { bufferSize: this.opts.watcherBufferSize } : {}),
      ...(this.opts.slowBudgetMs !== undefined ? { slowBudgetMs: this.opts.slowBudgetMs } : {}),
      onClose: (cw) => this.unregister(cw),
    });
    if (!w.isOpen) return w;
    const selection = opts.predicate ? opts.predicate.selectorKey ?? `#${this.nextSoloSelection++}` : '';
    selectionOf.set(w, selection);
    let selections = this.groups.get(prefix);
    if (!selections) this.groups.set(prefix, (selections = new Map()));
    let set = selections.get(selection);
    if (!set) selections.set(selection, (set = new Set()));
    set.add(w);
    return w;
  }

  private unregister(w: CacheWatcher): void {
    const selections = this.groups.get(w.prefix);
    const selection = selectionOf.get(w);
    const set = selection === undefined ? undefined : selections?.get(selection);
    if (!selections || !set) return;
    set.delete(w);
    if (set.size === 0) selections.delete(selection!);
    if (selections.size === 0) this.groups.delete(w.prefix);
  }

  private *allWatchers(): Generator<CacheWatcher> {
    for (const selections of [...this.groups.values()]) for (const set of [...selections.values()]) yield* [...set];
  }

  private initialEventsEnd(revision: number): WatchEvent {
    return bookmarkEvent(revision, { [this.opts.initialEventsEndAnnotation ?? 'k8s.io/initial-events-end']: 'true' });
  }

  private select(ev: CacheEvent, prefix: string, predicate: Predicate | undefined): WatchEvent | undefined {
    return keyInScope(prefix, ev.key) ? watchEventFor(ev, predicate) : undefined;
  }

  /** Waits until etcd has reached `rev` (via the cache or a direct read), else TooLargeResourceVersion. */
  private async ensureNotFuture(rev: number, key: string): Promise<void> {
    const deadline = Date.now() + (this.opts.waitTimeoutMs ?? 3_000);
    for (;;) {
      if (this.cache.revision >= rev) return;
      const current = await this.source.currentRevision();
      if (current >= rev) return;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new StorageError(
          'TooLargeResourceVersion',
          key,
          `Too large resource version: ${rev}, current: ${current}`,
          Math.max(current, this.cache.revision),
        );
      }
      await this.waitForRevision(rev, Math.min(100, left));
    }
  }

  private waitForRevision(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.cache.revision >= revision) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(this.cache.revision >= revision);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  private notifyWaiters(): void {
    if (this.waiters.length === 0) return;
    const rev = this.cache.revision;
    const due = this.waiters.filter((w) => w.revision <= rev);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.revision > rev);
    for (const w of due) w.resolve();
  }

  private async relist(atRevision: number, attempt: number): Promise<void> {
    if (this.closed) return;
    let listed: { entries: [string, KubeObject][]; revision: number };
    try {
      try {
        listed = await this.source.listEntries(this.resourcePrefix, atRevision || undefined);
      } catch (e) {
        // That revision is compacted or not there yet: the watch asking for it gets 410 or 504.
        if (!atRevision || !(isStorageError(e, 'Compacted') || isStorageError(e, 'TooLargeResourceVersion'))) throw e;
        listed = await this.source.listEntries(this.resourcePrefix);
      }
    } catch (e) {
      this.opts.log?.(`watch cache ${this.resourcePrefix}: list failed: ${(e as Error).message}`);
      const delay = Math.min(3_000, 100 * 2 ** Math.min(attempt, 5));
      this.retryTimer = setTimeout(() => void this.relist(0, attempt + 1), delay);
      return;
    }
    if (this.closed) return;
    this.cache.reset(listed.entries, listed.revision);
    this.proofs.forget();
    this.etcdWatch = this.source.watchChanges(this.resourcePrefix, listed.revision + 1, {
      onChanges: (changes) => this.onChanges(changes),
      onProgress: (rev) => {
        if (this.cache.advance(rev)) this.notifyWaiters();
      },
      onCompacted: (rev) => this.onCompacted(rev),
    });
    this.ready = true;
    for (const resolve of this.readyWaiters.splice(0)) resolve();
    this.notifyWaiters();
  }

  private onChanges(changes: StoreChange[]): void {
    if (this.closed || !this.ready) return;
    for (const change of changes) {
      let ev: CacheEvent | undefined;
      try {
        ev = this.cache.apply(change);
      } catch (e) {
        // An undecodable value cannot be shown to anyone; the cache keeps going without it.
        this.opts.log?.(`watch cache ${this.resourcePrefix}: ${(e as Error).message}`);
        ev = this.cache.apply({ type: 'delete', key: change.key, revision: change.revision });
      }
      if (!ev) continue;
      for (const [prefix, selections] of this.groups) {
        if (!keyInScope(prefix, ev.key)) continue;
        for (const set of selections.values()) this.deliver(ev, set);
      }
    }
    this.notifyWaiters();
  }

  /** Filters `ev` once for watchers sharing one selection and hands each the result. */
  private deliver(ev: CacheEvent, set: Set<CacheWatcher>): void {
    let decided = false;
    let out: WatchEvent | undefined;
    for (const w of set) {
      if (!w.wants(ev.revision)) continue;
      if (!decided) {
        decided = true;
        try {
          out = watchEventFor(ev, w.predicate);
        } catch (e) {
          // A failing predicate ends the watches that use it, never the dispatch to the others.
          const failed = errorEvent(500, 'InternalError', `Internal error occurred: ${(e as Error).message}`);
          for (const x of [...set]) x.terminate(failed);
          return;
        }
        if (!out) return;
      }
      w.push(out!);
    }
  }

  private onCompacted(compactRevision: number): void {
    if (this.closed) return;
    this.opts.log?.(`watch cache ${this.resourcePrefix}: etcd compacted to ${compactRevision}; listing again`);
    this.ready = false;
    const watch = this.etcdWatch;
    this.etcdWatch = undefined;
    void watch?.close();
    const expired = expiredEvent();
    for (const w of this.allWatchers()) w.terminate(expired);
    void this.relist(0, 0);
  }

  private tick(): void {
    this.cache.evict();
    this.snapshots.sweep();
    if (!this.ready || this.groups.size === 0) return;
    const ev = bookmarkEvent(this.cache.revision);
    for (const w of this.allWatchers()) w.bookmark(ev);
  }
}
