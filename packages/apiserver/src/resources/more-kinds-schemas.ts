import { listSchema } from '@cluster/apimachinery';
import type { Definitions } from '../registry/resource-info.js';
import { generatedMoreKindDefinitions } from '../generated/more-kinds-schemas.generated.js';
import { BATCH_GROUP } from './batch/group.js';
import { networkingGroup } from './networking/group.js';
import { POLICY_GROUP } from './policy/poddisruptionbudgets/register.js';
import { AUTOSCALING_GROUP } from './apps/workload/register.js';
import { withTopLevelKinds } from './top-level-kinds.js';

/** Top-level kinds of batch, policy, networking and node, with a description of our own. */
const KINDS: ReadonlyArray<[prefix: string, group: (apiDomain: string) => string, kind: string, description: string, version?: string]> = [
  ['io.k8s.api.batch.v1', () => BATCH_GROUP, 'Job', 'Runs pods of a template until a number of them complete.'],
  ['io.k8s.api.batch.v1', () => BATCH_GROUP, 'CronJob', 'Creates Jobs on a repeating schedule.'],
  ['io.k8s.api.policy.v1', () => POLICY_GROUP, 'PodDisruptionBudget', 'Limits how many pods of a set voluntary disruptions may take down at once.'],
  ['io.k8s.api.networking.v1', networkingGroup, 'Ingress', 'Rules that route outside HTTP traffic to services.'],
  ['io.k8s.api.networking.v1', networkingGroup, 'IngressClass', 'A kind of Ingress and the controller that implements it.'],
  ['io.k8s.api.networking.v1', networkingGroup, 'NetworkPolicy', 'Which traffic the selected pods may send and receive.'],
  ['io.k8s.api.node.v1', (d) => `node.${d}`, 'RuntimeClass', 'A container runtime configuration pods can ask for.'],
  ['io.k8s.api.scheduling.v1', (d) => `scheduling.${d}`, 'PriorityClass', 'A named priority value pods ask for by name.'],
  ['io.k8s.api.storage.v1', (d) => `storage.${d}`, 'StorageClass', 'A class of storage that volumes are provisioned from.'],
  ['io.k8s.api.storage.v1', (d) => `storage.${d}`, 'CSIDriver', 'A CSI volume driver installed in the cluster and how to talk to it.'],
  ['io.k8s.api.storage.v1', (d) => `storage.${d}`, 'CSINode', 'The CSI drivers registered on one node.'],
  ['io.k8s.api.storage.v1', (d) => `storage.${d}`, 'VolumeAttachment', 'A request to attach a volume to a node, and its outcome.'],
  ['io.k8s.api.networking.v1beta1', networkingGroup, 'Ingress', 'Rules that route outside HTTP traffic to services (removed version).', 'v1beta1'],
  ['io.k8s.api.networking.v1beta1', networkingGroup, 'IngressClass', 'A kind of Ingress and the controller that implements it (removed version).', 'v1beta1'],
  ['io.k8s.api.discovery.v1beta1', (d) => `discovery.${d}`, 'EndpointSlice', 'A subset of the endpoints of a service (removed version).', 'v1beta1'],
  ['io.k8s.api.extensions.v1beta1', () => 'extensions', 'Deployment', 'A replicated application, rolled out gradually (removed version).', 'v1beta1'],
  ['io.k8s.api.extensions.v1beta1', () => 'extensions', 'DaemonSet', 'Runs a pod on every node (removed version).', 'v1beta1'],
  ['io.k8s.api.extensions.v1beta1', () => 'extensions', 'ReplicaSet', 'Keeps a number of pod replicas running (removed version).', 'v1beta1'],
  ['io.k8s.api.apps.v1beta1', () => 'apps', 'Deployment', 'A replicated application, rolled out gradually (removed version).', 'v1beta1'],
  ['io.k8s.api.apps.v1beta1', () => 'apps', 'StatefulSet', 'Pods with stable identities and storage (removed version).', 'v1beta1'],
  ['io.k8s.api.apps.v1beta1', () => 'apps', 'ControllerRevision', 'An immutable snapshot of state data (removed version).', 'v1beta1'],
  ['io.k8s.api.extensions.v1beta1', () => 'extensions', 'NetworkPolicy', 'Which traffic the selected pods may send and receive (removed version).', 'v1beta1'],
  ['io.k8s.api.extensions.v1beta1', () => 'extensions', 'Ingress', 'Rules that route outside HTTP traffic to services (removed version).', 'v1beta1'],
  ['io.k8s.api.autoscaling.v2', () => AUTOSCALING_GROUP, 'HorizontalPodAutoscaler', 'Scales a workload between replica bounds from observed metrics.', 'v2'],
  ['io.k8s.api.autoscaling.v2beta1', () => AUTOSCALING_GROUP, 'HorizontalPodAutoscaler', 'Scales a workload from observed metrics (removed version).', 'v2beta1'],
  ['io.k8s.api.autoscaling.v1', () => AUTOSCALING_GROUP, 'HorizontalPodAutoscaler', 'Scales a workload between replica bounds from observed CPU use.'],
  ['io.k8s.api.storage.v1', (d) => `storage.${d}`, 'CSIStorageCapacity', 'Storage capacity a CSI driver reports for a topology segment and class.'],
];

/**
 * OpenAPI definitions of Job, CronJob (batch/v1), PodDisruptionBudget (policy/v1), Ingress,
 * IngressClass, NetworkPolicy (networking.<apiDomain>/v1) and RuntimeClass (node.<apiDomain>/v1).
 * The field shapes are generated (src/generated/more-kinds-schemas.generated.ts, by hack/gen-types);
 * this adds the object envelope, the lists and the group-version-kinds.
 */
export function moreKindDefinitions(apiDomain: string): Definitions {
  const defs = withTopLevelKinds(
    generatedMoreKindDefinitions,
    KINDS.map(([prefix, group, kind, description, version]) => ({ prefix, gvk: { group: group(apiDomain), version: version ?? 'v1', kind }, description })),
  );
  // autoscaling/v2beta2 (deprecated, still served) has v2's schema: its kind and list under the old names.
  const hpa = 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler';
  const old = 'io.k8s.api.autoscaling.v2beta2.HorizontalPodAutoscaler';
  const oldGvk = { group: AUTOSCALING_GROUP, version: 'v2beta2', kind: 'HorizontalPodAutoscaler' };
  defs[old] = { ...defs[hpa]!, 'x-kubernetes-group-version-kind': [oldGvk] };
  defs[`${old}List`] = listSchema(old, { ...oldGvk, kind: 'HorizontalPodAutoscalerList' }, 'The HorizontalPodAutoscaler objects.');
  return defs;
}
