import { newForbidden, newNotFound, StatusError } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

/** Reads a namespace by name; rejects with NotFound when absent. */
export type NamespaceGetter = (name: string) => Promise<{ status?: { phase?: string }; metadata: { deletionTimestamp?: string | null } }>;

/** How long creates in a namespace this replica saw deleted look the namespace up in etcd (upstream: 30 s). */
const FORCE_LIVE_LOOKUP_MS = 30_000;

const IMMORTAL = new Set(['default', 'cluster-system', 'cluster-public']);

/**
 * Upstream's NamespaceLifecycle admission: objects cannot be created in a namespace that does not
 * exist (404 for the namespace) or is being terminated (403), and built-in namespaces cannot be
 * deleted.
 */
export function namespaceLifecycle(
  getNamespace: NamespaceGetter,
  /** A quorum read, for namespaces this replica saw deleted recently (default: getNamespace). */
  getNamespaceLive: NamespaceGetter = getNamespace,
  now: () => number = Date.now,
): AdmissionPlugin {
  // Upstream's forceLiveLookupCache: right after a namespace delete the cached copy may still say
  // Active, and a create admitted on it would land in a namespace being emptied.
  const recentlyDeleted = new Map<string, number>();
  return {
    name: 'NamespaceLifecycle',
    async validate(a: AdmissionAttributes) {
      const gr = { group: a.resource.group, resource: a.resource.resource };
      if (a.resource.group === '' && a.resource.resource === 'namespaces') {
        if (a.operation === 'DELETE' && IMMORTAL.has(a.name)) {
          throw newForbidden(gr, a.name, 'this namespace may not be deleted');
        }
        if (a.operation === 'DELETE') {
          for (const [name, until] of recentlyDeleted) if (until <= now()) recentlyDeleted.delete(name);
          recentlyDeleted.set(a.name, now() + FORCE_LIVE_LOOKUP_MS);
        }
        return;
      }
      if (a.operation !== 'CREATE' || !a.resource.namespaced || !a.namespace) return;
      const live = (recentlyDeleted.get(a.namespace) ?? 0) > now();
      let ns;
      try {
        ns = await (live ? getNamespaceLive : getNamespace)(a.namespace);
      } catch (e) {
        if (e instanceof StatusError && e.status.reason === 'NotFound') throw newNotFound({ group: '', resource: 'namespaces' }, a.namespace);
        throw e;
      }
      if (ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') {
        throw newForbidden(
          gr,
          a.name,
          `unable to create new content in namespace ${a.namespace} because it is being terminated`,
        );
      }
    },
  };
}
