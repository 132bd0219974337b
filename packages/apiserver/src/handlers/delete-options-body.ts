import {
  checkAgainstSchema,
  isJsonObject,
  newBadRequest,
  newUnsupportedMediaType,
  parseJsonStrict,
  parseYamlStrict,
  YamlSyntaxError,
  type JsonObject,
} from '@cluster/apimachinery';
import { isProtobuf, JSON_TYPE, PROTOBUF_ALIAS, PROTOBUF_TYPE, YAML_TYPE } from '../negotiation/media-type.js';
import { parseJsonBody, requestMediaType } from './decode-body.js';
import type { RequestScope } from './scope.js';

const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';

/** Upstream's delete handlers decode their options with every serializer of the meta scheme. */
const OPTION_BODY_TYPES = [JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE, PROTOBUF_ALIAS];

/** Go's message when a body names a kind the meta scheme has no DeleteOptions-compatible type for. */
function notRegistered(kind: string, apiVersion: string): Error {
  return newBadRequest(
    `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ` +
      '"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27"',
  );
}

/** JSON or YAML text checked against the DeleteOptions schema, as Go's decoder reads it into its type. */
function decodeText(text: string, yaml: boolean, definitions: Readonly<Record<string, JsonObject>> | undefined): unknown {
  let value: unknown;
  if (yaml) {
    try {
      value = parseYamlStrict(text).value;
    } catch (e) {
      if (e instanceof YamlSyntaxError) throw newBadRequest(e.message);
      throw e;
    }
    if (!definitions?.[DELETE_OPTIONS]) return value;
    const checked = checkAgainstSchema(value as JsonObject, definitions, DELETE_OPTIONS, { sortKeys: true });
    if (checked.decodeError) throw newBadRequest(checked.decodeError.goMessage);
    return checked.value;
  }
  if (!definitions?.[DELETE_OPTIONS]) return parseJsonBody(text);
  let parsed;
  try {
    parsed = parseJsonStrict(text);
  } catch (e) {
    throw newBadRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
  const checked = checkAgainstSchema(parsed.value, definitions, DELETE_OPTIONS, { numberText: parsed.numberText, duplicates: parsed.duplicates });
  if (checked.decodeError) throw newBadRequest(checked.decodeError.goMessage);
  return checked.value;
}

/**
 * The DeleteOptions body of a DELETE (one object or a collection), decoded by its Content-Type as
 * upstream's delete handlers do: JSON (also when no Content-Type is sent), YAML, or Protobuf under
 * either media type name (the form every Go client sends: magic, runtime.Unknown naming the
 * request's group version, meta/v1 DeleteOptions). Any group version is accepted, as upstream
 * registers DeleteOptions in all of them; a kind other than DeleteOptions is refused.
 * @returns the options as a JSON object, or undefined when there is no body.
 * @throws StatusError 400 for an undecodable body or wrong kind, 415 for another media type.
 */
export function decodeDeleteOptionsBody(scope: RequestScope): JsonObject | undefined {
  const body = scope.body;
  if (!body || body.length === 0) return undefined;
  const media = requestMediaType(scope.contentType, JSON_TYPE, OPTION_BODY_TYPES);
  let value: unknown;
  if (isProtobuf(media)) {
    if (!scope.decodeProtobufDeleteOptions) throw newUnsupportedMediaType(media, [JSON_TYPE, YAML_TYPE]);
    value = scope.decodeProtobufDeleteOptions(body);
  } else if (media === JSON_TYPE || media === YAML_TYPE) {
    value = decodeText(body.toString('utf8'), media === YAML_TYPE, scope.registry.schemas?.definitions);
  } else {
    throw newUnsupportedMediaType(media, OPTION_BODY_TYPES);
  }
  if (!isJsonObject(value)) throw newBadRequest('the body of the request is not a DeleteOptions object');
  const kind = typeof value.kind === 'string' ? value.kind : '';
  if (kind !== '' && kind !== 'DeleteOptions') {
    throw notRegistered(kind, typeof value.apiVersion === 'string' && value.apiVersion ? value.apiVersion : `meta.${scope.apiDomain}/v1`);
  }
  return value;
}
