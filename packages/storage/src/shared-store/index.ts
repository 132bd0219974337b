// The watch caches' shared store alone (no etcd client), for a replica's main thread, which makes
// the buffer its worker threads share and loads none of the server.
export { SharedObjectStore, type SharedStoreOptions, type SharedStoreStats } from '../cacher/shared-store.js';
