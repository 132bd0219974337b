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

/** What was being read when a revision turned out to be compacted. */
export type ReadContext = 'get' | 'list' | 'continue' | 'watch';

function expiredMessage(context: ReadContext, storageMessage: string): string {
  switch (context) {
    case 'continue':
      return EXPIRED_CONTINUE_MESSAGE;
    case 'watch':
      return storageMessage.startsWith('too old resource version') ? storageMessage : 'The resourceVersion for the provided watch is too old.';
    default:
      return 'The resourceVersion for the provided list is too old.';
  }
}

/**
 * Turns a StorageError into the Status error a client expects for this resource and name, after
 * upstream's storage/errors interpret*Error. Other errors pass through unchanged.
 */
export function interpretStorageError(
  e: unknown,
  gr: GroupResource,
  name: string,
  requestedRv = 0,
  context: ReadContext = 'get',
): unknown {
  if (!isStorageError(e)) return e;
  switch (e.code) {
    case 'KeyNotFound':
      return newNotFound(gr, name);
    case 'KeyExists':
      return newAlreadyExists(gr, name);
    case 'ResourceVersionConflicts':
      return newConflict(gr, name, e.message);
    case 'Compacted': {
      const expired = newResourceExpired(expiredMessage(context, e.message));
      if (e.continueToken) expired.status.metadata.continue = e.continueToken;
      return expired;
    }
    case 'InvalidContinue':
      return newBadRequest(`invalid continue token: ${e.message}`);
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
