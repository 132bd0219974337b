import type { JsonObject } from '@cluster/apimachinery';
import type { Definitions, ResourceInfo } from '../registry/resource-info.js';
import { PATCH_MEDIA_TYPES, resourcePaths, type OperationOptions, type OperationSpec, type PathSpec } from './operations.js';
import type { ParameterSpec } from './parameters.js';

/** What the server reports as its version in `info.version` (the gitVersion, e.g. v1.25.0+cluster.0123456789abcd). */
export interface OpenApiVersionInfo {
  title?: string;
  gitVersion: string;
}

/** Inputs of {@link buildOpenApiV2}. */
export interface OpenApiV2Input extends OperationOptions {
  resources: readonly ResourceInfo[];
  /** Every definition referenced, v2 form (`#/definitions/...`); all are emitted. */
  definitions: Definitions;
  version: OpenApiVersionInfo;
}

/** Security scheme upstream declares: a bearer token in the Authorization header. */
export const BEARER_SECURITY_SCHEME: JsonObject = {
  description: 'Bearer Token authentication',
  in: 'header',
  name: 'authorization',
  type: 'apiKey',
};

/**
 * Builds the Swagger 2.0 document served at `/openapi/v2`: one path per collection, item,
 * all-namespaces and subresource URL of every resource, each operation carrying
 * `x-kubernetes-action` and `x-kubernetes-group-version-kind`, plus all `definitions`. Pure; the
 * caller caches the result.
 */
export function buildOpenApiV2(input: OpenApiV2Input): JsonObject {
  const paths: JsonObject = {};
  for (const p of resourcePaths(input.resources, input)) paths[p.path] = v2PathItem(p);
  const definitions: JsonObject = {};
  for (const name of Object.keys(input.definitions).sort()) definitions[name] = input.definitions[name];
  return {
    swagger: '2.0',
    info: { title: input.version.title ?? 'Kubernetes', version: input.version.gitVersion },
    paths,
    definitions,
    securityDefinitions: { BearerToken: BEARER_SECURITY_SCHEME },
    security: [{ BearerToken: [] }],
  };
}

function v2PathItem(p: PathSpec): JsonObject {
  const item: JsonObject = { parameters: p.parameters.map(v2Parameter) };
  for (const op of p.operations) item[op.method] = v2Operation(op);
  return item;
}

function v2Operation(op: OperationSpec): JsonObject {
  const parameters: JsonObject[] = [];
  if (op.body) {
    const body: JsonObject = { in: 'body', name: 'body', schema: { $ref: `#/definitions/${op.body.definition}` } };
    if (op.body.required) body['required'] = true;
    parameters.push(body);
  }
  parameters.push(...op.parameters.map(v2Parameter));
  const responses: JsonObject = {};
  for (const r of op.responses) responses[String(r.code)] = { description: r.description, schema: { $ref: `#/definitions/${r.definition}` } };
  responses['401'] = { description: 'Unauthorized' };
  return {
    consumes: op.body?.patch ? [...PATCH_MEDIA_TYPES] : ['*/*'],
    description: op.description,
    operationId: op.operationId,
    parameters,
    produces: op.produces,
    responses,
    schemes: ['https'],
    tags: [op.tag],
    'x-kubernetes-action': op.action,
    'x-kubernetes-group-version-kind': { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version },
  };
}

function v2Parameter(p: ParameterSpec): JsonObject {
  const out: JsonObject = { description: p.description, in: p.in, name: p.name, type: p.type, uniqueItems: true };
  if (p.required) out['required'] = true;
  return out;
}
