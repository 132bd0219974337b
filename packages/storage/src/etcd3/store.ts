import { WriteCoalescer } from './write-coalescer.js';
import type { Etcd3, IKeyValue, IRangeRequest, IRangeResponse, ITxnRequest, ITxnResponse } from 'etcd3';
import type { KubeObject } from '@cluster/apimachinery';
import { StorageError } from '../errors.js';
import type {
  GuardedDeleteOutcome,
  GetOptions,
  GuaranteedUpdateOptions,
  ListOptions,
  ListResult,
  Preconditions,
  RawItem,
  Store,
  UpdateFunc,
  ValidateDeletion,
  WatchOptions,
  WatchStream,
} from '../interfaces.js';
import type { ChangeSink } from '../cacher/cacher-source.js';
import { directWatch } from './direct-watch.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { translateEtcdError } from './etcd-errors.js';
import { prefixEnd } from './keys.js';
import { type RawWatchHandlers, type RawWatchOptions, type WatchStreamSource } from './raw-watch.js';
import { decodeHeldValue, decodeValue, encodeValue } from './value-codec.js';
import type { RecentWrites } from './recent-writes.js';
import { rememberWritten } from './written-json.js';
import type { KvClient } from './kv-client.js';
import { checkPreconditions } from './preconditions.js';
import { LeaseManager } from './lease-manager.js';
import { parseRevision, StoreRevisions } from './revisions.js';
import { changeFeedHandlers } from './change-feed.js';
import { CountedWatches } from './counted-watches.js';

/** Bound on optimistic-concurrency retries so a hot key cannot spin a request forever. */
const MAX_UPDATE_ATTEMPTS = 64;

/**
 * The etcd v3 implementation of Store. Every write is a transaction with a compare on the key's
 * create or mod revision, so concurrent writers on any replica never overwrite each other.
 */
export class Etcd3Store implements Store {
  /** The raw etcd watches this store holds open, counted. */
  private readonly watches: CountedWatches;
  /** Groups writes that come while others are in flight (see WriteCoalescer). */
  private readonly writes: WriteCoalescer;
  /** Ranges and transactions go here: the lean client of `opts.kv`, or the etcd3 client's KV. */
  private readonly kv: KvClient;
  /** The current revision, and the checks and proofs about revisions (see StoreRevisions). */
  private readonly revisions = new StoreRevisions({
    range: (req, key) => this.range(req, key),
    countTxn: (req, key) => this.call(key, () => this.kv.txn(req), 'count'),
    status: () => this.client.maintenance.status(),
  });
  private readonly leases: LeaseManager;

  constructor(
    private readonly client: Etcd3,
    private readonly opts: Etcd3StoreOptions = {},
  ) {
    this.kv = opts.kv ?? client.kv;
    this.leases = new LeaseManager(client);
    this.watches = new CountedWatches(() => opts.watch ?? client.watchClient, opts.rawWatch);
    this.writes = new WriteCoalescer(opts.writeHoldMs === undefined ? {} : { maxHoldMs: opts.writeHoldMs });
  }

  /** Number of etcd watch streams this store holds open (direct watches and cacher feeds). */
  get etcdWatchCount(): number {
    return this.watches.count;
  }

  /** Subscribes to changes of {@link etcdWatchCount} (+1 / -1); returns the unsubscribe function. */
  onEtcdWatchCountChange(listener: (delta: number) => void): () => void {
    return this.watches.onChange(listener);
  }

  async create(key: string, obj: KubeObject, opts: { dryRun?: boolean; ttlSeconds?: number } = {}): Promise<KubeObject> {
    const k = Buffer.from(key);
    const value = encodeValue(obj);
    if (opts.dryRun) {
      const existing = await this.range({ key: k });
      if (existing.kvs.length > 0) throw new StorageError('KeyExists', key, `key ${key} already exists`);
      return { ...obj, metadata: { ...obj.metadata } };
    }
    // Without a TTL there is no lease to look up (no promise, no microtask turn).
    const lease = opts.ttlSeconds && opts.ttlSeconds > 0 ? await this.leaseFor(opts.ttlSeconds) : NO_LEASE;
    const res = await this.sendWrite(key, value, obj, 'create', {
      compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
      success: [{ request_put: { key: k, value, ...lease } }],
      failure: [],
    });
    if (!res.succeeded) throw new StorageError('KeyExists', key, `key ${key} already exists`);
    const rev = res.responses[0]?.response_put.header.revision ?? res.header.revision;
    return this.written(key, rev, value, obj);
  }

