import type { JsonObject, KubeList, KubeObject, PatchSchema, StructuredType } from '@cluster/apimachinery';
import type { Predicate, Preconditions, RawItem } from '@cluster/storage';
import type { UserInfo } from '../authn/user.js';
import type { AdmissionReport } from '../admission/admission.js';

/**
 * What the generic registry takes and gives: the options and results of its operations, apart
 * from the implementation (generic-registry.ts).
 */

/** Schema-derived helpers of one kind: strategic-merge metadata and the SSA structured type. */
export interface KindSchemas {
  patchMeta: PatchSchema;
  structured: StructuredType;
  /** All OpenAPI definitions (shared), with this kind at `definitionName`, for field validation. */
  definitions: Record<string, JsonObject>;
  definitionName: string;
}

export interface WriteOptions {
  dryRun: boolean;
  /** Manager recorded in managedFields for this write (SPEC 4.8 rule 2); none: not tracked. */
  fieldManager?: string;
  /** Set by server-side apply, whose transform has already computed managedFields. */
  apply?: boolean;
  /** The requester, handed to strategies and admission (absent for the server's own writes). */
  user?: UserInfo;
  /** Where admission webhooks leave warnings and audit annotations for the answer. */
  report?: AdmissionReport;
  /** Run before an update or patch creates the object (authorizes `create`, SPEC 5.7); throws to refuse. */
  beforeCreate?: () => Promise<void>;
}

export interface ListRequest {
  resourceVersion?: string;
  resourceVersionMatch?: '' | 'Exact' | 'NotOlderThan';
  limit?: number;
  continueToken?: string;
  predicate?: Predicate;
  hasSelector: boolean;
  /** Items may come back as JSON bytes (`rawItems`) when nothing needs them parsed. */
  raw?: boolean;
}

/**
 * A list, with its items possibly as JSON bytes instead of objects (ListRequest.raw); `sharedItems`
 * when the items are the watch cache's unmodifiable objects (ListResult.sharedItems).
 */
export type ListResponse = KubeList & { rawItems?: RawItem[]; sharedItems?: boolean };

export interface DeleteRequest extends WriteOptions {
  preconditions?: Preconditions;
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
}

/** Result of a delete: the removed object, or the object now pending finalization. */
export interface DeleteResult {
  object: KubeObject;
  /** False when the object still exists, marked for deletion until its finalizers are gone. */
  deleted: boolean;
}

/** Builds the new state of an object from the stored one (undefined when absent). */
export type ObjectTransform = (current: KubeObject | undefined) => Promise<KubeObject> | KubeObject;
