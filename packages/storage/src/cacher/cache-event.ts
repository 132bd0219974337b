import type { KubeObject } from '@cluster/apimachinery';
import type { Predicate, WatchEvent } from '../interfaces.js';
import { Held, objectOf, storeClass, type CacheEntry, type HeldStore } from './held.js';
import { entryPasses } from './selection-attrs.js';

/**
 * One change in a watch cache's window, after upstream's watchCacheEvent. The WatchEvent a
 * watcher receives is derived per watcher predicate and memoized here, so every watcher that
 * sees the same variant shares one event object (and its encoded bytes).
 */
export interface CacheEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  revision: number;
  /** The new state; for DELETED the last state, with the delete revision as resourceVersion. */
  object: KubeObject;
  /** The state before the change (absent for ADDED). */
  prevObject?: KubeObject;
  /** When the cache received the change (ms since the cache was created), for time-based eviction. */
  time: number;
  /** Memoized derived events, one per event type. */
  variants?: Partial<Record<'ADDED' | 'MODIFIED' | 'DELETED', WatchEvent>>;
  /** Memoized transitions per predicate selectorKey: many watchers often share one selection. */
  transitions?: Map<string, 'ADDED' | 'MODIFIED' | 'DELETED' | undefined>;
}

/**
 * What a watcher with `predicate` sees of `ev` (upstream's cacheWatcher.convertToWatchEvent):
 * nothing when neither the old nor the new state matches; ADDED when only the new one does;
 * DELETED (the old state at the event's revision) when only the old one does; otherwise the event
 * type itself.
 */
export function transitionType(
  ev: Pick<CacheEvent, 'type' | 'object' | 'prevObject'>,
  predicate: Predicate | undefined,
): 'ADDED' | 'MODIFIED' | 'DELETED' | undefined {
  // Without a predicate the change is seen as it happened (and no object needs decoding to say so).
  if (!predicate) {
    if (ev.type !== 'DELETED') return ev.type;
    return (ev instanceof HeldEvent ? ev.prevEntry : ev.prevObject) === undefined ? undefined : 'DELETED';
  }
  // Entries, not objects: a shared store's handles are selected on their kept attributes.
  const prev = ev instanceof HeldEvent ? ev.prevEntry : ev.prevObject;
  const cur = ev instanceof HeldEvent ? ev.entry : ev instanceof AddedHeld ? ev : ev.object;
  const curPasses = ev.type !== 'DELETED' && entryPasses(cur, predicate);
  const oldPasses = prev !== undefined && entryPasses(prev, predicate);
  if (curPasses && oldPasses) return 'MODIFIED';
  if (curPasses) return 'ADDED';
  if (oldPasses) return 'DELETED';
  return undefined;
}

/**
 * The shared WatchEvent of `ev` for a watcher with `predicate`, or undefined when it sees nothing.
 * When the watcher sees the change as it happened (same type, same object: every watcher without a
 * selector, and selected ones whose selection did not change), the cache event itself is that
 * WatchEvent: nothing is allocated or memoized per event, which matters while a whole-collection
 * watcher (the garbage collector's, the quota controller's) keeps up with 100,000 events held in
 * the window. Only a changed view (an object leaving a selection) gets a memoized variant.
 */
export function watchEventFor(ev: CacheEvent, predicate: Predicate | undefined): WatchEvent | undefined {
  const key = predicate ? predicate.selectorKey : undefined;
  let type: 'ADDED' | 'MODIFIED' | 'DELETED' | undefined;
  if (key === undefined) {
    // No predicate (trivial) or one that cannot be shared: computed, not memoized.
    type = transitionType(ev, predicate);
  } else {
    const memo = (ev.transitions ??= new Map());
    if (memo.has(key)) {
      type = memo.get(key);
    } else {
      type = transitionType(ev, predicate);
      memo.set(key, type);
    }
  }
  if (!type) return undefined;
  if (type === ev.type) return ev;
  const variants = (ev.variants ??= {});
  let out = variants[type];
  if (!out) {
    let object = ev.object;
    if (type === 'DELETED' && ev.prevObject) {
      // The object left this watcher's selection: it sees the old state at the new revision.
      object = withResourceVersion(ev.prevObject, ev.revision);
    }
    out = { type, object, revision: ev.revision };
    variants[type] = out;
  }
  return out;
}

/**
 * A window event whose objects are entries of a watch cache that keeps its versions in a shared
 * store (see Held): the objects are decoded when read, and not kept by the event. Made with
 * {@link heldEvent}; an ADDED event of a handle is that handle itself (AddedHeld).
 */
export abstract class HeldEvent implements CacheEvent {
  declare variants?: Partial<Record<'ADDED' | 'MODIFIED' | 'DELETED', WatchEvent>>;
  declare transitions?: Map<string, 'ADDED' | 'MODIFIED' | 'DELETED' | undefined>;
  abstract readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  abstract readonly key: string;
  abstract readonly revision: number;
  abstract readonly entry: CacheEntry;
  abstract readonly prevEntry: CacheEntry | undefined;
  abstract readonly time: number;