  /**
   * Sends a transaction that puts `value` (the encoding of `obj`) at `key`, remembered for the
   * watch cache's event of it until it is known to have failed (see RecentWrites).
   */
  private sendWrite(key: string, value: Buffer, obj: KubeObject, operation: EtcdOperation, txn: ITxnRequest): Promise<ITxnResponse> {
    const recent = this.opts.recentWrites;
    recent?.begin(key, value, obj);
    // One then() rather than an async function's promise and await (write() never throws).
    return this.write(key, operation, () => this.kv.txn(txn)).then(
      (res) => {
        if (!res.succeeded) recent?.forget(key, value);
        return res;
      },
      (e: unknown) => {
        recent?.forget(key, value);
        throw e;
      },
    );
  }

  /** What was stored, with its revision, without parsing back the bytes just written. */
  private written(key: string, rev: string, value: Buffer, obj: KubeObject): KubeObject {
    const stored = withResourceVersion(obj, rev);
    rememberWritten(stored, obj, value, rev);
    this.opts.recentWrites?.done(key, value, rev, stored);
    return stored;
  }

  /** The lease field of a put that should expire after `ttlSeconds` (none without a TTL). */
  private async leaseFor(ttlSeconds: number | undefined): Promise<{ lease?: string }> {
    if (!ttlSeconds || ttlSeconds <= 0) return {};
    try {
      return { lease: await this.leases.leaseFor(ttlSeconds) };
    } catch (e) {
      throw translateEtcdError(e, 'lease');
    }
  }

  async get(key: string, opts: GetOptions = {}): Promise<KubeObject> {
    const minRevision = parseRevision(opts.resourceVersion);
    const res = await this.revisions.rangeNotOlderThan({ key: Buffer.from(key) }, minRevision, key);
    const kv = res.kvs[0];
    if (!kv) throw new StorageError('KeyNotFound', key, `key ${key} not found`);
    return decodeValue(key, kv.value, kv.mod_revision);
  }

  async getList(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const prefixBuf = Buffer.from(prefix);
    const end = prefixEnd(prefixBuf);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    let startKey = prefixBuf;
    let revision = 0;
    let minRevision = 0;
    let continueFrom: string | undefined;
    if (opts.continueToken) {
      const token = decodeContinue(opts.continueToken);
      revision = token.revision;
      startKey = Buffer.from(prefix + token.startRelative);
      continueFrom = token.startRelative;
    } else if (opts.resourceVersion && opts.resourceVersion !== '0') {
      const rv = parseRevision(opts.resourceVersion);
      // Exact reads (and paged reads, which are exact per SPEC 4.4) read at that revision.
      if (opts.resourceVersionMatch === 'Exact' || (limit > 0 && opts.resourceVersionMatch !== 'NotOlderThan')) {
        revision = rv;
      } else {
        minRevision = rv;
      }
    }

    const items: KubeObject[] = [];
    const predicate = opts.predicate;
    const rawItems: RawItem[] | undefined = opts.raw && !predicate ? [] : undefined;
    const count = () => (rawItems ? rawItems.length : items.length);
    let more = false;
    let nextKey: Buffer | undefined;
    let remaining: number | undefined;
    let listRevision = revision;
    for (;;) {
      const batchLimit = limit > 0 ? Math.max(limit - count(), predicate ? limit : 0) : 0;
      let res;
      try {
        res =
          revision > 0
            ? await this.range({ key: startKey, range_end: end, limit: batchLimit, revision }, prefix)
            : await this.revisions.rangeNotOlderThan({ key: startKey, range_end: end, limit: batchLimit }, minRevision, prefix);
      } catch (e) {
        if (continueFrom !== undefined && e instanceof StorageError && e.code === 'Compacted') {
          e.continueToken = encodeContinue(-1, continueFrom);
        }
        throw e;
      }
      if (listRevision === 0) listRevision = Number(res.header.revision);
      // Later pages of this list read at the first page's revision.
      revision = listRevision;
      let consumed = 0;
      for (const kv of res.kvs) {
        consumed++;
        if (rawItems) {
          // No predicate: the stored bytes are answered as they are (see rawItemJson).
          rawItems.push({ key: kv.key, value: kv.value, modRevision: kv.mod_revision });
        } else {
          const obj = decodeValue(kv.key.toString('utf8'), kv.value, kv.mod_revision);
          if (predicate && !predicate(obj)) continue;
          items.push(obj);
        }
        if (limit > 0 && count() >= limit) break;
      }
      const lastKv: IKeyValue | undefined = res.kvs[consumed - 1];
      const batchHasMore = res.more || consumed < res.kvs.length;
      if (limit > 0 && count() >= limit) {
        more = batchHasMore;
        if (more && lastKv) {
          nextKey = Buffer.concat([lastKv.key, Buffer.from([0])]);
          if (!predicate || !opts.hasSelector) remaining = Number(res.count) - consumed;
        }
        break;
      }
      if (!res.more || !lastKv) break;
      startKey = Buffer.concat([lastKv.key, Buffer.from([0])]);
    }
    const result: ListResult = { items, resourceVersion: String(listRevision) };
    if (rawItems) result.rawItems = rawItems;
    if (more && nextKey) {
      result.continueToken = encodeContinue(listRevision, nextKey.subarray(prefixBuf.length).toString('utf8'));
      if (remaining !== undefined && remaining > 0 && !opts.hasSelector) result.remainingItemCount = remaining;
    }
    return result;
  }

