/**
 * One copy per replica process of the JSON of every object version its watch caches hold, in a
 * growable SharedArrayBuffer that every worker thread of the replica maps (see the bench README,
 * "Seventeenth session: one copy of the watch caches per replica"). Each worker still runs its own
 * etcd watches and keeps its own per-key index, revision and event window (so consistency, proofs
 * and replay are as before); what it holds per version is a small handle ({@link Held}) to the bytes
 * here instead of the decoded object.
 *
 * A version is identified by its etcd key and mod revision (etcd never stores two values under
 * one); its bytes are the JSON a client gets (`JSON.stringify` of the decoded object, with its
 * resourceVersion; for a worker's own write, the written bytes with the revision put in: see
 * writtenJsonOf), written by the first worker whose watch brings the version, found by the
 * others. Each version is reference counted by the handles that name it (every worker's, released
 * when the handle is collected); at zero its block goes back to a free list of its size class,
 * reused by the next version of about that size, so updates do not grow the buffer forever.
 *
 * Layout (little endian, offsets in bytes): a header (the lock, the bump pointer, the hash table's
 * place and size, counters, one free-list head per size class), then blocks. An entry block:
 * refcount u32 | next in chain u32 | hash u32 | size class u16, key is UTF-16 u8 | revision f64 at
 * 16 | key length (code units) u32 at 24 | JSON length u32 at 28 | one u16 per worker slot (the
 * references each slot's thread holds, saturating: an undercount only leaks) | key | JSON.
 *
 * Per-slot counts: a thread that ends (a crash, a restart) never runs the finalizers that would
 * release its references, so the replica's main thread releases them for it
 * ({@link SharedObjectStore.releaseSlot}) before a new thread takes the slot. Counts are raised
 * total first and lowered slot first, so a thread stopped between the two leaves one reference
 * too many (a leak of one version), never one too few.
 *
 * Every change and every lookup runs under one lock (a futex-style mutex over Atomics; waiting
 * uses Atomics.wait, which worker threads may do, and the replica's main thread never uses the
 * store). Reading the bytes of an entry needs no lock: the reader holds a reference, so the block
 * is neither freed nor written while it reads, and the lock's atomics order the writer's bytes
 * before the reader's lookup. Sections under the lock are short (a chain walk, a copy of one
 * object's bytes).
 */

import {
  HEADER_BYTES, LOCK, WAITERS, BUMP, BUCKETS, BUCKET_COUNT, COUNT, LIVE_BYTES, FREE_BYTES, MAGIC, SLOTS, FREE_HEADS, CLASS_COUNT,
  MAGIC_VALUE, ENTRY_HEADER, INITIAL_BUCKETS, GROW_STEP, GrowableSharedArrayBuffer, classSize, classFor, type Growable,
} from './shared-store-layout.js';

export { classSize, classFor } from './shared-store-layout.js';

/** Options of a new store. */
export interface SharedStoreOptions {
  /** Bytes reserved up front (grows from there). Default 16 MiB. */
  initialBytes?: number;
  /** Most bytes the buffer may grow to (virtual; only what is used is resident). Default 4 GiB. */
  maxBytes?: number;
  /** Worker slots whose references each entry counts apart (see releaseSlot). Default 0 (none). */
  slots?: number;
}

/** Counters of a store (for tests and metrics). */
export interface SharedStoreStats {
  entries: number;
  /** Bytes of the blocks that hold entries. */
  liveBytes: number;
  /** Bytes of blocks on the free lists. */
  freeBytes: number;
  /** Bytes handed out from the end so far (entries, free blocks, hash tables). */
  usedBytes: number;
  /** The buffer's current size. */
  bufferBytes: number;
}

export class SharedObjectStore {
  // Fixed-length views of the buffer as last seen, made again when it grew (see sync): V8 11
  // reaches length-tracking views of a growable buffer through a slow path, ~5x slower.
  private u32!: Uint32Array;
  private i32!: Int32Array;
  private f64!: Float64Array;
  private u8!: Uint8Array;
  private u16!: Uint16Array;
  private bytes!: Buffer;
  private seen = -1;
  /** This thread's id in the lock word (nonzero). */
  private readonly owner: number;
  /** Bytes of an entry's header: the fixed part and the per-slot counts. */
  private readonly entryHeader: number;
  /** Where this thread's count is in an entry (u16 index from the entry's first), or 0 without one. */
  private readonly slotHalf: number;
  private readonly growable: SharedArrayBuffer & Growable;

