import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { CachedStore, Compactor, Etcd3Store, EtcdKvClient, EtcdWatchClient, newEtcdClient, RecentWrites } from '@cluster/storage';
import type { ServerOptions } from './flags.js';
import type { ResolvedGates } from './feature-gates.js';
import { registerEtcdRequestHistogram, registerStorageObjectsGauge } from './storage-metrics.js';

/** The storage stage of a replica: the cached store over etcd, and the compactor when this process runs it. */
export interface Storage {
  store: CachedStore;
  /** The etcd client URLs the store talks to (componentstatuses checks each). */
  endpoints: readonly string[];
  stop(): Promise<void>;
}

/**
 * Connects to etcd at `endpoints` and builds the watch-cached store, with its metrics in `metrics`;
 * starts etcd compaction when `runsCompaction` (one process of a replica) and the interval is set.
 */
export function buildStorage(opts: ServerOptions, gates: ResolvedGates, endpoints: string[], metrics: Registry, logger: Logger, runsCompaction: boolean): Storage {
  const client = newEtcdClient(endpoints);
  const etcdWatches = new Gauge({
    name: 'apiserver_storage_etcd_watches',
    help: 'Number of etcd watch streams this replica holds (one per cached resource).',
    registers: [metrics],
  });
  // Upstream's gate (on by default): most-recent lists and their pages from the watch cache once
  // shown current; off: from etcd. Progress requests only where etcd orders their answers.
  const consistentListFromCache = gates.enabled['ConsistentListFromCache']!;
  // Ours (on by default): most-recent gets from the watch cache the same way; off: from etcd.
  const consistentGetFromCache = gates.enabled['ConsistentGetFromCache']!;
  // Ranges and transactions go through the lean KV client, each store on a connection of its own
  // (the cache's lists must not queue behind writes); so do watches (the cache's feeds on a
  // connection of their own, events must not wait behind lists). Leases and compaction stay on
  // the etcd3 clients.
  // The cache's event of a write made here reuses the written object (see RecentWrites).
  const recentWrites = new RecentWrites();
  const store = new CachedStore(
    new Etcd3Store(client, {
      kv: new EtcdKvClient(endpoints),
      watch: new EtcdWatchClient(new EtcdKvClient(endpoints)),
      recentWrites,
      observeRequest: registerEtcdRequestHistogram(metrics),
    }),
    {
      cacheSource: new Etcd3Store(newEtcdClient(endpoints), { kv: new EtcdKvClient(endpoints), watch: new EtcdWatchClient(new EtcdKvClient(endpoints)), recentWrites }),
      windowMs: opts.watchCacheHistory,
      consistentListFromCache,
      consistentGetFromCache,
      progressRequests: consistentListFromCache || consistentGetFromCache ? 'auto' : 'never',
      log: (message) => logger.info({ component: 'watch-cache' }, message),
      onEtcdWatchCountChange: (delta) => etcdWatches.inc(delta),
    },
  );
  new Gauge({
    name: 'apiserver_watch_cache_watchers',
    help: 'Number of client watches served from the watch cache.',
    registers: [metrics],
    collect() {
      this.set(store.watcherCount);
    },
  });
  registerStorageObjectsGauge(metrics, () => store.cachedObjectCounts);
  const compactor = runsCompaction && opts.etcdCompactionInterval > 0 ? new Compactor(client, { intervalMs: opts.etcdCompactionInterval }) : undefined;
  compactor?.start();
  return {
    store,
    endpoints,
    stop: async () => {
      await compactor?.stop();
      await store.close();
    },
  };
}
