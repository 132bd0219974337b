import {
  validateNamespace,
  validateNamespaceFinalizeUpdate,
  validateNamespaceStatusUpdate,
  validateNamespaceUpdate,
  type KubeObject,
} from '@cluster/apimachinery';
import type { ResourceStrategy, SubresourceStrategy } from '../../../registry/strategy.js';
import { requestedMeta, statusUpdate } from '../../../registry/status-update.js';
import { ageOf } from '../../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating'; conditions?: unknown[] };
}

/** The finalizer that keeps a namespace until its contents are deleted. */
export const NAMESPACE_FINALIZER = 'kubernetes';

/** namespaces/finalize: only spec.finalizers changes (the namespace controller's last step). */
export const namespaceFinalizeStrategy: SubresourceStrategy<Namespace> = {
  merge(requested, current) {
    return { ...current, metadata: requestedMeta(requested, current), spec: { ...current.spec, finalizers: requested.spec?.finalizers ?? [] } };
  },
  validateUpdate: (obj, old) => validateNamespaceFinalizeUpdate(obj, old),
};

/** namespaces/status: only status changes. */
export const namespaceStatusStrategy: SubresourceStrategy<Namespace> = {
  merge(requested, current) {
    return statusUpdate(requested, current);
  },
  validateUpdate: (obj, old) => validateNamespaceStatusUpdate(obj, old),
};

/**
 * Namespace behaviour: cluster-scoped, Active on create with the content finalizer, spec and
 * status changed only through their subresources, Terminating once deletion is requested.
 */
export const namespaceStrategy = {
  namespaceScoped: false,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate(obj: Namespace) {
    const finalizers = new Set(obj.spec?.finalizers ?? []);
    finalizers.add(NAMESPACE_FINALIZER);
    obj.spec = { ...obj.spec, finalizers: [...finalizers] };
    obj.status = { phase: 'Active' };
  },
  prepareForUpdate(obj: Namespace, old: Namespace) {
    obj.spec = old.spec;
    obj.status = old.status;
  },
  validate: (obj: Namespace) => validateNamespace(obj),
  validateUpdate: (obj: Namespace, old: Namespace) => validateNamespaceUpdate(obj, old),
  pendingFinalization: (obj: Namespace) => (obj.spec?.finalizers?.length ?? 0) > 0,
  prepareForDelete(obj: Namespace) {
    obj.status = { ...obj.status, phase: 'Terminating' };
  },
  table: {
    columns: [
      nameColumn,
      { name: 'Status', type: 'string', format: '', description: 'The phase of the namespace.', priority: 0 },
      ageColumn,
    ],
    cells: (obj: Namespace) => [obj.metadata.name ?? '', obj.status?.phase ?? '', ageOf(obj.metadata.creationTimestamp, new Date())],
  },
  selectableFields: (obj: Namespace) => ({ 'status.phase': obj.status?.phase ?? '' }),
  subresources: { finalize: namespaceFinalizeStrategy, status: namespaceStatusStrategy },
} satisfies ResourceStrategy<Namespace>;
