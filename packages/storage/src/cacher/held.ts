import type { KubeObject } from '@cluster/apimachinery';
import { SharedObjectStore } from './shared-store.js';
import { writtenJsonOf } from '../etcd3/written-json.js';
import { metadataSpan } from '../etcd3/value-codec.js';

/**
 * A watch cache's handle to one object version in a {@link SharedObjectStore}: what a worker holds
 * per cached version instead of the decoded object. It owns one reference to the entry, dropped
 * when the handle is garbage collected, so the bytes live exactly as long as anything in this
 * worker (the cache's state and window, a list snapshot kept for continue tokens, a list being
 * written) can still reach the handle.
 *
 * Dropping it on collection takes a FinalizationRegistry cell per handle (72 bytes, more than the
 * handle itself), so a watch cache's own handles are registered only when the cache lets them go
 * (see {@link HeldStore.disown}): until then the cache holds them, so they cannot be collected
 * anyway, and the versions a cache keeps for a long time (its current state) have no cell.
 *
 * The object is decoded on demand ({@link toObject}) and kept only while among the last
 * {@link RECENT_DECODED} decoded in this thread: a GET of a hot object, or the watchers of one
 * change, decode it once; a whole collection is never held decoded.
 */
export class Held {
  /**
   * The store of the handle's entry. Not a field: it is on the prototype of the store's own
   * subclasses (see {@link storeClass}), which saves 8 bytes on every cached version of every worker.
   */
  declare readonly store: HeldStore;
  /** The decoded object while it is among the recently decoded (see {@link recent}). */
  declare decoded: KubeObject | undefined;
  /**
   * What selectors read of this version, once one looked (see selection-attrs.ts): its labels
   * (shared with equal label sets), and the field set of one resource version's fields function.
   */
  declare labels: Readonly<Record<string, string>> | undefined;
  declare fieldsOf: ((obj: KubeObject) => Record<string, string>) | undefined;
  declare fields: Readonly<Record<string, string>> | undefined;

  constructor(
    /** The entry in the store. */
    readonly at: number,
    /** Whether a watch cache owns the handle: registered for collection only when it disowns it. */
    owned = false,
  ) {
    if (!owned) this.store.registry.register(this, at);
  }

  /**
   * Set for a DELETED event's object (see DeletedHeld): the last state with the delete's revision
   * as resourceVersion. A getter here, so the handles of every other version have no field for it.
   */
  get deletedAt(): number | undefined {
    return undefined;
  }

  /**
   * The object (decoded now unless decoded recently). Never to be modified: it may be shared. Not
   * named `object`: a subclass is also a window event (AddedHeld), whose `object` is a property.
   */
  toObject(): KubeObject {
    const done = this.decoded;
    if (done !== undefined) return done;
    const obj = JSON.parse(this.store.shared.jsonString(this.at)) as KubeObject;
    if (this.deletedAt !== undefined) {
      obj.metadata.resourceVersion = String(this.deletedAt);
    } else {
      // Its JSON is the stored bytes: serializing it again is a copy (see storedJsonOf).
      heldOf.set(obj, this);
    }
    remember(this, obj);
    return obj;
  }

  /** The object, without keeping it among the recently decoded (for a look at its attributes only). */
  peek(): KubeObject {
    return this.decoded ?? (JSON.parse(this.store.shared.jsonString(this.at)) as KubeObject);
  }

  /** The object's JSON (UTF-8), as a client gets it, in memory of its own. */
  json(): Buffer {
    if (this.deletedAt !== undefined) return Buffer.from(JSON.stringify(this.toObject()));
    return this.store.shared.jsonCopy(this.at);
  }

  /** The length of {@link json}'s bytes when they are the stored ones (no copy needed to know it), else -1. */
  get storedLength(): number {
    return this.deletedAt === undefined ? this.store.shared.jsonLength(this.at) : -1;
  }

  /** Copies the stored JSON into `target` at `offset` (only when {@link storedLength} >= 0); returns the bytes copied. */
  copyInto(target: Uint8Array, offset: number): number {
    return this.store.shared.copyJson(this.at, target, offset);
  }

  /**
   * A copy of the JSON of the version's top-level metadata (`{...}`), read from the stored bytes
   * without decoding them; undefined for a DELETED event's object (its resourceVersion is not the
   * stored one) or when the metadata is not found near the front (see metadataSpan).
   */
  metadataJson(): Buffer | undefined {
    if (this.deletedAt !== undefined) return undefined;
    const json = this.store.shared.jsonView(this.at);
    const span = metadataSpan(json);
    return span && Buffer.from(json.subarray(span[0], span[1]));
  }

  /**
   * Another handle to the same version with `revision` as resourceVersion (a DELETED event's
   * object); `owned` as for {@link HeldStore.find}.
   */
  atRevision(revision: number, owned = false): Held {
    this.store.shared.retain(this.at);
    const out = new this.store.Deleted(this.at, revision, owned);
    if (this.labels !== undefined) out.labels = this.labels;
    if (this.fieldsOf !== undefined) {
      out.fieldsOf = this.fieldsOf;
      out.fields = this.fields;
    }
    return out;
  }
}

