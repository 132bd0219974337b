import type { KubeObject } from '@cluster/apimachinery';
import { StorageError } from '../errors.js';
import type { Preconditions } from '../interfaces.js';

/** Refuses a write whose current object does not have the uid or resourceVersion the caller required (409). */
export function checkPreconditions(key: string, obj: KubeObject, pre: Preconditions | undefined): void {
  if (!pre) return;
  if (pre.uid && obj.metadata.uid !== pre.uid) {
    throw new StorageError(
      'ResourceVersionConflicts',
      key,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid ?? ''}`,
    );
  }
  if (pre.resourceVersion && obj.metadata.resourceVersion !== pre.resourceVersion) {
    throw new StorageError(
      'ResourceVersionConflicts',
      key,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion ?? ''}`,
    );
  }
}