  async guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts: GuaranteedUpdateOptions): Promise<KubeObject> {
    const k = Buffer.from(key);
    // A suggested state (the watch cache's copy) saves the read before the write, as upstream's
    // cacher does: the write's compare proves it current, and anything that could depend on it
    // being stale (a failed precondition or update, a no-op) is retried on a fresh read.
    let current: Pick<IKeyValue, 'value' | 'mod_revision'> | undefined;
    let fresh = true;
    const suggestedRevision = opts.suggestion?.metadata.resourceVersion;
    if (opts.suggestion && suggestedRevision && /^[1-9][0-9]*$/.test(suggestedRevision)) {
      current = { value: encodeValue(opts.suggestion), mod_revision: suggestedRevision };
      fresh = false;
    } else {
      current = (await this.range({ key: k }, key)).kvs[0];
    }
    const readFresh = async () => {
      current = (await this.range({ key: k }, key)).kvs[0];
      fresh = true;
    };
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const existing = current ? decodeValue(key, current.value, current.mod_revision) : undefined;
      let updated: KubeObject;
      try {
        if (!existing && !opts.ignoreNotFound) throw new StorageError('KeyNotFound', key, `key ${key} not found`);
        if (existing) checkPreconditions(key, existing, opts.preconditions);
        updated = await tryUpdate(existing);
      } catch (e) {
        if (fresh) throw e;
        await readFresh();
        continue;
      }
      const value = encodeValue(updated);
      if (current && value.equals(current.value)) {
        if (!fresh) {
          await readFresh();
          continue;
        }
        // Nothing changed: upstream skips the write and keeps the resourceVersion.
        return decodeValue(key, current.value, current.mod_revision);
      }
      if (opts.dryRun) return { ...updated, metadata: { ...updated.metadata, resourceVersion: existing?.metadata.resourceVersion ?? '' } };
      const compare = current
        ? { key: k, target: 'Mod' as const, result: 'Equal' as const, mod_revision: current.mod_revision }
        : { key: k, target: 'Create' as const, result: 'Equal' as const, create_revision: 0 };
      const lease = await this.leaseFor(opts.ttlSeconds);
      const res = await this.sendWrite(key, value, updated, 'update', {
        compare: [compare],
        success: [{ request_put: { key: k, value, ...lease } }],
        failure: [{ request_range: { key: k } }],
      });
      if (res.succeeded) {
        const rev = res.responses[0]?.response_put.header.revision ?? res.header.revision;
        return this.written(key, rev, value, updated);
      }
      current = res.responses[0]?.response_range.kvs[0];
      fresh = true;
    }
    throw new StorageError('ResourceVersionConflicts', key, 'too many concurrent updates; try again');
  }

  async delete(
    key: string,
    opts: { preconditions?: Preconditions; validateDeletion?: ValidateDeletion; dryRun?: boolean } = {},
  ): Promise<KubeObject> {
    const k = Buffer.from(key);
    let current = (await this.range({ key: k }, key)).kvs[0];
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      if (!current) throw new StorageError('KeyNotFound', key, `key ${key} not found`);
      const existing = decodeValue(key, current.value, current.mod_revision);
      checkPreconditions(key, existing, opts.preconditions);
      if (opts.validateDeletion) await opts.validateDeletion(existing);
      if (opts.dryRun) return existing;
      const res = await this.write(key, 'delete', () =>
        this.kv.txn({
          compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: current!.mod_revision }],
          success: [{ request_delete_range: { key: k } }],
          failure: [{ request_range: { key: k } }],
        }),
      );
      if (res.succeeded) return existing;
      current = res.responses[0]?.response_range.kvs[0];
    }
    throw new StorageError('ResourceVersionConflicts', key, 'too many concurrent updates; try again');
  }

  /**
   * Deletes `key` in one transaction when its mod revision is still `modRevision` (the state the
   * caller read, e.g. in a list); see Store.deleteIfUnchanged. Otherwise writes nothing and tells
   * from the same transaction whether the key changed or is gone.
   */
  async deleteIfUnchanged(key: string, modRevision: number): Promise<GuardedDeleteOutcome> {
    const k = Buffer.from(key);
    const res = await this.write(key, 'delete', () =>
      this.kv.txn({
        compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: modRevision }],
        success: [{ request_delete_range: { key: k } }],
        failure: [{ request_range: { key: k, count_only: true } }],
      }),
    );
    if (res.succeeded) return 'deleted';
    return Number(res.responses[0]?.response_range.count ?? 0) > 0 ? 'changed' : 'missing';
  }

  /**
   * An uncached watch straight on etcd (one etcd watch per call); see Store.watch. Throws
   * Compacted for a start revision etcd no longer has, TooLargeResourceVersion for one it does not
   * have yet (after waiting up to 3 s), InvalidError for a malformed one.
   */
  async watch(prefix: string, opts: WatchOptions): Promise<WatchStream> {
    const rv = parseRevision(opts.resourceVersion);
    return directWatch(this, prefix, rv, opts, {
      ...(this.opts.initialEventsEndAnnotation ? { initialEventsEndAnnotation: this.opts.initialEventsEndAnnotation } : {}),
    });
  }

  /** Every key under `prefix` (or the one exact key) with its object, at `revision` (default: current, linearizable). */
  async listEntries(prefix: string, revision?: number): Promise<{ entries: [string, KubeObject][]; revision: number }> {
    const k = Buffer.from(prefix);
    const res = await this.range(
      { key: k, ...(prefix.endsWith('/') ? { range_end: prefixEnd(k) } : {}), ...(revision ? { revision } : {}) },
      prefix,
    );
    const entries: [string, KubeObject][] = res.kvs.map((kv) => {
      const key = kv.key.toString('utf8');
      // Mostly a watch cache's (re)list: objects it will hold.
      return [key, decodeHeldValue(key, kv.value, kv.mod_revision)];
    });
    return { entries, revision: revision || Number(res.header.revision) };
  }

  /** See StoreRevisions.check: Compacted, or TooLargeResourceVersion after waiting up to 3 s. */
  checkRevision(prefix: string, revision: number): Promise<void> {
    return this.revisions.check(prefix, revision);
  }

  /** See StoreRevisions.assertAvailable: Compacted (with a continue token) once `revision` is compacted. */
  assertRevisionAvailable(prefix: string, revision: number, startRelative: string): Promise<void> {
    return this.revisions.assertAvailable(prefix, revision, startRelative);
  }

  /** See StoreRevisions.progressRequestsSafe. */
  progressRequestsSafe(): Promise<boolean> {
    return this.revisions.progressRequestsSafe();
  }

  /** Opens one raw etcd watch (counted in {@link etcdWatchCount} until closed). */
  openRawWatch(
    keyOrPrefix: string,
    fromRevision: number,
    handlers: RawWatchHandlers,
    options: Pick<RawWatchOptions, 'prevKv'> = {},
  ): { close(): Promise<void>; requestProgress(): boolean } {
    return this.watches.open(keyOrPrefix, fromRevision, handlers, options);
  }

  /**
   * The cacher's feed: one etcd watch on `prefix` from `fromRevision`, decoded into changes.
   * Without prev_kv: the cache has every key's last state, so a delete needs only its key.
   */
  watchChanges(prefix: string, fromRevision: number, sink: ChangeSink): { close(): Promise<void>; requestProgress(): boolean } {
    return this.openRawWatch(prefix, fromRevision, changeFeedHandlers(prefix, sink, this.opts), { prevKv: false });
  }

  /** See StoreRevisions.countChangesSince: a watch cache's proof that its state of `prefix` is current. */
  countChangesSince(prefix: string, afterRevision: number): Promise<{ revision: number; count: number; changedSince: number }> {
    return this.revisions.countChangesSince(prefix, afterRevision);
  }

  /** See StoreRevisions.current: a linearizable read of etcd's revision, shared by concurrent callers. */
  currentRevision(): Promise<number> {
    return this.revisions.current();
  }

  /** How many etcd requests {@link currentRevision} sent (callers that shared one count once). */
  get revisionReadsSent(): number {
    return this.revisions.readsSent;
  }

  async ping(): Promise<void> {
    await this.currentRevision();
  }

  async close(): Promise<void> {
    this.kv.close?.();
    this.opts.watch?.close?.();
    this.client.close();
  }

  private range(req: IRangeRequest, key = ''): Promise<IRangeResponse> {
    const operation = req.count_only ? 'count' : req.range_end ? 'list' : 'get';
    return this.call(key, () => this.kv.range(req), operation);
  }

  /** A write transaction: sent with the writes in flight when there are any (see WriteCoalescer). */
  private write<T>(key: string, operation: EtcdOperation, fn: () => Promise<T>): Promise<T> {
    return this.call(key, () => this.writes.run(fn), operation);
  }

  /**
   * Runs an etcd call, observed (duration) and with its errors translated. Not an async function:
   * one promise per call rather than the async function's own and the turns of its await.
   */
  private call<T>(key: string, fn: () => Promise<T>, operation: EtcdOperation): Promise<T> {
    const observe = this.opts.observeRequest;
    const start = observe ? performance.now() : 0;
    let sent: Promise<T>;
    try {
      sent = fn();
    } catch (e) {
      observe?.(operation, key, (performance.now() - start) / 1000);
      return Promise.reject(translateEtcdError(e, key));
    }
    return sent.then(
      (value) => {
        observe?.(operation, key, (performance.now() - start) / 1000);
        return value;
      },
      (e: unknown) => {
        observe?.(operation, key, (performance.now() - start) / 1000);
        throw translateEtcdError(e, key);
      },
    );
  }
}

