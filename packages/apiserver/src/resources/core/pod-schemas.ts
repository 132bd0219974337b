import type { Definitions } from '../../registry/resource-info.js';
import { generatedPodDefinitions } from '../../generated/core-pods-schemas.generated.js';
import { withTopLevelKinds } from '../top-level-kinds.js';

const CORE_V1 = 'io.k8s.api.core.v1';

/** The pod-shaped kinds of core/v1, with a description of our own. */
const KINDS: ReadonlyArray<[kind: string, description: string]> = [
  ['Pod', 'A group of containers scheduled together on one node.'],
  ['PodTemplate', 'A stored pod template, for reuse by other objects.'],
  ['ReplicationController', 'Keeps a number of copies of a pod template running (legacy form of ReplicaSet).'],
];

/**
 * OpenAPI definitions of core/v1 Pod, PodTemplate, ReplicationController and every type they
 * embed. The field shapes are generated (src/generated/core-pods-schemas.generated.ts, by
 * hack/gen-types); this adds the descriptions, envelopes, lists and group-version-kinds.
 */
export function podDefinitions(): Definitions {
  return withTopLevelKinds(
    generatedPodDefinitions,
    KINDS.map(([kind, description]) => ({ prefix: CORE_V1, gvk: { group: '', version: 'v1', kind }, description })),
  );
}
