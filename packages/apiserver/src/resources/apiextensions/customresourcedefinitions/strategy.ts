import {
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionUpdate,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type CustomResourceDefinition,
} from '@cluster/apimachinery';
import type { ResourceStrategy, SubresourceStrategy } from '../../../registry/strategy.js';
import { jsonEqual } from './json-equal.js';
import { statusUpdate } from '../../../registry/status-update.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';

const metaOptions = { namespaced: false, nameValidator: 'subdomain' as const };

/** The finalizer that keeps a CRD until its objects are deleted (upstream's customresourcecleanup). */
export function crdCleanupFinalizer(apiDomain: string): string {
  return `customresourcecleanup.apiextensions.${apiDomain}`;
}

/**
 * Upstream's v1 defaulting: singular is the lower-case kind, listKind kind + "List", conversion
 * None. Mutates crd.
 */
function defaultSpec(crd: CustomResourceDefinition): void {
  if (crd.spec) crd.spec.conversion ??= { strategy: 'None' };
  const names = crd.spec?.names;
  if (!names?.kind) return;
  if (!names.singular) names.singular = names.kind.toLowerCase();
  if (!names.listKind) names.listKind = `${names.kind}List`;
}

/** The stored object as upstream reads it (defaulted on decode), for comparing specs. */
function defaulted(crd: CustomResourceDefinition): CustomResourceDefinition {
  const copy = structuredClone(crd);
  defaultSpec(copy);
  return copy;
}

/** The storage version joins status.storedVersions (objects may now exist in it). Mutates crd. */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = crd.spec?.versions?.find((v) => v.storage)?.name;
  if (!storage) return;
  const status = (crd.status ??= {});
  const stored = status.storedVersions ?? [];
  if (!stored.includes(storage)) status.storedVersions = [...stored, storage];
}

/** Whether the spec differs (field order aside: a request converted from v1beta1 orders them its own way). */
const specChanged = (a: CustomResourceDefinition, b: CustomResourceDefinition) => !jsonEqual(a.spec, b.spec);

/**
 * CustomResourceDefinition behaviour (apiextensions/v1): cluster-scoped; names and conversion defaulted; the
 * cleanup finalizer added on create; status (conditions, accepted names) written only by the
 * server's CRD controllers through `status`; group and scope immutable.
 */
export function crdStrategy(apiDomain: string) {
  const finalizer = crdCleanupFinalizer(apiDomain);
  const status: SubresourceStrategy<CustomResourceDefinition> = {
    merge(requested, current) {
      // Finalizers go through; labels, annotations and owners stay (upstream's CRD status strategy).
      const next = statusUpdate(requested, current, ['labels', 'annotations', 'ownerReferences']);
      recordStorageVersion(next);
      return next;
    },
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions), ...validateCustomResourceDefinitionUpdate(obj, old)],
  };
  return {
    namespaceScoped: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    prepareForCreate(obj: CustomResourceDefinition) {
      obj.status = {};
      obj.metadata.generation = 1;
      defaultSpec(obj);
      recordStorageVersion(obj);
      const finalizers = obj.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) obj.metadata.finalizers = [...finalizers, finalizer];
    },
    prepareForUpdate(obj: CustomResourceDefinition, old: CustomResourceDefinition) {
      obj.status = old.status ? structuredClone(old.status) : {};
      defaultSpec(obj);
      obj.metadata.generation = (old.metadata.generation ?? 1) + (specChanged(obj, defaulted(old)) ? 1 : 0);
      recordStorageVersion(obj);
    },
    validate: (obj: CustomResourceDefinition) => [...validateObjectMeta(obj.metadata, metaOptions), ...validateCustomResourceDefinition(obj)],
    validateUpdate: (obj: CustomResourceDefinition, old: CustomResourceDefinition) => [
      ...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions),
      ...validateCustomResourceDefinitionUpdate(obj, old),
    ],
    subresources: { status },
    table: {
      columns: [nameColumn, { ...ageColumn, name: 'Created At', type: 'date' as const }],
      cells: (obj: CustomResourceDefinition) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? null],
    },
  } satisfies ResourceStrategy<CustomResourceDefinition>;
}