/** The handle of a DELETED event's object: the stored last state, read with the delete's revision. */
class DeletedHeld extends Held {
  constructor(
    at: number,
    private readonly revision: number,
    owned: boolean,
  ) {
    super(at, owned);
  }

  override get deletedAt(): number {
    return this.revision;
  }
}

/** A {@link SharedObjectStore} as one thread uses it: with the registry that releases collected handles. */
export class HeldStore {
  readonly registry: FinalizationRegistry<number>;
  /** This store's handles' classes (see {@link storeClass}). */
  readonly Plain: typeof Held;
  readonly Deleted: new (at: number, revision: number, owned: boolean) => Held;

  constructor(readonly shared: SharedObjectStore) {
    this.registry = new FinalizationRegistry((at) => shared.release(at));
    this.Plain = storeClass(class extends Held {}, this);
    this.Deleted = storeClass(class extends DeletedHeld {}, this);
  }

  /**
   * A handle to the stored version of `key` at `revision`, if some thread stored it, made by
   * `make` (by default one dropped when collected; {@link ownedHeld}'s only after {@link disown}).
   */
  find(key: string, revision: number, make: MakeHeld = collectedHeld): Held | undefined {
    const at = this.shared.acquire(key, revision);
    return at === 0 ? undefined : make(this, at);
  }

  /**
   * A handle to the version of `key` at `revision`: the stored one, or `object`'s JSON stored now.
   * Undefined when the store is full (the cache then keeps the object itself).
   */
  hold(key: string, revision: number, object: KubeObject, make: MakeHeld = collectedHeld): Held | undefined {
    return this.find(key, revision, make) ?? this.put(key, revision, object, make);
  }

  /** {@link hold} when a look-up just found nothing: stores `object`'s JSON (unless another thread did meanwhile). */
  put(key: string, revision: number, object: KubeObject, make: MakeHeld = collectedHeld): Held | undefined {
    // An object this worker just wrote: its JSON is the written bytes with the revision put in.
    const at = this.shared.insert(key, revision, writtenJsonOf(object) ?? JSON.stringify(object));
    if (at === 0) return undefined;
    const held = make(this, at);
    // Its JSON is the stored bytes (the other workers' JSON of the same version when they stored it).
    heldOf.set(object, held);
    remember(held, object);
    return held;
  }

  /**
   * Hands an owned handle over to collection: its reference is dropped once nothing reaches it.
   * Its owner calls it once, when it lets the handle go; a second call would drop the reference
   * twice (freeing a version another handle still names), so owners must not.
   */
  disown(held: Held): void {
    this.registry.register(held, held.at);
  }
}

/**
 * `sub` (a new subclass of a handle class) with `store` as its instances' store: one thread has
 * one store (tests have several), so its handles share a few prototypes instead of each keeping
 * the reference.
 */
export function storeClass<C extends { prototype: Held }>(sub: C, store: HeldStore): C {
  Object.defineProperty(sub.prototype, 'store', { value: store });
  return sub;
}

/** Makes the handle of the store's entry `at` (which it owns a reference to): a Held or a subclass's. */
export type MakeHeld = (store: HeldStore, at: number) => Held;

/** A handle whose reference is dropped when it is collected. */
const collectedHeld: MakeHeld = (store, at) => new store.Plain(at);

/** A handle its owner (a watch cache) must hand over with {@link HeldStore.disown}. */
export const ownedHeld: MakeHeld = (store, at) => new store.Plain(at, true);

/** How many decoded objects a thread keeps for their handles (the hot set). */
export const RECENT_DECODED = 1024;
const recent: (Held | undefined)[] = new Array<Held | undefined>(RECENT_DECODED).fill(undefined);
let next = 0;

function remember(held: Held, obj: KubeObject): void {
  const out = recent[next];
  if (out !== undefined) out.decoded = undefined;
  recent[next] = held;
  held.decoded = obj;
  next = (next + 1) % RECENT_DECODED;
}

/** Forgets every recently decoded object (for tests measuring decodes). */
export function forgetDecoded(): void {
  for (let i = 0; i < recent.length; i++) {
    const h = recent[i];
    if (h !== undefined) h.decoded = undefined;
    recent[i] = undefined;
  }
}

const heldOf = new WeakMap<object, Held>();

/**
 * The JSON of an object decoded from a shared store entry (a copy of the stored bytes), or
 * undefined for any other object. Cached objects are never modified, so these are its
 * JSON.stringify.
 */
export function storedJsonOf(obj: object): Buffer | undefined {
  return heldOf.get(obj)?.json();
}

/** An entry of a watch cache: the object itself, or a handle to its bytes in the shared store. */
export type CacheEntry = KubeObject | Held;

/** The object of an entry. */
export function objectOf(entry: CacheEntry): KubeObject {
  return entry instanceof Held ? entry.toObject() : entry;
}

let processStore: HeldStore | undefined;

/**
 * Makes every watch cache created later in this thread keep its versions in `buffer` (see
 * SharedObjectStore), its references counted for worker slot `slot` (see releaseSlot).
 */
export function useSharedStore(buffer: SharedArrayBuffer, owner: number, slot = -1): HeldStore {
  processStore = new HeldStore(new SharedObjectStore(buffer, owner, slot));
  return processStore;
}

/** The thread's shared store, if one is in use. */
export function sharedStore(): HeldStore | undefined {
  return processStore;
}
