import type { KubeObject } from '@cluster/apimachinery';
import type { StoreChange, WatchCacheOptions } from './watch-cache.js';

/** Receives the changes of a {@link CacherSource} watch, in revision order. */
export interface ChangeSink {
  onChanges(changes: StoreChange[]): void;
  onProgress(revision: number): void;
  /** The watch ended because its resume revision was compacted: the cacher must list again. */
  onCompacted(compactRevision: number): void;
}

/** What a cacher reads etcd through (an Etcd3Store, or a fake in unit tests). */
export interface CacherSource {
  /** Every key under `prefix` with its object, read at `revision` (0: the current revision). */
  listEntries(prefix: string, revision?: number): Promise<{ entries: [string, KubeObject][]; revision: number }>;
  /**
   * Opens ONE etcd watch on `prefix` from `fromRevision` (inclusive). `requestProgress`, when
   * present, asks etcd for a progress notification on it (answered through `sink.onProgress`).
   */
  watchChanges(prefix: string, fromRevision: number, sink: ChangeSink): { close(): Promise<void>; requestProgress?(): boolean };
  /** Whether progress requests are answered in order with events (the etcd version has the fixes). */
  progressRequestsSafe?(): Promise<boolean>;
  /** See Etcd3Store.countChangesSince; optional. */
  countChangesSince?(prefix: string, afterRevision: number): Promise<{ revision: number; count: number; changedSince: number }>;
  /** The current etcd revision (a linearizable read). */
  currentRevision(): Promise<number>;
}

/** Options of a {@link Cacher}. */
export interface CacherOptions extends WatchCacheOptions {
  /** How long a watch for a revision newer than etcd's waits before TooLargeResourceVersion. Default 3 s. */
  waitTimeoutMs?: number;
  /** How long a most-recent watch waits for the cache before reading its start state from etcd. Default 100 ms. */
  freshWaitMs?: number;
  /** How long a watch waits for the cache's first list. Default 10 s. */
  readyTimeoutMs?: number;
  /** Period of bookmarks to idle watchers that allow them. Default 1 s. */
  bookmarkIntervalMs?: number;
  /** Per-watcher buffer of live events. */
  watcherBufferSize?: number;
  /** How long a watcher may stay over its buffer before it is closed as too slow. */
  slowBudgetMs?: number;
  /** Annotation of the bookmark that ends the initial events of a sendInitialEvents watch. */
  initialEventsEndAnnotation?: string;
  /**
   * Whether a cache that is behind a consistent read asks etcd for a progress notification:
   * 'auto' (default) when the etcd version answers them in order with events, or always / never.
   */
  progressRequests?: 'auto' | 'always' | 'never';
  /** How long a consistent (most recent) list waits for the cache to reach etcd's revision. Default 1 s. */
  consistentReadWaitMs?: number;
  /** Most list snapshots kept for continue tokens. Default 16. */
  maxListSnapshots?: number;
  /** How long an unused list snapshot is kept. Default 30 s. */
  listSnapshotTtlMs?: number;
  /** Receives diagnostics (list failures, dropped watchers). */
  log?: (message: string) => void;
}
