// The watch caches' shared store (`--watch-cache-shared-store`, for worker threads, on by default):
// the replica's main thread makes one growable SharedArrayBuffer and hands it to every worker
// thread it starts; each thread keeps its watch caches' object versions there
// (packages/storage/src/cacher/shared-store.ts, held.ts), so the replica holds one copy of them
// whatever --workers is. Worker processes and a single process keep decoded objects as before.
import { threadId, workerData } from 'node:worker_threads';
import { SharedObjectStore } from '@cluster/storage/shared-store';

/** What the main thread passes a worker thread (as workerData). */
export interface SharedStoreWorkerData {
  watchCacheStore?: SharedArrayBuffer;
  /** The worker slot (0-based) the thread's references are counted for. */
  watchCacheSlot?: number;
}

/** The main thread's side: the buffer to hand every worker thread, and the clean-up after a thread that ended. */
export interface ReplicaSharedStore {
  /** What to pass the thread of worker `slot` (1-based, as the primary numbers them). */
  workerData(slot: number): SharedStoreWorkerData;
  /**
   * After the thread `threadId` of worker `slot` ended, before another starts in the slot: releases
   * the store's lock if it held it (a terminated thread may stop anywhere) and every reference it
   * held (its finalizers never run). Returns the entries that freed.
   */
  threadEnded(threadId: number, slot: number): number;
}

export function createReplicaSharedStore(enabled: boolean, workers: number): ReplicaSharedStore | undefined {
  if (!enabled) return undefined;
  const buffer = SharedObjectStore.createBuffer({ slots: workers });
  // The main thread takes the lock only after a thread ended (releaseSlot, a walk of the entries).
  const store = new SharedObjectStore(buffer, 0x7fffffff);
  return {
    workerData: (slot) => ({ watchCacheStore: buffer, watchCacheSlot: slot - 1 }),
    threadEnded: (id, slot) => {
      store.breakLockOf(ownerOf(id));
      return store.releaseSlot(slot - 1);
    },
  };
}

/** A worker thread's side, before any watch cache is made: use the store its main thread passed, if any. */
export async function installWatchCacheStore(): Promise<boolean> {
  const data = workerData as SharedStoreWorkerData | null | undefined;
  const buffer = data?.watchCacheStore;
  if (!(buffer instanceof SharedArrayBuffer)) return false;
  // Loaded here, not at the top: the main thread imports this file and loads none of the server.
  const { useSharedStore } = await import('@cluster/storage');
  useSharedStore(buffer, ownerOf(threadId), data?.watchCacheSlot ?? -1);
  return true;
}

/** The store's lock owner id of a thread (never 0, which means unlocked). */
function ownerOf(id: number): number {
  return id + 1;
}
