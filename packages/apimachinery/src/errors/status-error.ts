import type { GroupKind, GroupResource, Status, StatusCause, StatusDetails, StatusReason } from '../meta/types.js';
import { fieldErrorBody, fieldErrorMessage, type FieldErrorList } from '../validation/field-error.js';

/**
 * An error that carries an upstream-style Status. Built only through the factories below, which
 * mirror upstream's api/errors package so clients see the same codes, reasons and messages.
 */
export class StatusError extends Error {
  readonly status: Status;
  /** Extra response headers the error implies (for example Retry-After). */
  readonly headers: Record<string, string>;
  constructor(status: Status, headers: Record<string, string> = {}) {
    super(status.message ?? status.reason ?? 'error');
    this.name = 'StatusError';
    this.status = status;
    this.headers = headers;
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): StatusReason | undefined {
    return this.status.reason;
  }
}

function failure(code: number, reason: StatusReason, message: string, details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) s.details = details;
  return s;
}

function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function resourceDetails(gr: GroupResource, name: string): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (gr.group) d.group = gr.group;
  d.kind = gr.resource;
  return d;
}

export function newNotFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(failure(404, 'NotFound', `${qualified(gr)} "${name}" not found`, resourceDetails(gr, name)));
}

export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    failure(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, resourceDetails(gr, name)),
  );
}

export function newConflict(gr: GroupResource, name: string, err: string): StatusError {
  return new StatusError(
    failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${err}`, resourceDetails(gr, name)),
  );
}

/** Conflict of field managers in server-side apply: 409 Conflict with one cause per field. */
export function newApplyConflict(causes: StatusCause[], message: string): StatusError {
  return new StatusError(failure(409, 'Conflict', message, { causes }));
}

export function newInvalid(gk: GroupKind, name: string, errs: FieldErrorList): StatusError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const messages = errs.map(fieldErrorMessage);
  const joined = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  const qualifiedKind = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  const details: StatusDetails = { name, kind: gk.kind, causes };
  if (gk.group) details.group = gk.group;
  if (!name) delete details.name;
  return new StatusError(failure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${joined}`, details));
}

export function newBadRequest(message: string): StatusError {
  return new StatusError(failure(400, 'BadRequest', message));
}

export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  const d: StatusDetails = { kind: gr.resource };
  if (gr.group) d.group = gr.group;
  return new StatusError(
    failure(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${qualified(gr)}"`, d),
  );
}

export function newForbidden(gr: GroupResource, name: string, reason: string): StatusError {
  const what = name ? `${qualified(gr)} "${name}"` : qualified(gr);
  return new StatusError(failure(403, 'Forbidden', `${what} is forbidden: ${reason}`, resourceDetails(gr, name)));
}

export function newUnauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError(failure(401, 'Unauthorized', message));
}

export function newGone(message: string): StatusError {
  return new StatusError(failure(410, 'Gone', message));
}

export function newResourceExpired(message: string): StatusError {
  return new StatusError(failure(410, 'Expired', message));
}

export function newTimeout(message: string, retryAfterSeconds: number): StatusError {
  const details: StatusDetails = retryAfterSeconds > 0 ? { retryAfterSeconds } : {};
  return new StatusError(
    failure(504, 'Timeout', `Timeout: ${message}`, details),
    retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : {},
  );
}

/** SPEC 7 rule 1: a resourceVersion newer than the server knows, after waiting. */
export function newTooLargeResourceVersion(requested: number, current: number, retryAfterSeconds: number): StatusError {
  return new StatusError(
    failure(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds,
    }),
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

export function newInternalError(err: unknown): StatusError {
  const text = err instanceof Error ? err.message : String(err);
  return new StatusError(
    failure(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] }),
  );
}

export function newRequestEntityTooLarge(message: string): StatusError {
  return new StatusError(failure(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`));
}

export function newUnsupportedMediaType(contentType: string, accepted: readonly string[]): StatusError {
  return new StatusError(
    failure(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      { causes: contentType ? [{ message: `unsupported media type ${JSON.stringify(contentType)}` }] : [] },
    ),
  );
}

export function newNotAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError(
    failure(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`),
  );
}

export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(failure(429, 'TooManyRequests', message, { retryAfterSeconds }), {
    'Retry-After': String(retryAfterSeconds),
  });
}

export function newServiceUnavailable(message: string): StatusError {
  return new StatusError(failure(503, 'ServiceUnavailable', message));
}

const hasReason = (reason: StatusReason) => (e: unknown): boolean =>
  e instanceof StatusError && e.status.reason === reason;

export const isNotFound = hasReason('NotFound');
export const isAlreadyExists = hasReason('AlreadyExists');
export const isConflict = hasReason('Conflict');
export const isInvalid = hasReason('Invalid');
export const isBadRequest = hasReason('BadRequest');
export const isForbidden = hasReason('Forbidden');
export const isGone = (e: unknown): boolean => hasReason('Gone')(e) || hasReason('Expired')(e);

/** Success Status, as returned by deletecollection and some deletes (details before code, as upstream writes them). */
export function successStatus(details?: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', ...(details ? { details } : {}), code: 200 };
}

/**
 * Success Status answered by a create that makes no object of its own (pods/binding,
 * pods/eviction): code 201, as upstream's create handler answers it.
 */
export function createdStatus(): Status {
  return { ...successStatus(), code: 201 };
}

/**
 * An error found before a request reaches a resource (its request line, target or transport):
 * the reason follows the code; 505 has no reason of its own upstream, so it is left empty.
 */
export function newRequestError(code: 400 | 404 | 405 | 408 | 413 | 415 | 431 | 505, message: string): StatusError {
  const reasons: Record<number, StatusReason> = {
    400: 'BadRequest',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    408: 'Timeout',
    413: 'RequestEntityTooLarge',
    415: 'UnsupportedMediaType',
    431: 'BadRequest',
    505: '',
  };
  return new StatusError(failure(code, reasons[code] ?? '', message));
}