/** The lease field of a put without a TTL. */
const NO_LEASE: { lease?: string } = Object.freeze({});

/** Options of {@link Etcd3Store}. */
export interface Etcd3StoreOptions {
  /** The client of etcd's KV service for ranges and transactions (default: the etcd3 client's); closed with the store. */
  kv?: KvClient;
  /**
   * Shared by a process's writing store (which records its writes) and its watch cache's source
   * (whose events of those writes reuse the written objects instead of parsing their bytes).
   */
  recentWrites?: RecentWrites;
  /** Where the store's raw etcd watches are opened (default: the etcd3 client's Watch service; see EtcdWatchClient). */
  watch?: WatchStreamSource;
  /** Reconnect backoff of watch streams. */
  rawWatch?: RawWatchOptions;
  /** Annotation of the bookmark that ends the initial events of a sendInitialEvents watch (default `k8s.io/initial-events-end`). */
  initialEventsEndAnnotation?: string;
  /** Receives diagnostics of watch streams. */
  log?: (message: string) => void;
  /** Longest a write waits to be sent with the writes in flight, in ms (default 2; 0 sends each at once). */
  writeHoldMs?: number;
  /** Told of every etcd request this store makes: what it was, for which key, how long it took. */
  observeRequest?: (operation: EtcdOperation, key: string, seconds: number) => void;
}

/** What an etcd request of the store did (the `operation` label of upstream's etcd metrics). */
export type EtcdOperation = 'get' | 'list' | 'count' | 'create' | 'update' | 'delete';

/** A shallow copy of `obj` whose metadata.resourceVersion is `rev`. */
function withResourceVersion(obj: KubeObject, rev: string): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: rev } };
}
