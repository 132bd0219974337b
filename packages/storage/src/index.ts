export * from './errors.js';
export * from './interfaces.js';
export { Etcd3Store, parseRevision, rawItemJson } from './etcd3/store.js';
export { newEtcdClient } from './etcd3/client.js';
export { startEtcd, freePort, freePorts, type EtcdProcess, type StartEtcdOptions } from './etcd-process/index.js';
export type { Etcd3StoreOptions, EtcdOperation } from './etcd3/store.js';
export { RawWatch, type RawWatchEvent, type RawWatchHandlers, type RawWatchOptions } from './etcd3/raw-watch.js';
export { Compactor, COMPACT_REV_KEY, DEFAULT_COMPACTION_INTERVAL_MS, type CompactorOptions, type CompactionAttempt } from './etcd3/compactor.js';
export * from './cacher/index.js';