  /** Creates a new store's buffer (the replica's main thread does, then hands it to each worker thread). */
  static createBuffer(opts: SharedStoreOptions = {}): SharedArrayBuffer {
    const max = opts.maxBytes ?? 2 ** 32;
    const initial = Math.min(max, Math.max(HEADER_BYTES + INITIAL_BUCKETS * 4 + 4096, opts.initialBytes ?? 16 * 1024 * 1024));
    const sab = new GrowableSharedArrayBuffer(initial, { maxByteLength: max });
    const u32 = new Uint32Array(sab, 0, HEADER_BYTES / 4);
    u32[BUMP] = HEADER_BYTES;
    // The first hash table: the block right after the header (a class-sized block, so it can be freed).
    const tableBytes = INITIAL_BUCKETS * 4;
    u32[BUCKETS] = HEADER_BYTES;
    u32[BUCKET_COUNT] = INITIAL_BUCKETS;
    u32[BUMP] = HEADER_BYTES + classSize(classFor(tableBytes));
    u32[MAGIC] = MAGIC_VALUE;
    u32[SLOTS] = Math.max(0, Math.min(1024, opts.slots ?? 0));
    return sab;
  }

  constructor(
    readonly buffer: SharedArrayBuffer,
    /** A number unique to this thread among those sharing the buffer (e.g. threadId + 1). */
    owner = 1,
    /** The worker slot whose count this thread's references go to (see releaseSlot); none when out of range. */
    slot = -1,
  ) {
    this.growable = buffer as SharedArrayBuffer & Growable;
    if (!this.growable.growable) throw new Error('the shared store needs a growable SharedArrayBuffer');
    this.sync();
    if (this.u32[MAGIC] !== MAGIC_VALUE) throw new Error('not a shared store buffer');
    this.owner = owner > 0 ? owner | 0 : 1;
    const slots = this.u32[SLOTS]!;
    // u16 counts keep the key (UTF-16 for some) 2-byte aligned.
    this.entryHeader = ENTRY_HEADER + slots * 2;
    this.slotHalf = slot >= 0 && slot < slots ? ENTRY_HEADER / 2 + slot : 0;
  }

  stats(): SharedStoreStats {
    return this.locked(() => ({
      entries: this.u32[COUNT]!,
      liveBytes: this.u32[LIVE_BYTES]!,
      freeBytes: this.u32[FREE_BYTES]!,
      usedBytes: this.u32[BUMP]!,
      bufferBytes: this.buffer.byteLength,
    }));
  }

  /** The entry of `key` at `revision` with one more reference, or 0 when the store has none. */
  acquire(key: string, revision: number): number {
    const hash = hashOf(key, revision);
    return this.locked(() => {
      const at = this.find(key, revision, hash);
      if (at !== 0) this.addRef(at);
      return at;
    });
  }

  /**
   * The entry of `key` at `revision` with one more reference: the one there, or a new one holding
   * `json` (the JSON of that version, as text or UTF-8). 0 when the buffer cannot grow to hold it.
   */
  insert(key: string, revision: number, json: string | Uint8Array): number {
    const hash = hashOf(key, revision);
    const jsonBytes = typeof json === 'string' ? Buffer.byteLength(json) : json.length;
    let wide = false;
    for (let i = 0; i < key.length; i++) {
      if (key.charCodeAt(i) > 0xff) {
        wide = true;
        break;
      }
    }
    const keyBytes = wide ? key.length * 2 : key.length;
    // Key bytes padded to an even length, so a UTF-16 key would be aligned either way.
    const size = this.entryHeader + ((keyBytes + 1) & ~1) + jsonBytes;
    return this.locked(() => {
      const found = this.find(key, revision, hash);
      if (found !== 0) {
        this.addRef(found);
        return found;
      }
      if (this.u32[COUNT]! + 1 > this.u32[BUCKET_COUNT]!) this.growTable();
      const c = classFor(size);
      if (c >= CLASS_COUNT) return 0; // over 8 MiB: not kept here
      const at = this.alloc(c);
      if (at === 0) return 0;
      const w = at >>> 2;
      // A reused block holds an old entry's counts.
      this.u16.fill(0, (at + ENTRY_HEADER) >>> 1, (at + this.entryHeader) >>> 1);
      this.u32[w] = 0;
      this.addRef(at);
      this.u32[w + 2] = hash;
      this.u16[(at + 12) >>> 1] = c;
      this.u8[at + 14] = wide ? 1 : 0;
      this.f64[(at + 16) >>> 3] = revision;
      this.u32[w + 6] = key.length;
      this.u32[w + 7] = jsonBytes;
      const keyAt = at + this.entryHeader;
      if (wide) {
        for (let i = 0; i < key.length; i++) this.u16[(keyAt >>> 1) + i] = key.charCodeAt(i);
      } else {
        for (let i = 0; i < key.length; i++) this.u8[keyAt + i] = key.charCodeAt(i);
      }
      if (typeof json === 'string') this.buf().write(json, keyAt + ((keyBytes + 1) & ~1), jsonBytes, 'utf8');
      else this.u8.set(json, keyAt + ((keyBytes + 1) & ~1));
      const bucket = this.u32[BUCKETS]! + (hash & (this.u32[BUCKET_COUNT]! - 1)) * 4;
      this.u32[w + 1] = this.u32[bucket >>> 2]!;
      this.u32[bucket >>> 2] = at;
      this.u32[COUNT] = this.u32[COUNT]! + 1;
      this.u32[LIVE_BYTES] = this.u32[LIVE_BYTES]! + classSize(c);
      return at;
    });
  }

