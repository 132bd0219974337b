import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from '@cluster/apimachinery';

/**
 * The finalizers an object should carry once a delete with `propagationPolicy` is asked for, so a
 * garbage collector can finish it: `orphan` (Orphan: dependents lose their owner reference first)
 * or `foregroundDeletion` (Foreground: dependents are deleted first). Without a policy the one a
 * finalizer already names stays; without either, the kind's default decides: Orphan when
 * `defaultOrphan` (core/v1 ReplicationControllers), else Background (no finalizer). Returns the new
 * list, or undefined when nothing changes. Pure.
 * <- k8s.io/apiserver pkg/registry/generic/registry/store.go deletionFinalizersForGarbageCollection
 */
export function garbageCollectionFinalizers(
  finalizers: readonly string[] | undefined,
  propagationPolicy: string | undefined,
  defaultOrphan = false,
): string[] | undefined {
  const current = finalizers ?? [];
  let orphan: boolean;
  let foreground: boolean;
  if (propagationPolicy === 'Orphan' || propagationPolicy === 'Background' || propagationPolicy === 'Foreground') {
    orphan = propagationPolicy === 'Orphan';
    foreground = propagationPolicy === 'Foreground';
  } else {
    // No explicit policy: a finalizer set on the object decides (orphan first, as upstream checks it first).
    orphan = current.includes(FINALIZER_ORPHAN_DEPENDENTS);
    foreground = !orphan && current.includes(FINALIZER_DELETE_DEPENDENTS);
    if (!orphan && !foreground) orphan = defaultOrphan;
  }
  const next = current.filter((f) => f !== FINALIZER_ORPHAN_DEPENDENTS && f !== FINALIZER_DELETE_DEPENDENTS);
  if (orphan) next.push(FINALIZER_ORPHAN_DEPENDENTS);
  if (foreground) next.push(FINALIZER_DELETE_DEPENDENTS);
  const same = next.length === current.length && next.every((f) => current.includes(f)) && current.every((f) => next.includes(f));
  return same ? undefined : next;
}
