import { newConflict, QuotaRegistry, StatusError, type KubeObject, type ResourceQuotaObject } from '@cluster/apimachinery';
import type { AdmissionAttributes } from './admission.js';
import { resourceQuotaAdmission, type QuotaAccess } from './resource-quota.js';

/** Quotas in memory with etcd's compare-and-swap on resourceVersion; every read and write is async. */
class FakeQuotas {
  rv = 10;
  writes = 0;
  conflicts = 0;
  readonly items = new Map<string, ResourceQuotaObject>();
  add(name: string, hard: Record<string, string>, used: Record<string, string>): void {
    this.items.set(name, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'ns', resourceVersion: String(++this.rv) }, spec: { hard }, status: { hard, used } });
  }
  access(): QuotaAccess {
    const read = async () => {
      await new Promise((r) => setImmediate(r));
      return [...this.items.values()].map((q) => structuredClone(q));
    };
    return {
      cached: read,
      current: read,
      updateStatus: async (rq) => {
        await new Promise((r) => setImmediate(r));
        const name = rq.metadata.name!;
        const have = this.items.get(name)!;
        if (have.metadata.resourceVersion !== rq.metadata.resourceVersion) {
          this.conflicts++;
          throw newConflict({ group: '', resource: 'resourcequotas' }, name, 'the object has been modified; please apply your changes to the latest version and try again');
        }
        this.writes++;
        this.items.set(name, { ...structuredClone(rq), metadata: { ...rq.metadata, resourceVersion: String(++this.rv) } });
      },
    };
  }
}

const attrs = (name: string, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  resource: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' } as AdmissionAttributes['resource'],
  subresource: '',
  namespace: 'ns',
  name,
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } } as KubeObject,
  dryRun: false,
  ...extra,
});

const outcome = (p: Promise<void> | void) =>
  Promise.resolve(p).then(
    () => 'admitted',
    (e: StatusError) => `${e.status.code} ${e.status.message}`,
  );

describe('ResourceQuota admission', () => {
  const registry = new QuotaRegistry('k8s.io');

  test('50 concurrent creates through two replicas against a quota of 10: exactly 10 admitted, 10 charged', async () => {
    const store = new FakeQuotas();
    store.add('q', { configmaps: '10' }, { configmaps: '0' });
    const replicas = [resourceQuotaAdmission(store.access(), registry), resourceQuotaAdmission(store.access(), registry)];
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => outcome(replicas[i % 2]!.validate(attrs(`c${i}`)))));
    expect(results.filter((r) => r === 'admitted')).toHaveLength(10);
    const refused = results.filter((r) => r !== 'admitted');
    expect(new Set(refused.map((r) => r.replace(/"c\d+"/, '"x"')))).toEqual(
      new Set(['403 configmaps "x" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=10, limited: configmaps=10']),
    );
    expect(store.items.get('q')!.status!.used).toEqual({ configmaps: '10' });
    // Batched: far fewer writes than admitted requests would need one by one, plus the conflicts between replicas.
    expect(store.writes).toBeLessThanOrEqual(10);
  });

  test('dry run: checked, refused when over, never charged', async () => {
    const store = new FakeQuotas();
    store.add('q', { configmaps: '1' }, { configmaps: '0' });
    const plugin = resourceQuotaAdmission(store.access(), registry);
    await expect(outcome(plugin.validate(attrs('a', { dryRun: true })))).resolves.toBe('admitted');
    expect(store.writes).toBe(0);
    store.add('q', { configmaps: '1' }, { configmaps: '1' });
    await expect(outcome(plugin.validate(attrs('b', { dryRun: true })))).resolves.toBe(
      '403 configmaps "b" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=1, limited: configmaps=1',
    );
  });

  test('subresources, cluster-scoped objects, ignored kinds and namespaces without quota pass untouched', async () => {
    const store = new FakeQuotas();
    store.add('q', { configmaps: '0', 'count/events': '0' }, { configmaps: '0', 'count/events': '0' });
    const plugin = resourceQuotaAdmission(store.access(), registry);
    await expect(outcome(plugin.validate(attrs('a', { subresource: 'status' })))).resolves.toBe('admitted');
    await expect(outcome(plugin.validate(attrs('a', { namespace: '' })))).resolves.toBe('admitted');
    await expect(outcome(plugin.validate(attrs('a', { resource: { group: '', version: 'v1', resource: 'events', kind: 'Event' } as AdmissionAttributes['resource'] })))).resolves.toBe('admitted');
    await expect(outcome(plugin.validate(attrs('a', { operation: 'DELETE' })))).resolves.toBe('admitted');
    const empty = resourceQuotaAdmission({ ...store.access(), cached: async () => [], current: () => Promise.reject(new Error('must not be read')) }, registry);
    await expect(outcome(empty.validate(attrs('a')))).resolves.toBe('admitted');
  });

  test('a namespace the cache shows without quotas is admitted at once (no promise, nothing read); one with quotas is charged as before', async () => {
    const unread = () => Promise.reject(new Error('must not be read'));
    const none = resourceQuotaAdmission({ cached: unread, cachedNow: () => [], current: unread, updateStatus: unread }, registry);
    expect(none.validate(attrs('a'))).toBeUndefined();
    const store = new FakeQuotas();
    store.add('q', { configmaps: '1' }, { configmaps: '1' });
    const full = resourceQuotaAdmission({ ...store.access(), cachedNow: () => [...store.items.values()] }, registry);
    await expect(outcome(full.validate(attrs('a')))).resolves.toMatch(/^403 configmaps "a" is forbidden: exceeded quota: q/);
    // A cache that cannot say sends the request the usual way.
    const unknown = resourceQuotaAdmission({ ...store.access(), cachedNow: () => undefined }, registry);
    await expect(outcome(unknown.validate(attrs('b')))).resolves.toMatch(/^403 /);
    expect(store.writes).toBe(0);
  });

  test('a quota that keeps changing under every write: the conflict is answered once retries run out', async () => {
    const store = new FakeQuotas();
    store.add('q', { configmaps: '10' }, { configmaps: '0' });
    const base = store.access();
    const racing: QuotaAccess = {
      ...base,
      // Someone else writes the quota between every read and our write.
      current: async (ns) => {
        const got = await base.current(ns);
        store.add('q', { configmaps: '10' }, { configmaps: '0' });
        return got;
      },
    };
    const plugin = resourceQuotaAdmission(racing, registry, { retries: 2 });
    await expect(outcome(plugin.validate(attrs('a')))).resolves.toMatch(/^409 Operation cannot be fulfilled on resourcequotas "q"/);
    expect(store.conflicts).toBe(3);
  });
});
