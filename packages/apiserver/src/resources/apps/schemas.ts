import type { Definitions } from '../../registry/resource-info.js';
import { generatedAppsDefinitions } from '../../generated/apps-schemas.generated.js';
import { withTopLevelKinds } from '../top-level-kinds.js';

/** The kinds of apps/v1, with a description of our own. */
const KINDS: ReadonlyArray<[kind: string, description: string]> = [
  ['Deployment', 'Declarative rollouts of a pod template through ReplicaSets.'],
  ['ReplicaSet', 'Keeps a number of copies of a pod template running.'],
  ['StatefulSet', 'Pods with stable identities and storage, created in order.'],
  ['DaemonSet', 'One copy of a pod template per eligible node.'],
  ['ControllerRevision', 'An immutable snapshot of state, kept by controllers for rollbacks.'],
];

/**
 * OpenAPI definitions of apps/v1 (workloads and ControllerRevision) in the given group. The field
 * shapes are generated (src/generated/apps-schemas.generated.ts, by hack/gen-types); this adds the
 * descriptions, envelopes, lists and group-version-kinds.
 */
export function appsDefinitions(group: string): Definitions {
  return withTopLevelKinds(
    generatedAppsDefinitions,
    KINDS.map(([kind, description]) => ({ prefix: 'io.k8s.api.apps.v1', gvk: { group, version: 'v1', kind }, description })),
  );
}
