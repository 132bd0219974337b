import { Gauge, type Registry } from 'prom-client';

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
