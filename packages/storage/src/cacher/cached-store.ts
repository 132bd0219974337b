import type { KubeObject } from '@cluster/apimachinery';
import { isStorageError, StorageError } from '../errors.js';
import type {
  GuardedDeleteOutcome,
  GetOptions,
  GuaranteedUpdateOptions,
  ListOptions,
  ListResult,
  Preconditions,
  Store,
  UpdateFunc,
  ValidateDeletion,
  WatchOptions,
  WatchStream,
} from '../interfaces.js';
import type { Etcd3Store } from '../etcd3/store.js';
import { parseRevision } from '../etcd3/revisions.js';
import { decodeContinue } from '../etcd3/continue-token.js';
import { pageOfSnapshot, type ListSnapshot } from './list-snapshot.js';
import { Cacher } from './cacher.js';
import { UpdateSerializer } from './update-serializer.js';
import type { CacherOptions } from './cacher-source.js';

/** Options of a {@link CachedStore}: the cachers' options plus a metrics hook. */
export interface CachedStoreOptions extends CacherOptions {
  /** Called with +1 / -1 whenever an etcd watch stream opens or closes (gauge `apiserver_storage_etcd_watches`). */
  onEtcdWatchCountChange?: (delta: number) => void;
  /**
   * Where cachers list and watch from; defaults to `etcd`. A store on its own etcd connection
   * keeps a cache's full-collection list from being starved behind many small requests on a
   * shared HTTP/2 connection (and the other way round).
   */
  cacheSource?: Etcd3Store;
  /** Most-recent lists from the cache once shown current (default true); false: always etcd. */
  consistentListFromCache?: boolean;
  /** Most-recent gets (no resourceVersion) from the cache once shown current (default true); false: always etcd. */
  consistentGetFromCache?: boolean;
}

/** How long etcd's word that a snapshot's revision is not compacted is taken as still true. */
const REVISION_CHECK_REUSE_MS = 1_000;
/** Attempts at showing a watch cache current by counting before waiting for it otherwise. */
const MAX_CURRENT_PROOFS = 4;
/** How long one attempt waits for the cache to hear of writes it is behind on. */
const CURRENT_PROOF_WAIT_MS = 250;

/** The object with the higher resourceVersion (either may be missing). */
function newerOf(a: KubeObject | undefined, b: KubeObject | undefined): KubeObject | undefined {
  if (!a || !b) return a ?? b;
  return Number(b.metadata.resourceVersion) > Number(a.metadata.resourceVersion) ? b : a;
}

/**
 * The resource prefix of a key or key prefix: its first four segments,
 * `/registry/<group>/<resource>/`. Undefined when the key is not under `/registry/<group>/<resource>/`.
 */
export function resourcePrefixOf(keyOrPrefix: string): string | undefined {
  // `/registry/<group>/<resource>/` with both names non-empty, found without splitting the whole key.
  if (!keyOrPrefix.startsWith(REGISTRY_ROOT)) return undefined;
  const groupEnd = keyOrPrefix.indexOf('/', REGISTRY_ROOT.length);
  if (groupEnd <= REGISTRY_ROOT.length) return undefined;
  const resourceEnd = keyOrPrefix.indexOf('/', groupEnd + 1);
  if (resourceEnd <= groupEnd + 1) return undefined;
  return keyOrPrefix.slice(0, resourceEnd + 1);
}

const REGISTRY_ROOT = '/registry/';

/**
 * A Store that serves watches, "Any" lists (resourceVersion=0) and "Any" gets from one watch cache
 * per resource (created lazily, each holding ONE etcd watch) and everything else from etcd.
 */
export class CachedStore implements Store {
  private readonly cachers = new Map<string, Cacher>();
  private readonly updates = new UpdateSerializer();
  private readonly unsubscribe: (() => void) | undefined;
  private closed = false;

  private readonly source: Etcd3Store;

  constructor(
    /** The etcd store every write and consistent read goes to. */
    readonly etcd: Etcd3Store,
    private readonly opts: CachedStoreOptions = {},
  ) {
    this.source = opts.cacheSource ?? etcd;
    this.unsubscribe = opts.onEtcdWatchCountChange ? this.source.onEtcdWatchCountChange(opts.onEtcdWatchCountChange) : undefined;
  }

  /** Number of etcd watch streams held open (one per started cacher, plus direct watches). */
  get etcdWatchCount(): number {
    return this.source.etcdWatchCount;
  }

