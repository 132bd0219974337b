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
}

/** The main thread's side: the buffer to hand every worker thread, and the lock release for a thread that ended. */
export interface ReplicaSharedStore {
  workerData: SharedStoreWorkerData;
  /** Releases the store's lock if the ended thread `threadId` held it (a terminated thread may stop anywhere). */
  threadEnded(threadId: number): void;
}

export function createReplicaSharedStore(enabled: boolean): ReplicaSharedStore | undefined {
  if (!enabled) return undefined;
  const buffer = SharedObjectStore.createBuffer();
  // The main thread never takes the lock itself: this view only releases a dead thread's.
  const store = new SharedObjectStore(buffer, 0x7fffffff);
  return {
    workerData: { watchCacheStore: buffer },
    threadEnded: (id) => void store.breakLockOf(ownerOf(id)),
  };
}

/** A worker thread's side, before any watch cache is made: use the store its main thread passed, if any. */
export async function installWatchCacheStore(): Promise<boolean> {
  const buffer = (workerData as SharedStoreWorkerData | null | undefined)?.watchCacheStore;
  if (!(buffer instanceof SharedArrayBuffer)) return false;
  // Loaded here, not at the top: the main thread imports this file and loads none of the server.
  const { useSharedStore } = await import('@cluster/storage');
  useSharedStore(buffer, ownerOf(threadId));
  return true;
}

/** The store's lock owner id of a thread (never 0, which means unlocked). */
function ownerOf(id: number): number {
  return id + 1;
}
