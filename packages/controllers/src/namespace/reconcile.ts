import type { KubeObject } from '@cluster/apimachinery';
import type { ApiClient } from '../client/api-client.js';
import type { NamespacedCollection } from './discover.js';

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

export const NAMESPACE_FINALIZER = 'kubernetes';

export type ReconcileResult = 'done' | 'waiting' | 'nothing-to-do';

/**
 * One pass over a namespace being deleted (SPEC 3.1 for namespaces): delete every collection in
 * it; when all are empty, remove the `kubernetes` finalizer through `/finalize`, which lets the
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
    await client.call('DELETE', path);
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