  /** One more reference to an entry the caller holds a reference to. */
  retain(at: number): void {
    this.locked(() => this.addRef(at));
  }

  /** Drops one reference; the last one frees the entry's block. */
  release(at: number): void {
    this.locked(() => {
      const h = (at >>> 1) + this.slotHalf;
      if (this.slotHalf !== 0 && this.u16[h]! > 0) this.u16[h] = this.u16[h]! - 1;
      this.drop(at, 1);
    });
  }

  /**
   * Drops every reference the worker slot `slot` counts (its thread ended without releasing them);
   * returns how many entries that freed. Only while no thread uses the slot: the replica's main
   * thread calls it when a worker thread ended, before it starts the next in that slot.
   */
  releaseSlot(slot: number): number {
    return this.locked(() => {
      if (slot < 0 || slot >= this.u32[SLOTS]!) return 0;
      const half = ENTRY_HEADER / 2 + slot;
      const dead: number[] = [];
      const buckets = this.u32[BUCKETS]! >>> 2;
      const count = this.u32[BUCKET_COUNT]!;
      for (let b = 0; b < count; b++) {
        for (let at = this.u32[buckets + b]!; at !== 0; at = this.u32[(at >>> 2) + 1]!) {
          const held = this.u16[(at >>> 1) + half]!;
          if (held === 0) continue;
          this.u16[(at >>> 1) + half] = 0;
          if (held >= this.u32[at >>> 2]!) dead.push(at);
          else this.u32[at >>> 2] = this.u32[at >>> 2]! - held;
        }
      }
      // Freed after the walk: freeing changes the chains.
      for (const at of dead) this.drop(at, this.u32[at >>> 2]!);
      return dead.length;
    });
  }

  /** One more reference to `at`, counted for this thread's slot too (total first: see the header comment). */
  private addRef(at: number): void {
    const w = at >>> 2;
    this.u32[w] = this.u32[w]! + 1;
    // Saturates: past 65,535 references of one thread to one version (never seen) the slot
    // undercounts, so releaseSlot would leave the rest (a leak, never an early free).
    const h = (at >>> 1) + this.slotHalf;
    if (this.slotHalf !== 0 && this.u16[h]! < 0xffff) this.u16[h] = this.u16[h]! + 1;
  }

  /** Drops `n` references of `at` (its slot counts already lowered); the last frees its block. */
  private drop(at: number, n: number): void {
    const w = at >>> 2;
    const refs = this.u32[w]! - n;
    if (refs > 0) {
      this.u32[w] = refs;
      return;
    }
    if (refs < 0) throw new Error(`shared store: entry ${at} released more often than referenced`);
    this.u32[w] = 0;
    this.unlink(at);
    const c = this.u16[(at + 12) >>> 1]!;
    this.u32[COUNT] = this.u32[COUNT]! - 1;
    this.u32[LIVE_BYTES] = this.u32[LIVE_BYTES]! - classSize(c);
    this.free(at, c);
  }

  /** References the worker slot `slot` holds to an entry (for tests). */
  slotRefs(at: number, slot: number): number {
    this.sync();
    return slot >= 0 && slot < this.u32[SLOTS]! ? Atomics.load(this.u16, (at >>> 1) + ENTRY_HEADER / 2 + slot) : 0;
  }

