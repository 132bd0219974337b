import type { JsonObject, KubeObject } from '../../meta/types.js';
import { newNotMarshalable, newUndecodable, type DecodeErrorContext } from './errors.js';
import { messageFromJson } from './from-json.js';
import { messageType, META_V1, RUNTIME } from './proto-root.js';
import { DEFAULT_API_DOMAIN, protobufMessageFor, type ProtobufCodecOptions } from './registry.js';
import { JsonConversionError, messageToJson } from './to-json.js';

/**
 * The 4 bytes before every Protobuf body: "k8s" and an encoding byte, 0x00 meaning a
 * runtime.Unknown envelope follows (SPEC 2.7).
 */
export const PROTOBUF_MAGIC: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** Options of decodeProtobufObject. */
export interface ProtobufDecodeOptions extends ProtobufCodecOptions {
  /**
   * The kind the handler expects. When given, errors are worded like upstream's create/update
   * handlers ("X in version "v1" cannot be handled as a Y: ..."); the decoded kind is not checked
   * against it.
   */
  expectedKind?: string;
}

interface DecodedUnknown {
  typeMeta?: { apiVersion?: string; kind?: string };
  raw?: Uint8Array;
  contentEncoding?: string;
  contentType?: string;
}

const UNDECLARED_CONTENT_TYPES = new Set(['', 'application/vnd.kubernetes.protobuf', 'application/vnd.cluster.protobuf']);

/** Words protobufjs' reader errors like Go's generated unmarshallers. */
function wireError(e: unknown): string {
  if (e instanceof RangeError) return 'unexpected EOF';
  const message = e instanceof Error ? e.message : String(e);
  const wireType = /invalid wire type (\d+)/.exec(message);
  return wireType ? `proto: illegal wireType ${wireType[1]}` : `proto: ${message}`;
}

function hasMagic(bytes: Uint8Array): boolean {
  return bytes.length >= PROTOBUF_MAGIC.length && PROTOBUF_MAGIC.every((b, i) => bytes[i] === b);
}

/** Go's %#v of runtime.TypeMeta, as upstream puts it in missing kind/version errors. */
function goTypeMeta(apiVersion: string, kind: string): string {
  return `runtime.TypeMeta{APIVersion:${JSON.stringify(apiVersion)}, Kind:${JSON.stringify(kind)}}`;
}

function decodeUnknown(bytes: Uint8Array, ctx: DecodeErrorContext): DecodedUnknown {
  if (bytes.length === 0) throw newUndecodable('empty data', ctx);
  if (!hasMagic(bytes)) {
    throw newUndecodable(
      `provided data does not appear to be a protobuf message, expected prefix [${PROTOBUF_MAGIC.join(' ')}]`,
      ctx,
    );
  }
  if (bytes.length === PROTOBUF_MAGIC.length) throw newUndecodable('empty body', ctx);
  try {
    return messageType(`${RUNTIME}.Unknown`).decode(bytes.subarray(PROTOBUF_MAGIC.length)) as DecodedUnknown;
  } catch (e) {
    throw newUndecodable(wireError(e), ctx);
  }
}

/**
 * Decodes a Protobuf body (magic + runtime.Unknown) into the JSON form the JSON API uses, with
 * `apiVersion` and `kind` taken from the envelope.
 * @throws StatusError 400 BadRequest for a missing prefix, truncated or malformed bytes, a missing
 *   kind/apiVersion, a content encoding, or a kind without a Protobuf form; never another error.
 */
export function decodeProtobufObject(bytes: Uint8Array, options: ProtobufDecodeOptions = {}): KubeObject {
  const ctx: DecodeErrorContext = { body: bytes };
  if (options.expectedKind) ctx.expectedKind = options.expectedKind;
  const unknown = decodeUnknown(bytes, ctx);
  const apiVersion = unknown.typeMeta?.apiVersion ?? '';
  const kind = unknown.typeMeta?.kind ?? '';
  if (!kind) throw newUndecodable(`Object 'Kind' is missing in '${goTypeMeta(apiVersion, kind)}'`, ctx);
  if (!apiVersion) throw newUndecodable(`Object 'apiVersion' is missing in '${goTypeMeta(apiVersion, kind)}'`, ctx);
  ctx.decoded = { apiVersion, kind };
  if (unknown.contentEncoding) {
    throw newUndecodable(`unsupported content encoding ${JSON.stringify(unknown.contentEncoding)}`, ctx);
  }
  if (!UNDECLARED_CONTENT_TYPES.has(unknown.contentType ?? '')) {
    throw newUndecodable(`unsupported embedded content type ${JSON.stringify(unknown.contentType)}`, ctx);
  }
  const fullName = protobufMessageFor(apiVersion, kind, options);
  if (!fullName) {
    throw newUndecodable(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/api/legacyscheme/scheme.go:30"`,
      ctx,
    );
  }
  const type = messageType(fullName);
  try {
    const body = messageToJson(type, type.decode(unknown.raw ?? new Uint8Array()) as Record<string, unknown>);
    // Option kinds such as DeleteOptions have no metadata; callers read them as plain objects.
    return { apiVersion, kind, ...body } as KubeObject;
  } catch (e) {
    throw newUndecodable(e instanceof JsonConversionError ? e.message : wireError(e), ctx);
  }
}

