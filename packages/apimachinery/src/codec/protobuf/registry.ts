import { META_V1 } from './proto-root.js';

/** Options shared by the Protobuf codec functions. */
export interface ProtobufCodecOptions {
  /** The server's `--api-domain` (default `k8s.io`): groups are named `<prefix>.<apiDomain>`. */
  apiDomain?: string;
}

export const DEFAULT_API_DOMAIN = 'k8s.io';

interface GroupVersionKinds {
  /** Group name without the API domain; '' is the core group. */
  prefix: string;
  /**
   * Set for upstream's groups that never carried the product domain (`apps`, `autoscaling`):
   * their name is `prefix` whatever the API domain is, so stock clients' fixed paths still work.
   */
  bare?: boolean;
  version: string;
  /** Package of the group's .proto file. */
  pkg: string;
  kinds: readonly string[];
}

/** The kinds served with a Protobuf form, per group version (DESIGN "Resources served"). */
const TABLE: readonly GroupVersionKinds[] = [
  {
    prefix: '',
    version: 'v1',
    pkg: 'k8s.io.api.core.v1',
    kinds: [
      'ConfigMap',
      'ConfigMapList',
      'Namespace',
      'NamespaceList',
      'Secret',
      'SecretList',
      'ServiceAccount',
      'ServiceAccountList',
      'Pod',
      'PodList',
      'Binding',
      'PodTemplate',
      'PodTemplateList',
      'ReplicationController',
      'ReplicationControllerList',
      'Service',
      'ServiceList',
      'Endpoints',
      'EndpointsList',
      'Node',
      'NodeList',
      'Event',
      'EventList',
      'LimitRange',
      'LimitRangeList',
      'ResourceQuota',
      'ResourceQuotaList',
      'PersistentVolume',
      'PersistentVolumeList',
      'PersistentVolumeClaim',
      'PersistentVolumeClaimList',
      'ComponentStatus',
      'ComponentStatusList',
    ],
  },
  { prefix: 'events', version: 'v1', pkg: 'k8s.io.api.events.v1', kinds: ['Event', 'EventList'] },
  { prefix: 'discovery', version: 'v1', pkg: 'k8s.io.api.discovery.v1', kinds: ['EndpointSlice', 'EndpointSliceList'] },
  {
    prefix: 'apps',
    bare: true,
    version: 'v1',
    pkg: 'k8s.io.api.apps.v1',
    kinds: [
      'Deployment',
      'DeploymentList',
      'ReplicaSet',
      'ReplicaSetList',
      'StatefulSet',
      'StatefulSetList',
      'DaemonSet',
      'DaemonSetList',
      'ControllerRevision',
      'ControllerRevisionList',
    ],
  },
  { prefix: 'autoscaling', bare: true, version: 'v1', pkg: 'k8s.io.api.autoscaling.v1', kinds: ['Scale', 'HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList'] },
  { prefix: 'autoscaling', bare: true, version: 'v2', pkg: 'k8s.io.api.autoscaling.v2', kinds: ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList'] },
  { prefix: 'autoscaling', bare: true, version: 'v2beta1', pkg: 'k8s.io.api.autoscaling.v2beta1', kinds: ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList'] },
  { prefix: 'batch', bare: true, version: 'v1', pkg: 'k8s.io.api.batch.v1', kinds: ['Job', 'JobList', 'CronJob', 'CronJobList'] },
  { prefix: 'policy', bare: true, version: 'v1', pkg: 'k8s.io.api.policy.v1', kinds: ['PodDisruptionBudget', 'PodDisruptionBudgetList', 'Eviction'] },
  { prefix: 'policy', bare: true, version: 'v1beta1', pkg: 'k8s.io.api.policy.v1beta1', kinds: ['Eviction'] },
  {
    prefix: 'networking',
    version: 'v1',
    pkg: 'k8s.io.api.networking.v1',
    kinds: ['Ingress', 'IngressList', 'IngressClass', 'IngressClassList', 'NetworkPolicy', 'NetworkPolicyList'],
  },
  { prefix: 'discovery', version: 'v1beta1', pkg: 'k8s.io.api.discovery.v1beta1', kinds: ['EndpointSlice', 'EndpointSliceList'] },
  { prefix: 'extensions', bare: true, version: 'v1beta1', pkg: 'k8s.io.api.extensions.v1beta1', kinds: ['Ingress', 'IngressList', 'NetworkPolicy', 'NetworkPolicyList', 'Deployment', 'DeploymentList', 'DaemonSet', 'DaemonSetList', 'ReplicaSet', 'ReplicaSetList'] },
  {
    prefix: 'apps',
    bare: true,
    version: 'v1beta1',
    pkg: 'k8s.io.api.apps.v1beta1',
    kinds: ['Deployment', 'DeploymentList', 'StatefulSet', 'StatefulSetList', 'ControllerRevision', 'ControllerRevisionList'],
  },
  { prefix: 'networking', version: 'v1beta1', pkg: 'k8s.io.api.networking.v1beta1', kinds: ['Ingress', 'IngressList', 'IngressClass', 'IngressClassList'] },
  {
    prefix: 'admissionregistration',
    version: 'v1',
    pkg: 'k8s.io.api.admissionregistration.v1',
    kinds: ['ValidatingWebhookConfiguration', 'ValidatingWebhookConfigurationList', 'MutatingWebhookConfiguration', 'MutatingWebhookConfigurationList'],
  },
  { prefix: 'node', version: 'v1', pkg: 'k8s.io.api.node.v1', kinds: ['RuntimeClass', 'RuntimeClassList'] },
  ...['v1beta3', 'v1beta2', 'v1beta1'].map((version) => ({
    prefix: 'flowcontrol.apiserver',
    version,
    pkg: `k8s.io.api.flowcontrol.${version}`,
    kinds: ['FlowSchema', 'FlowSchemaList', 'PriorityLevelConfiguration', 'PriorityLevelConfigurationList'],
  })),
  { prefix: 'scheduling', version: 'v1', pkg: 'k8s.io.api.scheduling.v1', kinds: ['PriorityClass', 'PriorityClassList'] },
  {
    prefix: 'storage',
    version: 'v1',
    pkg: 'k8s.io.api.storage.v1',
    kinds: ['StorageClass', 'StorageClassList', 'CSIDriver', 'CSIDriverList', 'CSINode', 'CSINodeList', 'VolumeAttachment', 'VolumeAttachmentList', 'CSIStorageCapacity', 'CSIStorageCapacityList'],
  },
  {
    prefix: 'authorization',
    version: 'v1',
    pkg: 'k8s.io.api.authorization.v1',
    kinds: ['SubjectAccessReview', 'SelfSubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview'],
  },
  {
    prefix: 'authentication',
    version: 'v1',
    pkg: 'k8s.io.api.authentication.v1',
    kinds: ['TokenReview', 'TokenRequest', 'SelfSubjectReview'],
  },
  { prefix: 'coordination', version: 'v1', pkg: 'k8s.io.api.coordination.v1', kinds: ['Lease', 'LeaseList'] },
  {
    prefix: 'rbac.authorization',
    version: 'v1',
    pkg: 'k8s.io.api.rbac.v1',
    kinds: [
      'Role',
      'RoleList',
      'RoleBinding',
      'RoleBindingList',
      'ClusterRole',
      'ClusterRoleList',
      'ClusterRoleBinding',
      'ClusterRoleBindingList',
    ],
  },
  {
    prefix: 'certificates',
    version: 'v1',
    pkg: 'k8s.io.api.certificates.v1',
    kinds: ['CertificateSigningRequest', 'CertificateSigningRequestList'],
  },
  {
    prefix: 'apiextensions',
    version: 'v1',
    pkg: 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1',
    kinds: ['CustomResourceDefinition', 'CustomResourceDefinitionList'],
  },
  // meta.k8s.io/v1 itself, for the option kinds sent to any group.
  { prefix: 'meta', version: 'v1', pkg: META_V1, kinds: [] },
];

function groupOf(entry: GroupVersionKinds, apiDomain: string): string {
  return entry.prefix === '' || entry.bare ? entry.prefix : `${entry.prefix}.${apiDomain}`;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The full name of the message type for an apiVersion and kind, or undefined when that kind has no
 * Protobuf form here. Status exists only as `v1` (upstream registers it unversioned); DeleteOptions
 * is accepted in every group version served, as upstream adds the option kinds to each of them.
 */
export function protobufMessageFor(
  apiVersion: string,
  kind: string,
  options: ProtobufCodecOptions = {},
): string | undefined {
  const apiDomain = options.apiDomain ?? DEFAULT_API_DOMAIN;
  const { group, version } = splitApiVersion(apiVersion);
  const entry = TABLE.find((e) => groupOf(e, apiDomain) === group && e.version === version);
  if (!entry) return undefined;
  if (kind === 'Status') return apiVersion === 'v1' ? `${META_V1}.Status` : undefined;
  if (kind === 'DeleteOptions') return `${META_V1}.DeleteOptions`;
  return entry.kinds.includes(kind) ? `${entry.pkg}.${kind}` : undefined;
}

/** True when objects of this apiVersion and kind can be encoded and decoded as Protobuf. */
export function isProtobufKind(apiVersion: string, kind: string, options: ProtobufCodecOptions = {}): boolean {
  return protobufMessageFor(apiVersion, kind, options) !== undefined;
}
