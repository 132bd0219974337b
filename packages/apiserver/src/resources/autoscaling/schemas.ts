import type { Definitions } from '../../registry/resource-info.js';
import { generatedScaleDefinitions } from '../../generated/autoscaling-scale-schemas.generated.js';
import { withTopLevelKinds } from '../top-level-kinds.js';

/**
 * OpenAPI definitions of autoscaling/v1 Scale (the scale subresource's kind; it has no list) in the
 * given group. The field shapes are generated (src/generated/autoscaling-scale-schemas.generated.ts).
 */
export function autoscalingDefinitions(group: string): Definitions {
  const gvk = { group, version: 'v1', kind: 'Scale' };
  return withTopLevelKinds(generatedScaleDefinitions, [
    { prefix: 'io.k8s.api.autoscaling.v1', gvk, description: 'The replica count of a scalable resource.', list: false },
  ]);
}
