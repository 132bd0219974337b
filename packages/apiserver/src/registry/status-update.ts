import type { KubeObject, ObjectMeta } from '@cluster/apimachinery';

/**
 * The metadata an update through a status-like subresource stores, as upstream's status
 * strategies keep it: the request's own (labels, annotations, finalizers, ... go through, since
 * their PrepareForUpdate copies only the spec back), except for the fields in `keep`, which stay
 * as stored (a Deployment's labels, a Pod's owner references). The fields no update may change
 * (uid, creationTimestamp, ...) were already carried over by the registry.
 */
export function requestedMeta(requested: KubeObject, current: KubeObject, keep: readonly (keyof ObjectMeta)[] = []): ObjectMeta {
  const meta: Record<string, unknown> = { ...requested.metadata };
  const stored = current.metadata as Record<string, unknown>;
  for (const field of keep) {
    if (stored[field] === undefined) delete meta[field];
    else meta[field] = stored[field];
  }
  return meta as ObjectMeta;
}

/**
 * The object a `status` update stores: the stored object with the requested status and metadata
 * (upstream's `newObj.Spec = oldObj.Spec`); `keep` as for requestedMeta.
 */
export function statusUpdate<T extends KubeObject & { status?: unknown }>(requested: T, current: T, keep: readonly (keyof ObjectMeta)[] = []): T {
  return { ...current, metadata: requestedMeta(requested, current, keep), status: requested.status ?? {} };
}
