import { Gauge, type Registry } from 'prom-client';
import { KeyedHistogram, seriesKey } from '@cluster/apiserver';
import { resourcePrefixOf, type EtcdOperation } from '@cluster/storage';

/**
 * Upstream's `resource` label of a storage prefix `/registry/<group>/<resource>/`: the resource
 * for the core group ("configmaps"), `<resource>.<group>` for the others ("deployments.apps");
 * undefined for anything else.
 */
export function storageResourceLabel(prefix: string): string | undefined {
  const m = /^\/registry\/([^/]+)\/([^/]+)\/$/.exec(prefix);
  if (!m) return undefined;
  const [, group, resource] = m;
  return group === 'core' ? resource : `${resource}.${group}`;
}

/**
 * `apiserver_storage_objects{resource}` (a stable upstream metric): the number of stored objects
 * of each resource. Upstream counts in etcd once a minute; here the watch caches hold every
 * object, so the figure is read from them at each scrape (resources whose cache is not filled
 * yet are left out).
 */
export function registerStorageObjectsGauge(registry: Registry, counts: () => Map<string, number>): Gauge<'resource'> {
  return new Gauge({
    name: 'apiserver_storage_objects',
    help: 'Number of stored objects at the time of last check split by kind.',
    labelNames: ['resource'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [prefix, n] of counts()) {
        const resource = storageResourceLabel(prefix);
        if (resource) this.set({ resource }, n);
      }
    },
  });
}

/** Upstream's buckets of etcd_request_duration_seconds, in seconds. */
const ETCD_REQUEST_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/**
 * `etcd_request_duration_seconds{operation,type}` as upstream: the latency of each etcd request
 * the store makes for a resource (`type` labelled like apiserver_storage_objects). Returns the
 * observer to hand to the store (Etcd3StoreOptions.observeRequest); requests for keys outside a
 * resource (the health probe) are not counted.
 */
export function registerEtcdRequestHistogram(registry: Registry): (operation: EtcdOperation, key: string, seconds: number) => void {
  // Keyed (see KeyedHistogram): prom-client's Histogram hashes the label object on every observe.
  const histogram = new KeyedHistogram('etcd_request_duration_seconds', 'Etcd request latency in seconds for each operation and object type.', ETCD_REQUEST_BUCKETS, registry);
  // Every etcd request passes here: each resource's label is worked out once.
  const labels = new Map<string, string | undefined>();
  return (operation, key, seconds) => {
    const prefix = resourcePrefixOf(key);
    if (prefix === undefined) return;
    let type = labels.get(prefix);
    if (type === undefined && !labels.has(prefix)) labels.set(prefix, (type = storageResourceLabel(prefix)));
    if (type) histogram.observe(seriesKey([operation, type]), () => ({ operation, type }), seconds);
  };
}
