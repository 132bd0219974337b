import { newForbidden, newNotFound, StatusError } from '@cluster/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

/** Reads a namespace by name; rejects with NotFound when absent. */
export type NamespaceGetter = (name: string) => Promise<{ status?: { phase?: string }; metadata: { deletionTimestamp?: string | null } }>;

const IMMORTAL = new Set(['default', 'cluster-system', 'cluster-public']);

/**
 * Upstream's NamespaceLifecycle admission: objects cannot be created in a namespace that does not
 * exist (404 for the namespace) or is being terminated (403), and built-in namespaces cannot be
 * deleted.
 */
export function namespaceLifecycle(getNamespace: NamespaceGetter): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async validate(a: AdmissionAttributes) {
      const gr = { group: a.resource.group, resource: a.resource.resource };
      if (a.resource.group === '' && a.resource.resource === 'namespaces') {
        if (a.operation === 'DELETE' && IMMORTAL.has(a.name)) {
          throw newForbidden(gr, a.name, 'this namespace may not be deleted');
        }
        return;
      }
      if (a.operation !== 'CREATE' || !a.resource.namespaced || !a.namespace) return;
      let ns;
      try {
        ns = await getNamespace(a.namespace);
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
