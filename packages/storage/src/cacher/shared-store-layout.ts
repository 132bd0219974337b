/**
 * The shared store's layout: header words, block sizes and size classes (see shared-store.ts for
 * the layout as a whole). Apart so the store itself stays readable at once.
 */

export const HEADER_BYTES = 2048;
// Header words (Uint32/Int32 indices).
export const LOCK = 0;
export const WAITERS = 1;
export const BUMP = 2;
export const BUCKETS = 3;
export const BUCKET_COUNT = 4;
export const COUNT = 5;
export const LIVE_BYTES = 6;
export const FREE_BYTES = 7;
export const MAGIC = 8;
export const SLOTS = 9;
export const FREE_HEADS = 16;
export const CLASS_COUNT = 256;
export const MAGIC_VALUE = 0x5eed0b1e;

export const ENTRY_HEADER = 32;
export const INITIAL_BUCKETS = 4096;
/** The buffer grows by at least this much (or an eighth of its size) at a time. */
export const GROW_STEP = 8 * 1024 * 1024;

/** What ES2024 adds to SharedArrayBuffer (Node 20 has it; the TypeScript lib here does not). */
export interface Growable {
  readonly growable: boolean;
  readonly maxByteLength: number;
  grow(newLength: number): void;
}
export const GrowableSharedArrayBuffer = SharedArrayBuffer as unknown as new (length: number, opts: { maxByteLength: number }) => SharedArrayBuffer;

/**
 * Size of the blocks of class `c`: 128 bytes, then sixteen steps per doubling (multiples of 8, as
 * blocks must be), so at most 1/16 of a block is wasted (a 1 KiB ConfigMap's version, ~1,330 bytes
 * with its key, takes 1,344). The largest class is 8 MiB less a step.
 */
export function classSize(c: number): number {
  const base = 128 * 2 ** (c >> 4);
  return base + (base / 16) * (c & 15);
}

/** The smallest class whose blocks hold `size` bytes. */
export function classFor(size: number): number {
  if (size <= 128) return 0;
  const p = 31 - Math.clz32(size); // floor(log2(size)), size < 2^31
  const base = 2 ** p;
  const steps = Math.ceil((size - base) / (base / 16));
  return (p - 7) * 16 + steps;
}