/**
 * Where upstream's single-object DELETE decodes its options: the meta internal scheme, in which
 * DeleteOptions is an unversioned kind, so an envelope naming any group version is accepted (client-go
 * sends the request's own, `v1` or `apps/v1`) and an empty typeMeta defaults to meta/v1.
 */
const META_INTERNAL_SCHEME = 'k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27';

/**
 * Decodes a Protobuf DeleteOptions body (magic + runtime.Unknown + meta/v1 DeleteOptions) into its
 * JSON form, as upstream's delete handlers decode it. The envelope's apiVersion may be that of any
 * group (DeleteOptions is registered in every group version); an empty kind means DeleteOptions.
 * @throws StatusError 400 BadRequest for a missing prefix, malformed or truncated bytes, a content
 *   encoding, or a kind other than DeleteOptions; never another error.
 */
export function decodeProtobufDeleteOptions(bytes: Uint8Array, options: ProtobufCodecOptions = {}): JsonObject {
  const ctx: DecodeErrorContext = { body: bytes };
  const unknown = decodeUnknown(bytes, ctx);
  const apiVersion = unknown.typeMeta?.apiVersion || `meta.${options.apiDomain ?? DEFAULT_API_DOMAIN}/v1`;
  const kind = unknown.typeMeta?.kind || 'DeleteOptions';
  if (kind !== 'DeleteOptions') {
    throw newUndecodable(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ${JSON.stringify(META_INTERNAL_SCHEME)}`,
      ctx,
    );
  }
  if (unknown.contentEncoding) {
    throw newUndecodable(`unsupported content encoding ${JSON.stringify(unknown.contentEncoding)}`, ctx);
  }
  if (!UNDECLARED_CONTENT_TYPES.has(unknown.contentType ?? '')) {
    throw newUndecodable(`unsupported embedded content type ${JSON.stringify(unknown.contentType)}`, ctx);
  }
  const type = messageType(`${META_V1}.DeleteOptions`);
  try {
    return { apiVersion, kind, ...messageToJson(type, type.decode(unknown.raw ?? new Uint8Array()) as Record<string, unknown>) };
  } catch (e) {
    throw newUndecodable(e instanceof JsonConversionError ? e.message : wireError(e), ctx);
  }
}

/** Writes magic + runtime.Unknown{typeMeta, raw, contentEncoding: "", contentType: ""} as upstream does. */
export function wrapInEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const unknownType = messageType(`${RUNTIME}.Unknown`);
  const envelope = unknownType
    .encode(unknownType.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }))
    .finish();
  const out = new Uint8Array(PROTOBUF_MAGIC.length + envelope.length);
  out.set(PROTOBUF_MAGIC, 0);
  out.set(envelope, PROTOBUF_MAGIC.length);
  return out;
}

/**
 * Encodes an object in its JSON form as a Protobuf body (magic + runtime.Unknown), field for field
 * as upstream's generated marshallers write it. Lists and `Status` (apiVersion `v1`) included.
 * @throws StatusError 406 NotAcceptable for a kind without a Protobuf form (e.g. Table);
 *   ProtobufEncodeError for an object that does not fit its message (a server bug).
 */
export function encodeProtobufObject(
  obj: KubeObject | { apiVersion?: string; kind?: string },
  options: ProtobufCodecOptions = {},
): Uint8Array {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const fullName = protobufMessageFor(apiVersion, kind, options);
  if (!fullName) throw newNotMarshalable(apiVersion, kind);
  const type = messageType(fullName);
  const raw = type.encode(type.fromObject(messageFromJson(type, obj))).finish();
  return wrapInEnvelope(apiVersion, kind, raw);
}
