import { newBadRequest, StatusError } from '../../errors/status-error.js';

/** What the decoder knows when it fails, to word the error as upstream's handlers do. */
export interface DecodeErrorContext {
  /** The raw request body. */
  body: Uint8Array;
  /** Kind the handler expects (the resource's kind), when the caller passed it. */
  expectedKind?: string;
  /** apiVersion/kind read from the envelope, once they are known. */
  decoded?: { apiVersion: string; kind: string };
}

/** Upstream's summarizeData: the first 30 bytes, as text for JSON-looking data, else hex. */
function summarize(body: Uint8Array, max = 30): string {
  if (body.length === 0) return '<empty>';
  const head = Buffer.from(body.subarray(0, max));
  const more = body.length > max ? ' ...' : '';
  return body[0] === 0x7b ? `${head.toString('utf8')}${more}` : `${head.toString('hex')}${more}`;
}

function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

/**
 * A 400 BadRequest for a body that cannot be decoded. Without an expected kind the message is the
 * decoder's own error; with one it is worded like upstream's transformDecodeError in the create and
 * update handlers.
 */
export function newUndecodable(cause: string, ctx: DecodeErrorContext): StatusError {
  if (!ctx.expectedKind) return newBadRequest(cause);
  if (ctx.decoded?.kind) {
    return newBadRequest(
      `${ctx.decoded.kind} in version ${JSON.stringify(versionOf(ctx.decoded.apiVersion))} cannot be handled as a ${ctx.expectedKind}: ${cause}`,
    );
  }
  return newBadRequest(
    `the object provided is unrecognized (must be of type ${ctx.expectedKind}): ${cause} (${summarize(ctx.body)})`,
  );
}

/**
 * 406 NotAcceptable for an object without a Protobuf form (Table, custom resources), with the
 * message of upstream's errNotMarshalable. Mirrors that upstream Status-carrying error, which
 * status-error.ts has no factory for.
 */
export function newNotMarshalable(apiVersion: string, kind: string): StatusError {
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `object *${versionOf(apiVersion) || 'unknown'}.${kind || 'Unknown'} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`,
    reason: 'NotAcceptable',
    code: 406,
  });
}
