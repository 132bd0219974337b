import type { KubeObject } from '@cluster/apimachinery';
import { StorageError } from '../errors.js';
import type { Predicate, WatchEvent } from '../interfaces.js';
import { AddedHeld, addedHeldOf, HeldAddedEvent, HeldEvent, heldEvent, prevEntryOf, withResourceVersion, type CacheEvent } from './cache-event.js';
import { SharedValues } from './shared-values.js';
import { Held, objectOf, ownedHeld, sharedStore, type CacheEntry, type HeldStore, type MakeHeld } from './held.js';
import { entryPasses } from './selection-attrs.js';

/** Default history a watch cache keeps (SPEC 8: five minutes). */
export const DEFAULT_WINDOW_MS = 5 * 60_000;
/** Default bound on the number of events in the window, whatever their age. */
export const DEFAULT_MAX_WINDOW_EVENTS = 100_000;

/** A change read from etcd, decoded. */
export interface StoreChange {
  type: 'put' | 'delete';
  key: string;
  revision: number;
  /** For a put the new object; for a delete the last state when the feed has it (the cache's own copy comes first). */
  object?: KubeObject;
  /**
   * For a put without `object`: decodes the stored value (throws StorageError InvalidObj for one
   * that is not an object's JSON). A cache with a shared store calls it only when no other worker
   * stored that version yet.
   */
  decode?: () => KubeObject;
}

/** Options of a {@link WatchCache}. */
export interface WatchCacheOptions {
  /** How long events stay in the window; default {@link DEFAULT_WINDOW_MS}. */
  windowMs?: number;
  /** Most events kept; the oldest revisions go first. Default {@link DEFAULT_MAX_WINDOW_EVENTS}. */
  maxEvents?: number;
  /** Clock, for tests. */
  now?: () => number;
  /**
   * Where the cache keeps the JSON of its versions instead of decoded objects (see Held): the
   * thread's store when unset (useSharedStore), none when null.
   */
  sharedStore?: HeldStore | null;
}

/**
 * The in-memory state of one resource plus a window of recent changes (after upstream's
 * watchCache). Pure: it is fed by the cacher and does no I/O. Invariant: every change with a
 * revision above {@link windowStart} and up to {@link revision} is in the window.
 */
export class WatchCache {
  /**
   * The current object of every key. Objects are held directly, not in a wrapper per key: with
   * 100,000 objects a two-field wrapper is ~3.4 MB, for a memo most objects never use (see added).
   */
  private state = new Map<string, CacheEntry>();
  /** The synthetic ADDED event of a current entry, shared by every watcher that starts on it. */
  private added = new WeakMap<CacheEntry, WatchEvent>();
  /**
   * With a store, the state and the window hold handles to the versions' JSON there (see Held).
   * The cache owns the handles it makes (they have no finalization cell while it keeps them) and
   * disowns each once: a current version's when it leaves the state, a DELETED event's object's
   * when its event leaves the window, all of them when the state and window are replaced or the
   * cache is collected (see {@link roots}).
   */
  private readonly store: HeldStore | undefined;
  /**
   * The state and the window as last set, for the finalizer that disowns their handles when the
   * cache itself is collected (it must not reach the cache). Only with a store.
   */
  private readonly roots: Roots | undefined;
  /**
   * One instance of each value repeated across objects (namespace, creation second, managedFields,
   * labels...): every decoded object has its own copy of them otherwise.
   */
  private readonly shared = new SharedValues();
  /** Event times are kept relative to this, so they stay small integers (no 16-byte heap number each). */
  private readonly epoch: number;
  /**
   * Keys of {@link state} in order, maintained lazily: keys added since the last ordered read wait
   * in {@link pending} and deletions only set {@link stale}. A list then merges (O(n + p log p))
   * instead of sorting the whole state per call, and writes never pay for the order.
   */
  private sorted: string[] = [];
  private pending: string[] = [];
  private stale = false;
  /** Events from `head` on; slots before it are cleared. */
  private window: (CacheEvent | undefined)[] = [];
  private head = 0;
  private rev = 0;
  private start = 0;
  private listed = 0;
  /** The last {@link snapshot}, reused while the cache has not changed. */
  private lastSnapshot: { prefix: string; version: number; keys: string[]; objects: CacheEntry[] } | undefined;
  /** Counts changes of the state (applied changes and relists). */
  private version = 0;
  private readonly windowMs: number;
  private readonly maxEvents: number;
  private readonly now: () => number;

