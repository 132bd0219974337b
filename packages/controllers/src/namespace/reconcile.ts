import type { KubeObject } from '@cluster/apimachinery';
import { ApiError, type ApiClient } from '../client/api-client.js';
import type { NamespacedCollection } from './discover.js';

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

export const NAMESPACE_FINALIZER = 'kubernetes';

export type ReconcileResult = 'done' | 'waiting' | 'nothing-to-do';

const BACKGROUND = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' };

/**
 * One pass over a namespace being deleted (SPEC 3.1 for namespaces): delete every collection in
 * it, with Background propagation as upstream's namespace deleter (dependents elsewhere are the
 * garbage collector's; an `orphan` or `foregroundDeletion` finalizer left on an object is dropped;
 * other finalizers hold their objects and the namespace waits); when all are empty, remove the `kubernetes` finalizer through `/finalize`, which lets the
 * server remove the namespace. Objects held by their own finalizers keep it waiting.
 */
export async function reconcileNamespace(
  client: ApiClient,
  ns: Namespace,
  collections: readonly NamespacedCollection[],
): Promise<ReconcileResult> {
  const name = ns.metadata.name ?? '';
  if (!ns.metadata.deletionTimestamp || !(ns.spec?.finalizers ?? []).includes(NAMESPACE_FINALIZER)) return 'nothing-to-do';
  let remaining = 0;
  for (const c of collections) {
    const path = `${c.groupVersionPath}/namespaces/${encodeURIComponent(name)}/${c.resource}`;
    if (c.deleteCollection) {
      await client.call('DELETE', path, BACKGROUND);
    } else {
      for (const item of (await client.list(path)).items) {
        if (item.metadata.deletionTimestamp) continue;
        await client.call('DELETE', `${path}/${encodeURIComponent(item.metadata.name ?? '')}`, BACKGROUND).catch((e: unknown) => {
          if (!(e instanceof ApiError && e.code === 404)) throw e;
        });
      }
    }
    const left = await client.list(path);
    remaining += left.items.length;
  }
  if (remaining > 0) return 'waiting';
  const finalizers = (ns.spec?.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
  await client.update(`/api/v1/namespaces/${encodeURIComponent(name)}/finalize`, {
    ...ns,
    spec: { ...ns.spec, finalizers },
  });
  return 'done';
}