  /** References held to an entry (for tests). */
  refs(at: number): number {
    this.sync();
    return Atomics.load(this.u32, at >>> 2);
  }

  /** The revision of an entry. */
  revisionOf(at: number): number {
    this.sync();
    return this.f64[(at + 16) >>> 3]!;
  }

  /** The etcd key of an entry. */
  keyOf(at: number): string {
    this.sync();
    const n = this.u32[(at >>> 2) + 6]!;
    const keyAt = at + this.entryHeader;
    if (this.u8[at + 14] === 1) return String.fromCharCode(...this.u16.subarray(keyAt >>> 1, (keyAt >>> 1) + n));
    return this.buf().toString('latin1', keyAt, keyAt + n);
  }

  /** Where an entry's JSON is in {@link buffer}: [start, end). The caller must hold a reference. */
  jsonRange(at: number): [number, number] {
    this.sync();
    const w = at >>> 2;
    const keyBytes = this.u8[at + 14] === 1 ? this.u32[w + 6]! * 2 : this.u32[w + 6]!;
    const start = at + this.entryHeader + ((keyBytes + 1) & ~1);
    return [start, start + this.u32[w + 7]!];
  }

  /**
   * A view of an entry's JSON in the buffer, for reading at once: valid while the caller holds a
   * reference, and never to be kept (the block is reused once the entry is freed).
   */
  jsonView(at: number): Buffer {
    const [start, end] = this.jsonRange(at);
    return this.buf().subarray(start, end);
  }

  /** An entry's JSON as a string. */
  jsonString(at: number): string {
    const [start, end] = this.jsonRange(at);
    return this.buf().toString('utf8', start, end);
  }

  /** A copy of an entry's JSON (the caller may keep it after letting the entry go). */
  jsonCopy(at: number): Buffer {
    const [start, end] = this.jsonRange(at);
    const out = Buffer.allocUnsafe(end - start);
    this.buf().copy(out, 0, start, end);
    return out;
  }

  /** Copies an entry's JSON into `target` at `offset`; returns the bytes copied. */
  copyJson(at: number, target: Uint8Array, offset: number): number {
    const [start, end] = this.jsonRange(at);
    return this.buf().copy(target, offset, start, end);
  }

  /** The JSON length of an entry, in bytes. */
  jsonLength(at: number): number {
    this.sync();
    return this.u32[(at >>> 2) + 7]!;
  }

  /**
   * Releases the lock when the thread `owner` holds it: the replica's main thread calls this for a
   * worker thread that ended (a terminated thread may have stopped between lock and unlock).
   */
  breakLockOf(owner: number): boolean {
    this.sync();
    if (Atomics.compareExchange(this.i32, LOCK, owner, 0) !== owner) return false;
    Atomics.notify(this.i32, LOCK);
    return true;
  }

  /** Makes the views again when the buffer grew since (here or in another thread). */
  private sync(): void {
    const n = this.buffer.byteLength;
    if (n === this.seen) return;
    this.seen = n;
    this.u32 = new Uint32Array(this.buffer, 0, n >>> 2);
    this.i32 = new Int32Array(this.buffer, 0, n >>> 2);
    this.f64 = new Float64Array(this.buffer, 0, Math.floor(n / 8));
    this.u8 = new Uint8Array(this.buffer, 0, n);
    this.u16 = new Uint16Array(this.buffer, 0, n >>> 1);
    this.bytes = Buffer.from(this.buffer, 0, n);
  }

  /** The bytes, as far as this thread has seen the buffer grow. */
  private buf(): Buffer {
    this.sync();
    return this.bytes;
  }

  private locked<T>(fn: () => T): T {
    this.sync();
    this.lock();
    try {
      return fn();
    } finally {
      this.unlock();
    }
  }

  private lock(): void {
    const me = this.owner;
    for (let spin = 0; ; spin++) {
      const held = Atomics.compareExchange(this.i32, LOCK, 0, me);
      if (held === 0) return;
      if (held === me) throw new Error('shared store: lock taken twice by one thread');
      if (spin < 64) continue;
      Atomics.add(this.i32, WAITERS, 1);
      // Bounded, so a lock whose holder died is seen again soon (see breakLockOf).
      Atomics.wait(this.i32, LOCK, held, 5);
      Atomics.sub(this.i32, WAITERS, 1);
    }
  }