  constructor(opts: WatchCacheOptions = {}) {
    this.windowMs = opts.windowMs ?? DEFAULT_WINDOW_MS;
    this.maxEvents = Math.max(1, opts.maxEvents ?? DEFAULT_MAX_WINDOW_EVENTS);
    this.now = opts.now ?? Date.now;
    this.epoch = this.now();
    this.store = opts.sharedStore === undefined ? sharedStore() : opts.sharedStore ?? undefined;
    if (this.store) {
      this.roots = { state: this.state, window: this.window };
      collectedCaches.register(this, this.roots);
    }
  }

  /** Whether versions are kept in a shared store. */
  get holdsShared(): boolean {
    return this.store !== undefined;
  }

  /**
   * What the cache keeps of a put: the stored version when another worker stored it, else the
   * decoded object. The handle of a key the state does not have is also the change's ADDED event
   * (at `time`).
   */
  private takePut(change: StoreChange, added: boolean, time: number): CacheEntry | undefined {
    const store = this.store;
    if (!store) {
      const object = change.object ?? change.decode?.();
      return object && this.shared.share(object);
    }
    const make: MakeHeld = added ? (s, at) => new (addedHeldOf(s))(at, change.key, time) : ownedHeld;
    const found = store.find(change.key, change.revision, make);
    if (found) return found;
    const object = change.object ?? change.decode?.();
    return object && (store.put(change.key, change.revision, object, make) ?? this.shared.share(object));
  }

  /** What the cache keeps of `object`, the version of `key` at `revision`. */
  private take(key: string, revision: number, object: KubeObject): CacheEntry {
    return this.store?.hold(key, revision, object, ownedHeld) ?? this.shared.share(object);
  }

  /** The revision the cache is complete up to. */
  get revision(): number {
    return this.rev;
  }

  /** Watches from any revision at or above this can be replayed from the window. */
  get windowStart(): number {
    return this.start;
  }

  /** Number of objects in the current state. */
  get size(): number {
    return this.state.size;
  }

  /** Number of events in the window. */
  get windowLength(): number {
    return this.window.length - this.head;
  }

  /** Replaces the state with a list read at `revision` and forgets the window. */
  reset(entries: Iterable<readonly [string, KubeObject]>, revision: number): void {
    if (this.roots) disownAll(this.roots);
    this.state = new Map();
    this.version++;
    this.added = new WeakMap();
    this.shared.clear();
    for (const [key, object] of entries) {
      const entry = this.take(key, Number(object.metadata.resourceVersion ?? revision), object);
      // A key listed twice: the first handle is no longer the cache's.
      disown(this.state.get(key));
      this.state.set(key, entry);
    }
    this.sorted = [...this.state.keys()].sort(compareKeys);
    this.pending = [];
    this.stale = false;
    this.window = [];
    if (this.roots) {
      this.roots.state = this.state;
      this.roots.window = this.window;
    }
    this.head = 0;
    this.rev = revision;
    this.start = revision;
    this.listed = revision;
  }

  /** The revision of the last full list: the cache never saw events at or before it. */
  get listedRevision(): number {
    return this.listed;
  }

  /** Applies one change; returns the window event it became (undefined when nothing is known of it). */
  apply(change: StoreChange): CacheEvent | undefined {
    const prev = this.state.get(change.key);
    const time = this.now() - this.epoch;
    // Decoded before any change: a value that cannot be decoded changes nothing here (the caller then applies a delete).
    const put = change.type === 'put' ? this.takePut(change, prev === undefined, time) : undefined;
    if (change.revision > this.rev) this.rev = change.revision;
    this.version++;
    // The last snapshot is stale now; it must not keep replaced objects alive either.
    this.lastSnapshot = undefined;
    let ev: CacheEvent;
    if (change.type === 'put') {
      if (!put) return undefined;
      const object = put;
      this.state.set(change.key, object);
      if (!prev) this.pending.push(change.key);
      // Still in the window as this event's previous state, if it is a handle (collected after).
      disown(prev);
      if (object instanceof AddedHeld) {
        ev = object;
      } else if (object instanceof Held || prev instanceof Held) {
        ev = heldEvent(prev ? 'MODIFIED' : 'ADDED', change.key, change.revision, object, prev, time);
      } else {
        ev = prev
          ? { type: 'MODIFIED', key: change.key, revision: change.revision, object, prevObject: prev, time }
          : { type: 'ADDED', key: change.key, revision: change.revision, object, time };
      }
    } else {
      const last = prev ?? change.object;
      if (!last) return undefined;
      if (this.state.delete(change.key)) {
        this.stale = true;
        disown(prev);
      }
      if (last instanceof Held) {
        // The new handle is this event's: disowned when the event leaves the window.
        ev = heldEvent('DELETED', change.key, change.revision, last.atRevision(change.revision, true), last, time);
      } else {
        const object = withResourceVersion(last, change.revision);
        ev = { type: 'DELETED', key: change.key, revision: change.revision, object, prevObject: last, time };
      }
    }
    this.window.push(ev);
    this.evict();
    return ev;
  }

