import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import type { UserInfo } from '../authn/user.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  resource: ResourceInfo;
  subresource: string;
  namespace: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  /** The requester; absent for the server's own writes. */
  user?: UserInfo;
  /** The request's `Warning` header texts: admission webhooks add theirs here (absent: dropped). */
  warnings?: string[];
}

/**
 * An admission plugin. `admit` (mutating, optional) may change `attrs.object` in place before the
 * object is validated; `validate` throws a StatusError to reject.
 */
export interface AdmissionPlugin {
  readonly name: string;
  admit?(attrs: AdmissionAttributes): Promise<void>;
  validate(attrs: AdmissionAttributes): Promise<void>;
}

/**
 * Runs the mutating phase in order, as upstream runs mutating admission before validation: its
 * changes are validated like the requester's own (and, as upstream, not recorded as theirs in
 * managedFields).
 */
export async function runMutatingAdmission(plugins: readonly AdmissionPlugin[], attrs: AdmissionAttributes): Promise<void> {
  for (const p of plugins) await p.admit?.(attrs);
}

/** Runs plugins in order; the first rejection wins. */
export async function runAdmission(plugins: readonly AdmissionPlugin[], attrs: AdmissionAttributes): Promise<void> {
  for (const p of plugins) await p.validate(attrs);
}