  /** Number of client watchers across all cachers. */
  /** Objects held by each ready watch cache, by resource prefix (`/registry/<group>/<resource>/`). */
  get cachedObjectCounts(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [prefix, cacher] of this.cachers) {
      const n = cacher.objectCount;
      if (n !== undefined) out.set(prefix, n);
    }
    return out;
  }

  get watcherCount(): number {
    let n = 0;
    for (const c of this.cachers.values()) n += c.watcherCount;
    return n;
  }

  /**
   * The cacher of the resource of `keyOrPrefix`, created and started on first use; undefined for
   * keys outside `/registry/<group>/<resource>/`. `initialRevision` lets a cacher started for a
   * watch from N read its first list at N so that watch can be served.
   */
  cacherFor(keyOrPrefix: string, initialRevision = 0): Cacher | undefined {
    const prefix = resourcePrefixOf(keyOrPrefix);
    if (!prefix || this.closed) return undefined;
    let c = this.cachers.get(prefix);
    if (!c) {
      c = new Cacher(this.source, prefix, this.opts);
      this.cachers.set(prefix, c);
      c.start(initialRevision);
    }
    return c;
  }

  /**
   * Stops and forgets the cacher of a resource prefix (a resource no longer served, such as a
   * deleted custom resource): its etcd watch and its client watchers end. A later use starts a new one.
   */
  async releaseCacher(keyOrPrefix: string): Promise<void> {
    const prefix = resourcePrefixOf(keyOrPrefix);
    const c = prefix ? this.cachers.get(prefix) : undefined;
    if (!c || !prefix) return;
    this.cachers.delete(prefix);
    await c.close();
  }

  create(key: string, obj: KubeObject, opts?: { dryRun?: boolean; ttlSeconds?: number }): Promise<KubeObject> {
    return this.etcd.create(key, obj, opts);
  }

  cachedGet(key: string): KubeObject | null | undefined {
    return this.cacherFor(key)?.get(key);
  }

  cachedList(prefix: string): KubeObject[] | undefined {
    return this.cacherFor(prefix)?.list(prefix)?.items;
  }

  async get(key: string, opts: GetOptions = {}): Promise<KubeObject> {
    if (opts.resourceVersion === '0') {
      const found = this.cacherFor(key)?.get(key);
      if (found === null) throw new StorageError('KeyNotFound', key, `key ${key} not found`);
      if (found) return found;
    }
    if (!opts.resourceVersion && this.opts.consistentGetFromCache !== false) {
      const found = await this.mostRecentGetFromCache(key);
      if (found === null) throw new StorageError('KeyNotFound', key, `key ${key} not found`);
      if (found) return found;
    }
    return this.etcd.get(key, opts);
  }

  /**
   * "Most Recent" get (SPEC 4.4) from the watch cache, as a most-recent list is served: once the
   * cache is shown to hold etcd's state of the key's resource at a revision read after the request
   * arrived (see {@link revisionCacheIsCurrentAt}), its copy of the key is what an etcd get would
   * answer. Proven on the whole resource rather than the key, so that one proof serves every get
   * of that resource until etcd moves. Null: no such key; undefined: read etcd.
   */
  private async mostRecentGetFromCache(key: string): Promise<KubeObject | null | undefined> {
    const cacher = this.cacherFor(key);
    if (!cacher?.isReady) return undefined;
    const at = await this.revisionCacheIsCurrentAt(cacher, cacher.resourcePrefix);
    if (at === undefined) return undefined;
    // The cache can only have moved on since the check: its copy is etcd's state at `at` or a
    // later one, either of which existed while this read was running.
    return cacher.get(key);
  }

  /**
   * A revision, read from etcd after this call, at which the cache's current state under `prefix`
   * is etcd's; undefined when that cannot be shown in the bounded wait (the caller reads etcd).
   * Concurrent callers share etcd's revision reads (Etcd3Store.currentRevision), each joining only
   * a read sent after it arrived, so each answer still covers every write acknowledged before it.
   */
  private async revisionCacheIsCurrentAt(cacher: Cacher, prefix: string): Promise<number | undefined> {
    for (let attempt = 0; cacher.canConfirmCurrent && attempt < MAX_CURRENT_PROOFS; attempt++) {
      const checkedAt = cacher.revision;
      const confirmed = await cacher.confirmCurrent(prefix);
      if (confirmed && cacher.stillCurrent(confirmed.revision, confirmed.cacheRevision)) return confirmed.revision;
      // Writes under the prefix the cache has not seen yet: their events are on the way.
      if (!(await cacher.waitBeyond(checkedAt, CURRENT_PROOF_WAIT_MS))) break;
    }
    const since = performance.now();
    const revision = await this.etcd.currentRevision();
    if (!(await cacher.waitUntilFresh(revision, since))) return undefined;
    return cacher.revision;
  }

  async getList(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    // "Any": resourceVersion=0 without a continue token (limit is ignored, as upstream's cache does).
    if (opts.resourceVersion === '0' && !opts.continueToken && opts.resourceVersionMatch !== 'Exact') {
      const cacher = this.cacherFor(prefix);
      const all = cacher?.listAll(prefix, opts.raw === true, opts.predicate);
      if (all) return { ...all.result, sharedItems: true };
      // Not ready yet: a most-recent read from etcd also satisfies "Any".
      const { resourceVersion: _rv, limit: _limit, ...rest } = opts;
      return this.etcd.getList(prefix, rest);
    }
    if (opts.continueToken) return (await this.continueFromSnapshot(prefix, opts)) ?? this.etcd.getList(prefix, opts);
    if (!opts.resourceVersion && !opts.resourceVersionMatch && this.opts.consistentListFromCache !== false) {
      return (await this.mostRecentFromCache(prefix, opts)) ?? this.etcd.getList(prefix, opts);
    }
    // Exact and not-older-than reads stay on etcd.
    return this.etcd.getList(prefix, opts);
  }

  /**
   * "Most Recent" (SPEC 4.4) from the watch cache, as upstream's ConsistentListFromCache does:
   * show with a linearizable read that the cache holds etcd's current state of the prefix
   * (Cacher.confirmCurrent; when writes under it are still on their way, wait for them and look
   * again), or else wait (bounded) until the cache has seen etcd's current revision, and answer
   * the cache's state at that revision. This
   * deviates from DESIGN "Storage" ("quorum reads are linearizable etcd ranges") in mechanism only:
   * the answer reflects every write completed before the request, exactly as the range would, but
   * without etcd reading, sending and us decoding the whole collection. Undefined (the caller
   * reads etcd) when the cache is not ready or does not catch up in time.
   * With a limit the first page comes from a snapshot of the cache, kept for the continue token.
   */
  private async mostRecentFromCache(prefix: string, opts: ListOptions): Promise<ListResult | undefined> {
    const cacher = this.cacherFor(prefix);
    if (!cacher?.isReady) return undefined;
    const at = await this.revisionCacheIsCurrentAt(cacher, prefix);
    if (at === undefined) return undefined;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    if (limit === 0) {
      const all = cacher.listAll(prefix, opts.raw === true, opts.predicate);
      return all && { ...all.result, resourceVersion: String(Math.max(at, all.revision)), sharedItems: true };
    }
    const found = cacher.snapshot(prefix);
    if (!found) return undefined;
    // Nothing ran since the check above: the state is the one shown current at `at`.
    const snap = { ...found, revision: Math.max(at, found.revision) };
    const page = pageOfSnapshot(snap, {
      limit,
      ...(opts.predicate ? { predicate: opts.predicate } : {}),
      hasSelector: opts.hasSelector === true,
      raw: opts.raw === true,
    });
    if (page.continueToken) cacher.keepSnapshot(snap);
    page.sharedItems = true;
    return page;
  }

  /**
   * A page after the first (Continue Token, Exact) from the snapshot that served the first page,
   * when it is still kept; undefined otherwise (the caller reads etcd at the token's revision).
   * etcd is asked whether that revision is compacted, so the answer stays 410 Expired then.
   */
  private async continueFromSnapshot(prefix: string, opts: ListOptions): Promise<ListResult | undefined> {
    const token = decodeContinue(opts.continueToken!);
    if (token.revision <= 0) return undefined;
    const resourcePrefix = resourcePrefixOf(prefix);
    const cacher = resourcePrefix ? this.cachers.get(resourcePrefix) : undefined;
    if (!cacher) return undefined;
    const snap =
      cacher.snapshotFor(prefix, token.revision) ??
      (this.opts.consistentListFromCache !== false ? await this.snapshotAtRevision(cacher, prefix, token.revision) : undefined);
    if (!snap) return undefined;
    // A client paging through a list asks many times a second; one look at etcd per second tells
    // all of them. A compaction in between is noticed by the next look (the pages served meanwhile
    // are still exactly the state at the token's revision).
    const now = performance.now();
    if (snap.availableCheckedAt === undefined || now - snap.availableCheckedAt > REVISION_CHECK_REUSE_MS) {
      await this.etcd.assertRevisionAvailable(prefix, token.revision, token.startRelative);
      snap.availableCheckedAt = now;
    }
    const page = pageOfSnapshot(snap, {
      startKey: prefix + token.startRelative,
      ...(opts.limit ? { limit: opts.limit } : {}),
      ...(opts.predicate ? { predicate: opts.predicate } : {}),
      hasSelector: opts.hasSelector === true,
      raw: opts.raw === true,
    });
    page.sharedItems = true;
    return page;
  }

  /**
   * The state under `prefix` at exactly `revision` from this cache, for a continue token whose
   * first page another worker (or replica) served, kept for the pages after it; undefined when it
   * cannot be had without etcd. Either the cache's history reaches back to `revision`, or the
   * cache is behind it and a proof (Cacher.confirmCurrent) shows nothing under `prefix` changed
   * from the cache's revision to at least `revision` (other resources moved etcd's revision on).
   */
  private async snapshotAtRevision(cacher: Cacher, prefix: string, revision: number): Promise<ListSnapshot | undefined> {
    if (!cacher.isReady || !prefix.endsWith('/') || revision < cacher.listedRevision) return undefined;
    let snap: ListSnapshot | undefined;
    if (cacher.revision >= revision) {
      snap = cacher.snapshotAt(prefix, revision);
    } else if (cacher.canConfirmCurrent) {
      const proof = await cacher.confirmCurrent(prefix);
      if (cacher.revision >= revision) {
        snap = cacher.snapshotAt(prefix, revision);
      } else if (proof && proof.cacheRevision <= revision && revision <= proof.revision && cacher.stillCurrent(proof.revision, proof.cacheRevision)) {
        // Nothing under the prefix changed from proof.cacheRevision to proof.revision, and the
        // cache is between them: its state under the prefix is the state at `revision`.
        const current = cacher.snapshot(prefix);
        snap = current && { ...current, revision };
      }
    }
    if (snap) cacher.keepSnapshot(snap);
    return snap;
  }

  /**
   * Updates of one key from this replica run one after another (see UpdateSerializer), each
   * starting from the newer of what the previous one wrote and the watch cache's copy: the
   * cache hears of a write only after it is answered, so the next update would otherwise start
   * from the state before it and go round twice.
   */
  guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts: GuaranteedUpdateOptions): Promise<KubeObject> {
    if (opts.dryRun || opts.suggestion) return this.updateFrom(key, tryUpdate, opts, undefined);
    return this.updates.run(key, (lastWritten) => this.updateFrom(key, tryUpdate, opts, lastWritten));
  }

  private updateFrom(key: string, tryUpdate: UpdateFunc, opts: GuaranteedUpdateOptions, lastWritten: KubeObject | undefined): Promise<KubeObject> {
    if (!opts.suggestion) {
      const suggestion = newerOf(this.cacherFor(key)?.get(key) ?? undefined, lastWritten);
      if (suggestion) return this.etcd.guaranteedUpdate(key, tryUpdate, { ...opts, suggestion });
    }
    return this.etcd.guaranteedUpdate(key, tryUpdate, opts);
  }

  delete(
    key: string,
    opts?: { preconditions?: Preconditions; validateDeletion?: ValidateDeletion; dryRun?: boolean },
  ): Promise<KubeObject> {
    return this.etcd.delete(key, opts);
  }

  deleteIfUnchanged(key: string, modRevision: number): Promise<GuardedDeleteOutcome> {
    return this.etcd.deleteIfUnchanged(key, modRevision);
  }

  /** Serves the watch from the resource's cacher (see Cacher.watch); keys outside /registry go to etcd. */
  async watch(prefix: string, opts: WatchOptions): Promise<WatchStream> {
    if (this.closed) throw new StorageError('UnreachableEtcd', prefix, 'the store is closed');
    const rv = parseRevision(opts.resourceVersion);
    const cacher = this.cacherFor(prefix, rv);
    if (!cacher) return this.etcd.watch(prefix, opts);
    try {
      return await cacher.watch(prefix, opts);
    } catch (e) {
      // Older than the cache's history (a client resuming after this replica started) but maybe
      // still in etcd's: serve that client from etcd directly rather than send it to relist.
      // etcd answers Compacted (410) itself when the revision is gone there too.
      // Events that merely aged out of the history stay 410 (SPEC 6 rule 4).
      if (rv > 0 && rv < cacher.listedRevision && isStorageError(e, 'Compacted')) return this.etcd.watch(prefix, opts);
      throw e;
    }
  }

  currentRevision(): Promise<number> {
    return this.etcd.currentRevision();
  }

  ping(): Promise<void> {
    return this.etcd.ping();
  }

  /** Stops every cacher (their etcd watches end, their client watchers end) and closes etcd. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.cachers.values()].map((c) => c.close()));
    this.cachers.clear();
    this.unsubscribe?.();
    await this.etcd.close();
    if (this.source !== this.etcd) await this.source.close();
  }
}