  /** Records that etcd reported every change up to `revision` (progress notification). */
  advance(revision: number): boolean {
    if (revision <= this.rev) return false;
    this.rev = revision;
    return true;
  }

  /** Drops events older than the window duration or beyond the count bound, a whole revision at a time. */
  evict(): void {
    const cutoff = this.now() - this.epoch - this.windowMs;
    for (;;) {
      const first = this.window[this.head];
      if (!first) break;
      if (this.windowLength <= this.maxEvents && first.time >= cutoff) break;
      const r = first.revision;
      // Evicted slots are cleared at once: the array is only compacted now and then, and an
      // evicted event must not keep its objects alive until then (tens of MiB after a burst).
      for (let ev = this.window[this.head]; ev?.revision === r; ev = this.window[this.head]) {
        disownEventObject(ev);
        this.window[this.head++] = undefined;
      }
      this.start = Math.max(this.start, r);
    }
    if (this.head > 1024 && this.head * 2 > this.window.length) {
      this.window = this.window.slice(this.head);
      if (this.roots) this.roots.window = this.window;
      this.head = 0;
    }
  }

  /**
   * The window's events with a revision above `after`, in order. Throws StorageError Compacted
   * when some of them were already evicted (upstream: "too old resource version").
   */
  eventsAfter(after: number, key = ''): CacheEvent[] {
    if (after < this.start) {
      throw new StorageError('Compacted', key, `too old resource version: ${after} (${this.start})`);
    }
    let lo = this.head;
    let hi = this.window.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.window[mid]!.revision > after) hi = mid;
      else lo = mid + 1;
    }
    // lo >= head: no cleared slot is in the slice.
    return this.window.slice(lo) as CacheEvent[];
  }

  /** The current object at `key`. */
  get(key: string): KubeObject | undefined {
    const entry = this.state.get(key);
    return entry === undefined ? undefined : objectOf(entry);
  }

  /** The current entries under `prefix` (or the one exact key), sorted by key: objects or handles, nothing decoded. */
  entries(prefix: string): CacheEntry[] {
    const keys = this.keysUnder(prefix);
    const out = new Array<CacheEntry>(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = this.state.get(keys[i]!)!;
    return out;
  }

  /** Current objects under `prefix` (or the one exact key) that pass `predicate`, sorted by key. */
  list(prefix: string, predicate?: Predicate): KubeObject[] {
    return this.select(prefix, predicate);
  }

  /** Synthetic ADDED events for the current objects under `prefix` passing `predicate`, by key. */
  addedEvents(prefix: string, predicate?: Predicate): WatchEvent[] {
    return this.selectEntries(prefix, predicate).map((entry) => {
      let ev = this.added.get(entry);
      if (!ev) {
        ev =
          entry instanceof Held
            ? new HeldAddedEvent(entry, entry.store.shared.revisionOf(entry.at))
            : { type: 'ADDED', object: entry, revision: Number(entry.metadata.resourceVersion ?? 0) };
        this.added.set(entry, ev);
      }
      return ev;
    });
  }

  /** Number of current keys under `prefix` (or 0/1 for one exact key). */
  count(prefix: string): number {
    if (!prefix.endsWith('/')) return this.state.has(prefix) ? 1 : 0;
    const { from, to } = this.rangeUnder(prefix);
    return to - from;
  }

  /**
   * The current state under `prefix` (every key, no predicate) as parallel arrays sorted by key: a
   * copy of references only, which stays the state at {@link revision} whatever happens later.
   */
  snapshot(prefix: string): { keys: string[]; objects: CacheEntry[] } {
    const last = this.lastSnapshot;
    // Nothing changed since the last one: the same arrays, which no one modifies, instead of
    // 10,000 lookups per first page. (Counted, not by revision: the changes of one etcd
    // transaction share a revision.)
    if (last && last.prefix === prefix && last.version === this.version) return last;
    const keys = this.keysUnder(prefix);
    const objects = new Array<CacheEntry>(keys.length);
    for (let i = 0; i < keys.length; i++) objects[i] = this.state.get(keys[i]!)!;
    this.lastSnapshot = { prefix, version: this.version, keys, objects };
    return this.lastSnapshot;
  }

  /**
   * The state under `prefix` (ending in '/') at `revision`, from the current one with the window's
   * later changes under it undone, or undefined when the window does not reach back to it (or it
   * is ahead of the cache). Copies references only; for a continue token this cache did not
   * hand out (another worker's first page).
   */
  stateAt(prefix: string, revision: number): { keys: string[]; objects: CacheEntry[] } | undefined {
    if (revision > this.rev || revision < this.start || !prefix.endsWith('/')) return undefined;
    const current = this.snapshot(prefix);
    const later = this.eventsAfter(revision).filter((ev) => ev.key.startsWith(prefix));
    if (later.length === 0) return current;
    const keys = current.keys.slice();
    const objects = current.objects.slice();
    // Newest first, so each key ends at its state before the oldest of its later changes.
    for (let i = later.length - 1; i >= 0; i--) {
      const ev = later[i]!;
      const at = lowerBound(keys, ev.key);
      const present = keys[at] === ev.key;
      if (ev.type === 'ADDED') {
        if (present) {
          keys.splice(at, 1);
          objects.splice(at, 1);
        }
      } else if (present) {
        objects[at] = prevEntryOf(ev)!;
      } else {
        keys.splice(at, 0, ev.key);
        objects.splice(at, 0, prevEntryOf(ev)!);
      }
    }
    return { keys, objects };
  }

  private select(prefix: string, predicate?: Predicate): KubeObject[] {
    if (!predicate) return this.entries(prefix).map(objectOf);
    return this.selectEntries(prefix, predicate).map(objectOf);
  }

  /** The current entries under `prefix` (or the one exact key) passing `predicate`, by key; only those are decoded. */
  selectEntries(prefix: string, predicate?: Predicate): CacheEntry[] {
    if (!predicate) return this.entries(prefix);
    const out: CacheEntry[] = [];
    for (const key of this.keysUnder(prefix)) {
      const entry = this.state.get(key)!;
      if (entryPasses(entry, predicate)) out.push(entry);
    }
    return out;
  }

  /** The current keys under `prefix` (or the one exact key), in order. */
  private keysUnder(prefix: string): string[] {
    if (!prefix.endsWith('/')) return this.state.has(prefix) ? [prefix] : [];
    const { keys, from, to } = this.rangeUnder(prefix);
    return keys.slice(from, to);
  }

  /** Where the keys under `prefix` (ending in '/') are in the ordered keys: [from, to). */
  private rangeUnder(prefix: string): { keys: string[]; from: number; to: number } {
    const keys = this.orderedKeys();
    const from = lowerBound(keys, prefix);
    return { keys, from, to: lowerBound(keys, prefixLimit(prefix), from) };
  }

  /** Every current key, in order: merges the keys added since the last call and drops deleted ones. */
  private orderedKeys(): string[] {
    if (this.pending.length === 0 && !this.stale) return this.sorted;
    const added = this.pending.sort(compareKeys);
    const old = this.sorted;
    const out: string[] = [];
    let i = 0;
    let j = 0;
    let last: string | undefined;
    while (i < old.length || j < added.length) {
      const k = j >= added.length || (i < old.length && old[i]! <= added[j]!) ? old[i++]! : added[j++]!;
      // A key deleted and created again is in both lists (and may be pending twice).
      if (k === last || !this.state.has(k)) continue;
      out.push(k);
      last = k;
    }
    this.sorted = out;
    this.pending = [];
    this.stale = false;
    return out;
  }
}

/** What a watch cache with a store owns handles through (see WatchCache.roots). */
interface Roots {
  state: Map<string, CacheEntry>;
  window: (CacheEvent | undefined)[];
}

/** Disowns the handles of a collected cache (nothing else will). */
const collectedCaches = new FinalizationRegistry<Roots>(disownAll);

/** Hands `entry` over to collection when it is a handle the cache owned (see HeldStore.disown). */
function disown(entry: CacheEntry | undefined): void {
  if (entry instanceof Held) entry.store.disown(entry);
}

/** Disowns the handle a DELETED window event made for its object (the only handle an event owns). */
function disownEventObject(ev: CacheEvent): void {
  if (ev.type === 'DELETED' && ev instanceof HeldEvent) disown(ev.entry);
}

/** Disowns every handle the state and window of `roots` own (they are being dropped). */
function disownAll(roots: Roots): void {
  for (const entry of roots.state.values()) disown(entry);
  for (const ev of roots.window) if (ev !== undefined) disownEventObject(ev);
}

/** Every key under `prefix` sorts before the prefix with its last character incremented. */
function prefixLimit(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first index at or after `from` whose key is >= `key`. */
export function lowerBound(keys: readonly string[], key: string, from = 0): number {
  let lo = from;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
