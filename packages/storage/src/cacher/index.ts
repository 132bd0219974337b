export { CachedStore, resourcePrefixOf, type CachedStoreOptions } from './cached-store.js';
export { Cacher } from './cacher.js';
export type { CacherOptions, CacherSource, ChangeSink } from './cacher-source.js';
export { CacheWatcher, DEFAULT_SLOW_BUDGET_MS, DEFAULT_WATCHER_BUFFER, type CacheWatcherOptions } from './cache-watcher.js';
export {
  WatchCache,
  DEFAULT_MAX_WINDOW_EVENTS,
  DEFAULT_WINDOW_MS,
  type StoreChange,
  type WatchCacheOptions,
} from './watch-cache.js';
export {
  WATCH_EXPIRED_MESSAGE,
  bookmarkEvent,
  errorEvent,
  expiredEvent,
  tooSlowEvent,
  transitionType,
  watchEventFor,
  storedMetadataJsonOf,
  type CacheEvent,
} from './cache-event.js';
export { Held, HeldStore, forgetDecoded, objectOf, sharedStore, storedJsonOf, useSharedStore, type CacheEntry } from './held.js';
export { SharedObjectStore, type SharedStoreOptions, type SharedStoreStats } from './shared-store.js';
