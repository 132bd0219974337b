import { StatusError } from '../errors/status-error.js';

/**
 * 422 as upstream's `NewGenericServerResponse(422, ...)` builds it for a JSON patch that cannot be
 * applied: reason Invalid, a fixed message, empty details. The specific cause is not part of the
 * response upstream; it is kept as the error's `cause` for logs only.
 */
export function newPatchUnprocessable(cause: string): StatusError {
  const err = new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server rejected our request due to an error in our request',
    reason: 'Invalid',
    details: {},
    code: 422,
  });
  err.cause = new Error(cause);
  return err;
}
