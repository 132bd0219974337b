import type { KubeObject } from '@cluster/apimachinery';
import type { Held } from './cacher/held.js';

/** Preconditions a write must meet, from DeleteOptions or an update body. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/**
 * Decides per object whether it belongs to a list or watch result (label/field selectors).
 * `selectorKey`, when set, names the selection canonically: watchers whose predicates share a key
 * select the same objects, so a watch cache evaluates it once per change for all of them.
 */
export type Predicate = ((obj: KubeObject) => boolean) & { selectorKey?: string; attrs?: SelectionAttrs };

/**
 * The same selection as its predicate, on what it reads of an object (upstream's AttrFunc and
 * SelectionPredicate.MatchesObjectAttributes): a cache can keep those values per entry and select
 * without the object. Set only when `predicate(obj)` equals `matches(labels of obj, fieldsOf(obj))`.
 */
export interface SelectionAttrs {
  /** Matches the object's metadata.labels ({} when it has none); absent when every label set matches. */
  labels?: (labels: Readonly<Record<string, string>>) => boolean;
  /** Matches the object's selectable fields; absent when the selection has no field requirement. */
  fields?: (fields: Readonly<Record<string, string>>) => boolean;
  /**
   * The object's selectable fields: one function per resource version, whatever the selection, so
   * a cache keeps one field set per function (its identity) and not per request.
   */
  fieldsOf: (obj: KubeObject) => Record<string, string>;
}

export type ResourceVersionMatch = '' | 'Exact' | 'NotOlderThan';

export interface GetOptions {
  /** '' = most recent (quorum); other values: not older than. */
  resourceVersion?: string;
}

export interface ListOptions {
  /** '' = most recent; an exact revision when paging or resourceVersionMatch=Exact. */
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  limit?: number;
  continueToken?: string;
  predicate?: Predicate;
  /** True when a selector narrowed the list (then remainingItemCount is not reported). */
  hasSelector?: boolean;
  /**
   * Without a predicate, return the items as stored (`rawItems`) instead of objects, so a JSON
   * response can be written without parsing and re-serializing each one.
   * Stores may ignore it and return `items`.
   */
  raw?: boolean;
}

/** An item of a list as etcd returned it: the stored bytes (no resourceVersion) and its revision. */
export interface EtcdRawItem {
  key: Buffer;
  value: Buffer;
  modRevision: string;
}

/** A raw list item: as etcd returned it, or a watch cache's handle to its JSON in a shared store. */
export type RawItem = EtcdRawItem | Held;