  get object(): KubeObject {
    return objectOf(this.entry);
  }

  get prevObject(): KubeObject | undefined {
    const prev = this.prevEntry;
    return prev === undefined ? undefined : objectOf(prev);
  }
}

/**
 * The JSON of the top-level metadata of an ADDED or MODIFIED event's object when it is a shared
 * store entry (see Held.metadataJson), for views that carry only the metadata
 * (PartialObjectMetadata): no decode of the object, no serialization of its metadata.
 */
export function storedMetadataJsonOf(event: object): Buffer | undefined {
  // An ADDED change's window event is the handle itself (AddedHeld).
  if (event instanceof AddedHeld) return event.metadataJson();
  if (!(event instanceof HeldEvent) || event.type === 'DELETED') return undefined;
  const entry = event.entry;
  return entry instanceof Held ? entry.metadataJson() : undefined;
}

class HeldChange extends HeldEvent {
  constructor(
    readonly type: 'ADDED' | 'MODIFIED' | 'DELETED',
    readonly key: string,
    readonly revision: number,
    readonly entry: CacheEntry,
    readonly prevEntry: CacheEntry | undefined,
    readonly time: number,
  ) {
    super();
  }
}

/**
 * The handle of a version a watch cache took from an ADDED change, which is also that change's
 * window event: a window after a burst of creates is mostly these, and one object with the
 * event's three fields costs 32 bytes less per version and worker than a handle and an event.
 * Owned by the cache (see HeldStore.disown): its state lets go of it once, the window holding it
 * or not.
 */
export class AddedHeld extends Held implements CacheEvent {
  declare variants?: Partial<Record<'ADDED' | 'MODIFIED' | 'DELETED', WatchEvent>>;
  declare transitions?: Map<string, 'ADDED' | 'MODIFIED' | 'DELETED' | undefined>;

  constructor(
    at: number,
    readonly key: string,
    readonly time: number,
  ) {
    super(at, true);
  }

  /** Read from the store (its entry is this version), not kept: 8 bytes less per cached version. */
  get revision(): number {
    return this.store.shared.revisionOf(this.at);
  }

  get type(): 'ADDED' {
    return 'ADDED';
  }

  get object(): KubeObject {
    return this.toObject();
  }

  get prevObject(): undefined {
    return undefined;
  }
}

const addedClasses = new WeakMap<HeldStore, typeof AddedHeld>();

/** The AddedHeld class of `store`'s handles (see storeClass). */
export function addedHeldOf(store: HeldStore): typeof AddedHeld {
  let out = addedClasses.get(store);
  if (out === undefined) {
    out = storeClass(class extends AddedHeld {}, store);
    addedClasses.set(store, out);
  }
  return out;
}

/** The window event of a change whose new or old state is a shared store's handle (not an AddedHeld's). */
export function heldEvent(
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  key: string,
  revision: number,
  entry: CacheEntry,
  prevEntry: CacheEntry | undefined,
  time: number,
): HeldEvent {
  return new HeldChange(type, key, revision, entry, prevEntry, time);
}

/** The ADDED event of a current object held in a shared store (a watch's initial state), decoded when read. */
export class HeldAddedEvent implements WatchEvent {
  readonly type = 'ADDED' as const;

  constructor(
    readonly held: Held,
    readonly revision: number,
  ) {}

  get object(): KubeObject {
    return this.held.toObject();
  }
}

/** The entry of the state before `ev` (for DELETED and MODIFIED). */
export function prevEntryOf(ev: CacheEvent): CacheEntry | undefined {
  return ev instanceof HeldEvent ? ev.prevEntry : ev.prevObject;
}

/** A shallow copy of `obj` whose metadata.resourceVersion is `revision`. */
export function withResourceVersion(obj: KubeObject, revision: number): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } };
}

/** A BOOKMARK event: only metadata.resourceVersion is set (the apiserver adds kind/apiVersion). */
export function bookmarkEvent(revision: number, annotations?: Record<string, string>): WatchEvent {
  const metadata = annotations ? { resourceVersion: String(revision), annotations } : { resourceVersion: String(revision) };
  return { type: 'BOOKMARK', object: { metadata }, revision };
}

/** An ERROR event carrying a failure Status. */
export function errorEvent(code: number, reason: string, message: string, revision = 0): WatchEvent {
  return {
    type: 'ERROR',
    object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code },
    revision,
  };
}

/** Upstream's message when a watch's start revision fell out of the retained history. */
export const WATCH_EXPIRED_MESSAGE = 'The resourceVersion for the provided watch is too old.';

/** The ERROR a watcher gets when it must list again (history compacted, cache re-listed). */
export function expiredEvent(message = WATCH_EXPIRED_MESSAGE): WatchEvent {
  return errorEvent(410, 'Expired', message);
}

/** The ERROR a watcher gets when it was closed for not reading its events fast enough. */
export function tooSlowEvent(): WatchEvent {
  return errorEvent(
    410,
    'Gone',
    'the watch was closed because the client did not read its events fast enough; list again and watch from the returned resourceVersion',
  );
}
