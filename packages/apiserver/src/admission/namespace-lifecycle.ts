import { newForbidden, newNotFound, StatusError } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

/** What the plugin reads of a namespace. */
type NamespaceLike = { status?: { phase?: string }; metadata: { deletionTimestamp?: string | null } };

/** Reads a namespace by name; rejects with NotFound when absent. */
export type NamespaceGetter = (name: string) => Promise<NamespaceLike>;

/**
 * The namespace as `getNamespace` would find it in a cache, without a promise; undefined when
 * that takes more (not cached, no ready cache): then `getNamespace` is called.
 */
export type NamespacePeek = (name: string) => NamespaceLike | undefined;

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
  /** A cache answering most lookups of `getNamespace` at once (a create then costs no promise). */
  peekNamespace?: NamespacePeek,
): AdmissionPlugin {
  // Upstream's forceLiveLookupCache: right after a namespace delete the cached copy may still say
  // Active, and a create admitted on it would land in a namespace being emptied.
  const recentlyDeleted = new Map<string, number>();
  const terminating = (a: AdmissionAttributes): StatusError =>
    newForbidden(
      { group: a.resource.group, resource: a.resource.resource },
      a.name,
      `unable to create new content in namespace ${a.namespace} because it is being terminated`,
    );
  const checkNamespace = async (a: AdmissionAttributes, live: boolean): Promise<void> => {
    let ns;
    try {
      ns = await (live ? getNamespaceLive : getNamespace)(a.namespace);
    } catch (e) {
      if (e instanceof StatusError && e.status.reason === 'NotFound') throw newNotFound({ group: '', resource: 'namespaces' }, a.namespace);
      throw e;
    }
    if (ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') throw terminating(a);
  };
  return {
    name: 'NamespaceLifecycle',
    // Not an async function: a create in a namespace the cache holds is decided at once.
    validate(a: AdmissionAttributes) {
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
      const live = recentlyDeleted.size > 0 && (recentlyDeleted.get(a.namespace) ?? 0) > now();
      const cached = live ? undefined : peekNamespace?.(a.namespace);
      if (!cached) return checkNamespace(a, live);
      if (cached.metadata.deletionTimestamp || cached.status?.phase === 'Terminating') throw terminating(a);
    },
  };
}
