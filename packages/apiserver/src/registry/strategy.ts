import type { FieldErrorList, KubeObject } from '@cluster/apimachinery';
import type { UserInfo } from '../authn/user.js';

/** Who asks for a write, for strategies that record or check the requester (CSR spec.username, RBAC escalation). */
export interface StrategyContext {
  /** Absent only for the server's own writes at start-up. */
  user?: UserInfo;
}

/** A column of a resource's Table output (SPEC 2.6). */
export interface TableColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

/**
 * Per-resource behaviour the generic registry calls, after upstream's RESTCreateStrategy and
 * RESTUpdateStrategy. One stateless object per resource; generic code never branches on kind.
 */
export interface ResourceStrategy<T extends KubeObject = KubeObject> {
  readonly namespaceScoped: boolean;
  /** PUT of a missing object creates it (SPEC 1 "Verbs"). */
  readonly allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion is allowed (last writer wins). */
  readonly allowUnconditionalUpdate: boolean;
  /** Objects expire this long after their last write (upstream's TTLFunc; events, --event-ttl). */
  readonly ttlSeconds?: number;
  /** Clears fields the client may not set on create (status, etc.) and sets defaults. Mutates obj. */
  prepareForCreate(obj: T, ctx: StrategyContext): void;
  /** Carries over fields an update may not change (status, etc.). Mutates obj. */
  prepareForUpdate(obj: T, old: T, ctx: StrategyContext): void;
  validate(obj: T): FieldErrorList;
  validateUpdate(obj: T, old: T): FieldErrorList;
  /** True while something other than metadata.finalizers holds deletion (e.g. namespace spec.finalizers). */
  pendingFinalization?(obj: T): boolean;
  /** Marks state that goes with a requested deletion (e.g. namespace phase Terminating). Mutates obj. */
  prepareForDelete?(obj: T): void;
  /**
   * What a delete with no propagation policy and no collector finalizer on the object does to its
   * dependents (upstream's DefaultGarbageCollectionPolicy): `OrphanDependents` for core/v1
   * ReplicationControllers, kept for compatibility; Background (`DeleteDependents`) when unset.
   */
  readonly defaultGarbageCollectionPolicy?: 'OrphanDependents' | 'DeleteDependents';
  /** Warnings (RFC 7234 Warning header texts) for a create or update. */
  warnings?(obj: T, old?: T): string[];
  /** Field selector values beyond metadata.name and metadata.namespace. */
  selectableFields?(obj: T): Record<string, string>;
  /** Subresources updated through PUT/PATCH on `<object>/<name>` (status, finalize, ...). */
  subresources?: Record<string, SubresourceStrategy<T>>;
  /** Custom Table columns and cells; absent = the default Name / Created At table. */
  table?: {
    columns: TableColumnDefinition[];
    cells(obj: T): unknown[];
  };
}

/** Default selectable fields of every object (upstream's DefaultClusterScopedAttr / NamespaceScopedAttr). */
export function defaultSelectableFields(obj: KubeObject, namespaced: boolean): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
  if (namespaced) fields['metadata.namespace'] = obj.metadata.namespace ?? '';
  return fields;
}

/**
 * How an update through a subresource changes an object: only the part the subresource owns is
 * taken from the request; everything else stays as stored (upstream's status strategies).
 */
export interface SubresourceStrategy<T extends KubeObject = KubeObject> {
  /** Returns the object to store: `current` with the subresource's part taken from `requested`. */
  merge(requested: T, current: T): T;
  validateUpdate(obj: T, old: T): FieldErrorList;
  /**
   * Set when the subresource is served as an object of its own kind (the `scale` subresources
   * serve autoscaling/v1 Scale): GET answers the view, PUT and PATCH change the parent through it.
   * The view's group, version, kind and definition are those of the SubresourceInfo.
   */
  view?: SubresourceView<T>;
}

/** Converts between a stored object and the object a subresource serves (upstream's scale REST). */
export interface SubresourceView<T extends KubeObject = KubeObject> {
  /** The served object, without apiVersion/kind (the handler sets them). */
  toView(parent: T): KubeObject;
  /** A new parent carrying the view's writable part (and its resourceVersion, for preconditions). */
  fromView(view: KubeObject, parent: T): T;
}