export interface ListResult {
  items: KubeObject[];
  /** With ListOptions.raw: each item as stored, in order, instead of `items` (see rawItemJson). */
  rawItems?: RawItem[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
  /**
   * True when `items` are the watch cache's own objects: shared with other readers, so never to
   * be modified, and the same object for as long as its stored state is unchanged. Work derived
   * from an item alone (its encoding) may be kept by its identity.
   */
  sharedItems?: boolean;
}

/**
 * Called with the current object (undefined when absent and ignoreNotFound) and returns the new
 * object to store, or throws to abort. It may be called more than once when writes race.
 */
export type UpdateFunc = (current: KubeObject | undefined) => Promise<KubeObject> | KubeObject;

export interface GuaranteedUpdateOptions {
  ignoreNotFound: boolean;
  preconditions?: Preconditions;
  /** When true, run the update but do not persist (dry run). */
  dryRun?: boolean;
  /** The written key expires after about this long (each update starts the time again), as events do. */
  ttlSeconds?: number;
  /**
   * A recent state of the object (with its resourceVersion), e.g. from the watch cache, to try the
   * update on before reading etcd; the write only succeeds if it is still current. Never modified.
   */
  suggestion?: KubeObject;
}

/** Deletion check run against the current object before it is removed (e.g. finalizers). */
export type ValidateDeletion = (current: KubeObject) => Promise<void> | void;

/**
 * The storage contract, after upstream's storage.Interface. Objects go in and out with
 * `metadata.resourceVersion` set to the etcd modification revision; stored bytes do not carry it.
 */
export interface Store {
  /**
   * Creates `key`; throws StorageError KeyExists when it is present. Returns the stored object.
   * With `ttlSeconds` the key is removed by etcd after about that long (events).
   */
  create(key: string, obj: KubeObject, opts?: { dryRun?: boolean; ttlSeconds?: number }): Promise<KubeObject>;
  /** Reads `key`; throws StorageError KeyNotFound. */
  get(key: string, opts?: GetOptions): Promise<KubeObject>;
  /** Lists keys under `prefix` (which ends with '/'), filtered by the predicate, paged by limit/continue. */
  getList(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /**
   * What `get(key, { resourceVersion: '0' })` answers when a watch cache serves it, without a
   * promise: the cached object, null when the cache holds no such key, undefined when no ready
   * cache can answer (then call `get`). Optional: stores without a cache have none.
   */
  cachedGet?(key: string): KubeObject | null | undefined;
  /**
   * The items `getList(prefix, { resourceVersion: '0' })` answers when a watch cache serves it,
   * without a promise (shared objects, not to be changed); undefined when no ready cache can
   * answer (then call `getList`). Optional, as {@link cachedGet}.
   */
  cachedList?(prefix: string): KubeObject[] | undefined;
  /**
   * Read-modify-write under a compare on mod_revision, retried while writers race.
   * Throws KeyNotFound (unless ignoreNotFound), ResourceVersionConflicts on failed preconditions.
   */
  guaranteedUpdate(key: string, tryUpdate: UpdateFunc, opts: GuaranteedUpdateOptions): Promise<KubeObject>;
  /**
   * Deletes `key` if preconditions hold, compared against the revision that was checked.
   * Returns the last stored state. Throws KeyNotFound, ResourceVersionConflicts.
   */
  delete(
    key: string,
    opts?: { preconditions?: Preconditions; validateDeletion?: ValidateDeletion; dryRun?: boolean },
  ): Promise<KubeObject>;
  /**
   * Deletes `key` in a single write when its mod revision still equals `modRevision`: 'deleted';
   * otherwise nothing is written and the answer says whether the key changed ('changed') or is
   * gone ('missing') since. Lets a caller that already holds the state it decided on (a listed
   * object) skip the read. Optional: callers fall back to `delete`.
   */
  deleteIfUnchanged?(key: string, modRevision: number): Promise<GuardedDeleteOutcome>;
  /**
   * Watches keys under `prefix` (SPEC 4.4 watch semantics, SPEC 6 events). The iterator ends when
   * the signal aborts or the watch can no longer be served (then its last event is an ERROR with a
   * Status, e.g. 410 Gone when the start revision is older than the retained history). Throws
   * StorageError Compacted (410) or TooLargeResourceVersion (504) before the first event when the
   * start revision cannot be served at all.
   */
  watch(prefix: string, opts: WatchOptions): Promise<WatchStream>;
  /** The newest revision this store has seen in etcd (a linearizable read). */
  currentRevision(): Promise<number>;
  /** Liveness of the backing store, for /readyz and /livez. Throws when unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What a guarded delete did (see Store.deleteIfUnchanged). */
export type GuardedDeleteOutcome = 'deleted' | 'changed' | 'missing';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * One change as a watcher sees it. Events come from a shared cache and the same event object is
 * handed to every watcher: treat it as immutable. Its identity lets the HTTP layer serialize an
 * event once per media type and share the bytes among all watchers (DESIGN "Watch cache").
 */
export interface WatchEvent {
  type: WatchEventType;
  /** The object (for DELETED: its last state, with the deletion revision as resourceVersion). For ERROR: a Status. */
  object: KubeObject;
  /** etcd revision of the change (for BOOKMARK: the revision everything before was sent up to). */
  revision: number;
}

/**
 * The events of one watch: an async iterator, or in push mode (what the HTTP layer uses) a
 * listener told whenever events are ready, drained with `takeReady` until `finished`. Push mode
 * saves one promise per event per watcher, which matters when thousands share each event.
 */
export interface WatchStream extends AsyncIterable<WatchEvent> {
  /** Events already waiting, taken without waiting (at most `max`); empty when nothing waits. */
  takeReady(max: number): WatchEvent[];
  /**
   * The next event already waiting, or undefined when none waits: `takeReady(1)` without the
   * array, for a writer that sends one event to each of thousands of streams.
   */
  takeNext(): WatchEvent | undefined;
  /**
   * Push mode: `listener` is called whenever events become ready or the stream ends (possibly
   * more than once per event; it must be cheap and idempotent).
   */
  onReady(listener: () => void): void;
  /** True once the stream has ended and every event was taken. */
  readonly finished: boolean;
  /**
   * True while initial events (the synthetic ADDED events of the start state, and a replay of
   * history) remain to be taken; absent when the stream cannot tell (treated as none).
   */
  readonly initialEventsPending?: boolean;
}

export interface WatchOptions {
  /**
   * '' = start at most recent, beginning with synthetic ADDED events for the current state;
   * '0' = the same from any (cached) state; 'N' = only changes after revision N (SPEC 4.4 watch).
   */
  resourceVersion?: string;
  /** When true, send the synthetic ADDED events even for a non-zero resourceVersion (sendInitialEvents). */
  sendInitialEvents?: boolean;
  predicate?: Predicate;
  allowBookmarks?: boolean;
  /** Ends the watch (client gone, timeoutSeconds elapsed). */
  signal: AbortSignal;
}
