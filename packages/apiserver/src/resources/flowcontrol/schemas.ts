import { flowControlGroup } from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';
import { generatedFlowControlDefinitions } from '../../generated/flowcontrol-schemas.generated.js';
import { withTopLevelKinds } from '../top-level-kinds.js';

const KINDS: ReadonlyArray<[kind: string, description: string]> = [
  ['FlowSchema', 'Classifies requests into a priority level and splits them into flows.'],
  ['PriorityLevelConfiguration', 'A share of the server concurrency and how requests over it wait.'],
];

/**
 * OpenAPI definitions of FlowSchema and PriorityLevelConfiguration in v1beta3, v1beta2 and v1beta1. Field
 * shapes are generated (src/generated/flowcontrol-schemas.generated.ts, by hack/gen-types); this adds the envelope, lists and group-version-kinds.
 */
export function flowControlDefinitions(apiDomain: string): Definitions {
  const versions = ['v1beta3', 'v1beta2', 'v1beta1'];
  return withTopLevelKinds(
    generatedFlowControlDefinitions,
    versions.flatMap((version) =>
      KINDS.map(([kind, description]) => ({ prefix: `io.k8s.api.flowcontrol.${version}`, gvk: { group: flowControlGroup(apiDomain), version, kind }, description })),
    ),
  );
}
