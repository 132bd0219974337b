import { parse as parseYaml } from 'yaml';
import {
  isJsonObject,
  newBadRequest,
  newUnsupportedMediaType,
  type KubeObject,
} from '@cluster/apimachinery';
import { isProtobuf, JSON_TYPE, parseMediaType, PROTOBUF_ALIAS, PROTOBUF_TYPE, YAML_TYPE } from '../negotiation/media-type.js';
import type { RequestScope } from './scope.js';

const BODY_TYPES = [JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE, PROTOBUF_ALIAS];

/** Parses JSON text into a value, as a 400 with a Go-like message when malformed. */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw newBadRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
}

/**
 * Decodes a create/update body by Content-Type (JSON, YAML or Protobuf) and checks that it is
 * an object of the expected kind and apiVersion (empty kind/apiVersion are defaulted).
 */
export function decodeObjectBody(scope: RequestScope, expectedKind: string, expectedApiVersion: string): KubeObject {
  const body = scope.body;
  if (!body || body.length === 0) throw newBadRequest('the body of the request was empty');
  const media = parseMediaType(scope.contentType ?? JSON_TYPE).type || JSON_TYPE;
  let value: unknown;
  if (media === JSON_TYPE) {
    value = parseJsonBody(body.toString('utf8'));
  } else if (media === YAML_TYPE) {
    try {
      value = parseYaml(body.toString('utf8'));
    } catch (e) {
      throw newBadRequest(`couldn't get version/kind; yaml parse error: ${(e as Error).message}`);
    }
  } else if (isProtobuf(media) && scope.protobuf) {
    value = scope.protobuf.decode(body);
  } else {
    throw newUnsupportedMediaType(media, scope.protobuf ? BODY_TYPES : [JSON_TYPE, YAML_TYPE]);
  }
  return checkObjectShape(value, expectedKind, expectedApiVersion);
}

/** Upstream decodes into the typed object: wrong kinds, versions or shapes are 400 BadRequest. */
export function checkObjectShape(value: unknown, expectedKind: string, expectedApiVersion: string): KubeObject {
  if (!isJsonObject(value)) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${expectedKind}): body is not an object`);
  }
  const { kind, apiVersion } = value;
  if (kind !== undefined && kind !== '' && kind !== expectedKind) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${expectedKind}): kind ${JSON.stringify(kind)}`);
  }
  if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== expectedApiVersion) {
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
