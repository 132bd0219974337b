import type { KubeObject } from '@cluster/apimachinery';
import type { ListResult, Predicate } from '../interfaces.js';
import { Held, objectOf, type CacheEntry } from './held.js';
import { encodeContinue } from '../etcd3/continue-token.js';
import { lowerBound } from './watch-cache.js';
import { entryPasses } from './selection-attrs.js';

/**
 * The state of one list prefix at one revision, as parallel arrays sorted by key. It holds
 * references to the cache's (immutable) objects, so it costs two arrays, not copies of objects.
 */
export interface ListSnapshot {
  /** The listed prefix (ends with '/'). */
  prefix: string;
  /** The etcd revision the state is exactly at. */
  revision: number;
  keys: string[];
  /** The objects, or handles to them in a shared store (see Held). */
  objects: CacheEntry[];
  /** When (performance.now()) etcd last confirmed it still has {@link revision} (not compacted). */
  availableCheckedAt?: number;
}

/** What a page of a snapshot is cut by; the same knobs as an etcd list. */
export interface PageOptions {
  /** Absolute key to start at (inclusive); the start of the prefix when unset. */
  startKey?: string;
  /** At most this many items (0 or unset: all). */
  limit?: number;
  predicate?: Predicate;
  /** A selector narrowed the list: no remainingItemCount (SPEC 2.2, as upstream). */
  hasSelector?: boolean;
  /** Answer held versions as `rawItems` (their stored JSON) rather than decoded (see ListOptions.raw). */
  raw?: boolean;
}

/**
 * One page of `snap`, with the same results an etcd range at `snap.revision` gives
 * (Etcd3Store.getList): up to `limit` items passing the predicate; when keys remain after the last
 * one looked at, a continue token {revision, next key} in the etcd format (so either source can
 * serve the next page) and, without a selector, remainingItemCount.
 */
export function pageOfSnapshot(snap: ListSnapshot, opts: PageOptions = {}): ListResult {
  const { keys, objects } = snap;
  const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
  const predicate = opts.predicate;
  let i = opts.startKey === undefined ? 0 : lowerBound(keys, opts.startKey);
  const entries: CacheEntry[] = [];
  for (; i < keys.length; i++) {
    const entry = objects[i]!;
    if (predicate && !entryPasses(entry, predicate)) continue;
    entries.push(entry);
    if (limit > 0 && entries.length >= limit) {
      i++;
      break;
    }
  }
  const result: ListResult = listOfEntries(entries, opts.raw === true, String(snap.revision));
  const items = entries;
  if (limit > 0 && items.length >= limit && i < keys.length) {
    // i is one past the last key looked at: the next page starts just after that key.
    const last = keys[i - 1]!;
    result.continueToken = encodeContinue(snap.revision, `${last.slice(snap.prefix.length)}\u0000`);
    if (!opts.hasSelector) result.remainingItemCount = keys.length - i;
  }
  return result;
}

/**
 * Snapshots of recent revisions that served a first page, so the pages after it come from memory
 * (upstream's ListFromCacheSnapshot). Bounded in number and dropped after `ttlMs` without use: a
 * client following continue tokens asks again within moments; a late one goes to etcd.
 */
export class SnapshotStore {
  private readonly byKey = new Map<string, { snap: ListSnapshot; expires: number }>();

  constructor(
    private readonly maxSnapshots = 16,
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.byKey.size;
  }

  add(snap: ListSnapshot): void {
    const key = snapshotKey(snap.prefix, snap.revision);
    this.byKey.delete(key);
    this.byKey.set(key, { snap, expires: this.now() + this.ttlMs });
    this.sweep();
    // Map order is insertion (and refresh) order: the first entry is the least recently used.
    while (this.byKey.size > this.maxSnapshots) this.byKey.delete(this.byKey.keys().next().value!);
  }

  /** The snapshot of `prefix` at `revision`, if still kept (its lifetime starts again). */
  get(prefix: string, revision: number): ListSnapshot | undefined {
    const key = snapshotKey(prefix, revision);
    const found = this.byKey.get(key);
    if (!found) return undefined;
    if (found.expires <= this.now()) {
      this.byKey.delete(key);
      return undefined;
    }
    this.byKey.delete(key);
    this.byKey.set(key, { snap: found.snap, expires: this.now() + this.ttlMs });
    return found.snap;
  }

  /** Drops expired snapshots. */
  sweep(): void {
    const now = this.now();
    for (const [key, { expires }] of this.byKey) if (expires <= now) this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
  }
}

function snapshotKey(prefix: string, revision: number): string {
  return `${revision} ${prefix}`;
}

/**
 * A list result of cache entries: with `raw` and every entry a handle, the handles as `rawItems`
 * (a JSON answer copies their stored bytes: nothing is decoded or serialized); else the objects.
 */
export function listOfEntries(entries: CacheEntry[], raw: boolean, resourceVersion: string): ListResult {
  if (raw && entries.every((e) => e instanceof Held)) return { items: [], rawItems: entries as Held[], resourceVersion };
  const items = new Array<KubeObject>(entries.length);
  for (let i = 0; i < entries.length; i++) items[i] = objectOf(entries[i]!);
  return { items, resourceVersion };
}
