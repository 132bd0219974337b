import {
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInternalError,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServiceUnavailable,
  newTooLargeResourceVersion,
  type GroupResource,
} from '@cluster/apimachinery';
import { isStorageError } from '@cluster/storage';

/** Upstream's message for a continue token whose revision was compacted. */
export const EXPIRED_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * Turns a StorageError into the Status error a client expects for this resource and name, after
 * upstream's storage/errors interpret*Error. Other errors pass through unchanged.
 */
export function interpretStorageError(e: unknown, gr: GroupResource, name: string, requestedRv = 0): unknown {
  if (isStorageError(e, 'Compacted') && name === '' && requestedRv > 0 && !e.message.includes('continue')) {
    // A list or watch from a revision older than what is kept, as upstream words it.
    return newResourceExpired(`too old resource version: ${requestedRv} (${e.currentRevision ?? 0})`);
  }
  if (!isStorageError(e)) return e;
  switch (e.code) {
    case 'KeyNotFound':
      return newNotFound(gr, name);
    case 'KeyExists':
      return newAlreadyExists(gr, name);
    case 'ResourceVersionConflicts':
      return newConflict(gr, name, e.message);
    case 'Compacted':
      return newResourceExpired(EXPIRED_CONTINUE_MESSAGE);
    case 'InvalidContinue':
      return newBadRequest(e.message);
    case 'TooLargeResourceVersion':
      return newTooLargeResourceVersion(requestedRv, e.currentRevision ?? 0, 1);
    case 'RequestTooLarge':
      return newRequestEntityTooLarge('limit is 1572864');
    case 'UnreachableEtcd':
      return newServiceUnavailable(e.message);
    case 'InvalidError':
      return newBadRequest(e.message);
    default:
      return newInternalError(e);
  }
}