  private unlock(): void {
    Atomics.store(this.i32, LOCK, 0);
    if (Atomics.load(this.i32, WAITERS) > 0) Atomics.notify(this.i32, LOCK, 1);
  }

  private find(key: string, revision: number, hash: number): number {
    const bucket = this.u32[BUCKETS]! + (hash & (this.u32[BUCKET_COUNT]! - 1)) * 4;
    for (let at = this.u32[bucket >>> 2]!; at !== 0; at = this.u32[(at >>> 2) + 1]!) {
      if (this.u32[(at >>> 2) + 2] === hash && this.f64[(at + 16) >>> 3] === revision && this.keyIs(at, key)) return at;
    }
    return 0;
  }

  private keyIs(at: number, key: string): boolean {
    if (this.u32[(at >>> 2) + 6] !== key.length) return false;
    const keyAt = at + this.entryHeader;
    if (this.u8[at + 14] === 1) {
      const k = keyAt >>> 1;
      for (let i = 0; i < key.length; i++) if (this.u16[k + i] !== key.charCodeAt(i)) return false;
    } else {
      for (let i = 0; i < key.length; i++) if (this.u8[keyAt + i] !== key.charCodeAt(i)) return false;
    }
    return true;
  }

  private unlink(at: number): void {
    const hash = this.u32[(at >>> 2) + 2]!;
    let link = (this.u32[BUCKETS]! + (hash & (this.u32[BUCKET_COUNT]! - 1)) * 4) >>> 2;
    for (let cur = this.u32[link]!; cur !== 0; cur = this.u32[link]!) {
      if (cur === at) {
        this.u32[link] = this.u32[(at >>> 2) + 1]!;
        return;
      }
      link = (cur >>> 2) + 1;
    }
    throw new Error(`shared store: entry ${at} is not in its chain`);
  }

  /** A block of class `c` (from its free list, else from the end, growing the buffer); 0 when full. */
  private alloc(c: number): number {
    const size = classSize(c);
    const head = this.u32[FREE_HEADS + c]!;
    if (head !== 0) {
      this.u32[FREE_HEADS + c] = this.u32[head >>> 2]!;
      this.u32[FREE_BYTES] = this.u32[FREE_BYTES]! - size;
      return head;
    }
    const at = this.u32[BUMP]!;
    const end = at + size;
    if (end > this.buffer.byteLength) {
      const max = this.growable.maxByteLength;
      if (end > max) return 0;
      const want = Math.min(max, Math.max(end, this.buffer.byteLength + Math.max(GROW_STEP, this.buffer.byteLength >>> 3)));
      try {
        this.growable.grow(want);
      } catch {
        return 0; // no memory for it
      }
    }
    this.sync();
    this.u32[BUMP] = end;
    return at;
  }

  private free(at: number, c: number): void {
    this.u32[at >>> 2] = this.u32[FREE_HEADS + c]!;
    this.u32[FREE_HEADS + c] = at;
    this.u32[FREE_BYTES] = this.u32[FREE_BYTES]! + classSize(c);
  }

  /** Doubles the hash table (when there are more entries than buckets). */
  private growTable(): void {
    const oldAt = this.u32[BUCKETS]!;
    const oldCount = this.u32[BUCKET_COUNT]!;
    const count = oldCount * 2;
    const c = classFor(count * 4);
    if (c >= CLASS_COUNT) return; // 2^20 buckets at most; longer chains, still correct
    const at = this.alloc(c);
    if (at === 0) return; // longer chains, still correct
    this.u32.fill(0, at >>> 2, (at >>> 2) + count);
    for (let b = 0; b < oldCount; b++) {
      let e = this.u32[(oldAt >>> 2) + b]!;
      while (e !== 0) {
        const next = this.u32[(e >>> 2) + 1]!;
        const slot = (at >>> 2) + (this.u32[(e >>> 2) + 2]! & (count - 1));
        this.u32[(e >>> 2) + 1] = this.u32[slot]!;
        this.u32[slot] = e;
        e = next;
      }
    }
    this.u32[BUCKETS] = at;
    this.u32[BUCKET_COUNT] = count;
    this.free(oldAt, classFor(oldCount * 4));
  }
}

/** FNV-1a of the key's code units, mixed with the revision. */
export function hashOf(key: string, revision: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= revision | 0;
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h ^= Math.floor(revision / 2 ** 32);
  return (h ^ (h >>> 13)) >>> 0;
}
