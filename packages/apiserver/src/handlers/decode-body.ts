import {
  decodeWithFieldValidation,
  isJsonObject,
  JsonSyntaxError,
  newBadRequest,
  parseJsonStrict,
  newUnsupportedMediaType,
  type KubeObject,
} from '@cluster/apimachinery';
import { isProtobuf, JSON_TYPE, mediaTypeSyntaxError, parseMediaType, PROTOBUF_ALIAS, PROTOBUF_TYPE, YAML_TYPE } from '../negotiation/media-type.js';
import type { FieldValidation } from './options.js';
import type { RequestScope } from './scope.js';

const BODY_TYPES = [JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE, PROTOBUF_ALIAS];

/**
 * Parses JSON text into a value, as a 400 with Go's scanner message when malformed (never V8's,
 * which quotes the body's text, a Secret's value included).
 */
export function parseJsonBody(text: string): unknown {
  try {
    return parseJsonStrict(text).value;
  } catch (e) {
    const why = e instanceof JsonSyntaxError ? e.message : 'invalid JSON';
    throw newBadRequest(`couldn't get version/kind; json parse error: ${why}`);
  }
}

/**
 * The media type of a request body. A Content-Type that is not a media type at all (malformed
 * parameters) is 415 as upstream answers it, never read as the default type.
 */
export function requestMediaType(contentType: string | undefined, fallback: string, accepted: readonly string[]): string {
  if (contentType === undefined || contentType === '') return fallback;
  const problem = mediaTypeSyntaxError(contentType);
  if (problem) {
    const err = newUnsupportedMediaType(contentType, accepted);
    err.status.details = { causes: [{ message: `${problem}: ${JSON.stringify(contentType)}` }] };
    throw err;
  }
  return parseMediaType(contentType).type || fallback;
}

/** A decoded request object and the field-validation warnings it produced (SPEC 4.7). */
export interface DecodedBody {
  object: KubeObject;
  warnings: string[];
}

/**
 * Decodes a create/update body by Content-Type (JSON, YAML or Protobuf) against the kind's
 * schema: wrong value types are 400, unknown and duplicate fields are dropped and, per
 * fieldValidation, ignored, warned about, or refused with 400 (Strict). Checks the kind and
 * apiVersion (empty ones are defaulted).
 */
export function decodeObjectBody(
  scope: RequestScope,
  expectedKind: string,
  expectedApiVersion: string,
  fieldValidation: FieldValidation = 'Warn',
  /** OpenAPI definition of the body's kind when it is not the resource's own (subresource kinds). */
  definitionName?: string,
  /** Other apiVersions of the same kind and shape also accepted, served as `expectedApiVersion` (pods/eviction takes policy/v1beta1). */
  alsoAccepted: readonly string[] = [],
): DecodedBody {
  const body = scope.body;
  if (!body || body.length === 0) throw newBadRequest('the body of the request was empty');
  const media = requestMediaType(scope.contentType, JSON_TYPE, scope.protobuf ? BODY_TYPES : [JSON_TYPE, YAML_TYPE]);
  if (isProtobuf(media) && scope.protobuf) {
    return { object: checkObjectShape(scope.protobuf.decode(body), expectedKind, expectedApiVersion, alsoAccepted), warnings: [] };
  }
  if (media !== JSON_TYPE && media !== YAML_TYPE) {
    throw newUnsupportedMediaType(media, scope.protobuf ? BODY_TYPES : [JSON_TYPE, YAML_TYPE]);
  }
  const schemas = scope.registry.schemas;
  const text = body.toString('utf8');
  if (!schemas) {
    return { object: checkObjectShape(parseJsonBody(text), expectedKind, expectedApiVersion, alsoAccepted), warnings: [] };
  }
  const version = expectedApiVersion.includes('/') ? expectedApiVersion.slice(expectedApiVersion.indexOf('/') + 1) : expectedApiVersion;
  const decoded = decodeWithFieldValidation(
    text,
    media === YAML_TYPE ? 'yaml' : 'json',
    schemas.definitions,
    definitionName ?? schemas.definitionName,
    expectedKind,
    fieldValidation,
    version,
  );
  return { object: checkObjectShape(decoded.object, expectedKind, expectedApiVersion, alsoAccepted), warnings: decoded.warnings };
}

/** Upstream decodes into the typed object: wrong kinds, versions or shapes are 400 BadRequest. */
export function checkObjectShape(value: unknown, expectedKind: string, expectedApiVersion: string, alsoAccepted: readonly string[] = []): KubeObject {
  if (!isJsonObject(value)) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${expectedKind}): body is not an object`);
  }
  const { kind, apiVersion } = value;
  if (kind !== undefined && kind !== '' && kind !== expectedKind) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${expectedKind}): kind ${JSON.stringify(kind)}`);
  }
  if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== expectedApiVersion && !alsoAccepted.includes(String(apiVersion))) {
    throw newBadRequest(
      `the API version in the data (${String(apiVersion)}) does not match the expected API version (${expectedApiVersion})`,
    );
  }
  if (value.metadata === undefined || value.metadata === null) value.metadata = {};
  if (!isJsonObject(value.metadata)) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${expectedKind}): metadata is not an object`);
  }
  value.kind = expectedKind;
  value.apiVersion = expectedApiVersion;
  return value as unknown as KubeObject;
}
