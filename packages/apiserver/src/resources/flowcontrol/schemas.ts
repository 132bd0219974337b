import { flowControlGroup, listSchema, objectTypeMeta, type JsonObject } from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';
import { generatedFlowControlDefinitions } from './schemas.generated.js';

const KINDS: ReadonlyArray<[kind: string, description: string]> = [
  ['FlowSchema', 'Classifies requests into a priority level and splits them into flows.'],
  ['PriorityLevelConfiguration', 'A share of the server concurrency and how requests over it wait.'],
];

/**
 * OpenAPI definitions of FlowSchema and PriorityLevelConfiguration in v1beta3, v1beta2 and v1beta1. Field
 * shapes are generated (schemas.generated.ts); this adds the envelope, lists and group-version-kinds.
 */
export function flowControlDefinitions(apiDomain: string): Definitions {
  const defs: Definitions = { ...generatedFlowControlDefinitions };
  for (const version of ['v1beta3', 'v1beta2', 'v1beta1']) {
    for (const [kind, description] of KINDS) {
      const name = `io.k8s.api.flowcontrol.${version}.${kind}`;
      const generated = defs[name] as JsonObject & { properties: Record<string, JsonObject> };
      const gvk = { group: flowControlGroup(apiDomain), version, kind };
      const properties = { ...generated.properties, ...objectTypeMeta() };
      defs[name] = {
        ...generated,
        description,
        properties: Object.fromEntries(Object.keys(properties).sort().map((k) => [k, properties[k]!])),
        'x-kubernetes-group-version-kind': [{ group: gvk.group, kind, version }],
      };
      defs[`${name}List`] = listSchema(name, { ...gvk, kind: `${kind}List` }, `The ${kind} objects.`);
    }
  }
  return defs;
}
