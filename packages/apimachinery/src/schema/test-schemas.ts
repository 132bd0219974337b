import type { JsonObject } from '../meta/types.js';
import { metaDefinitions } from '../openapi/index.js';
import type { Definitions } from './schema-node.js';

/**
 * Test support: the meta/v1 definitions plus the apiserver's core/v1 ones (ConfigMap, Secret,
 * Namespace, ServiceAccount). The apiserver module is loaded at run time so that this package
 * keeps no build-time dependency on it.
 */
export async function loadTestDefinitions(): Promise<Definitions> {
  const modulePath = '../../../apiserver/src/resources/core/schemas.js';
  const mod = (await import(modulePath)) as { coreDefinitions: (apiDomain: string) => Record<string, JsonObject> };
  return { ...metaDefinitions('example.org'), ...mod.coreDefinitions('example.org') };
}

export const CONFIG_MAP = 'io.k8s.api.core.v1.ConfigMap';
export const SECRET = 'io.k8s.api.core.v1.Secret';
export const NAMESPACE = 'io.k8s.api.core.v1.Namespace';
export const SERVICE_ACCOUNT = 'io.k8s.api.core.v1.ServiceAccount';

/** Small hand-written definitions exercising the schema features core kinds lack. */
export const THING_DEFINITIONS: Definitions = {
  't.v1.Thing': {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      port: { type: 'integer', format: 'int32' },
      count: { type: 'integer', format: 'int64' },
      ratio: { type: 'number', format: 'float' },
      weight: { type: 'number', format: 'double' },
      target: { 'x-kubernetes-int-or-string': true },
      extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      parts: { type: 'array', items: { $ref: '#/definitions/t.v1.Part' } },
      byName: { type: 'object', additionalProperties: { $ref: '#/definitions/t.v1.Part' } },
      wrapped: { allOf: [{ $ref: '#/definitions/t.v1.Part' }] },
      matrix: { type: 'array', items: { type: 'array', items: { type: 'integer', format: 'int32' } } },
    },
  },
  't.v1.Part': { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer', format: 'int64' } } },
};
export const THING = 't.v1.Thing';
