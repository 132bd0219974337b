// What the generator writes: one .proto (and one part of a TypeScript definitions module) per
// entry, in this order, each cut into numbered runs where it is too long for one file. An upstream
// message is written once, by the first entry whose roots reach it within its own package; later
// entries and other packages reference it. Messages that a hand-written proto/*.proto already
// declares are referenced, never written.

/** An upstream package of k8s.io/api; `old` ones are read from the v1.24 tree (gone since). */
const api = (dir, extra = {}) => ({ dir, pkg: `k8s.io.api.${dir.replace('/', '.')}`, ...extra });

// The TypeScript modules (packages/apiserver/src/generated/<name>.generated.ts, an index over its
// parts in <name>/) and the hand-written modules that add the kinds' descriptions, envelopes and
// group-version-kinds.
const PODS = { name: 'core-pods-schemas', exportName: 'generatedPodDefinitions', addedBy: 'resources/core/pod-schemas.ts' };
const APPS = { name: 'apps-schemas', exportName: 'generatedAppsDefinitions', addedBy: 'resources/apps/schemas.ts' };
const SCALE = { name: 'autoscaling-scale-schemas', exportName: 'generatedScaleDefinitions', addedBy: 'resources/autoscaling/schemas.ts' };
const CLUSTER_KINDS = { name: 'cluster-kinds-schemas', exportName: 'generatedClusterKindDefinitions', addedBy: 'resources/core/cluster-kinds-schemas.ts' };
const MORE_KINDS = { name: 'more-kinds-schemas', exportName: 'generatedMoreKindDefinitions', addedBy: 'resources/more-kinds-schemas.ts' };
const FLOWCONTROL = { name: 'flowcontrol-schemas', exportName: 'generatedFlowControlDefinitions', addedBy: 'resources/flowcontrol/schemas.ts' };

/**
 * Fields of upstream's newest types left out: alpha fields behind feature gates that are off by
 * default and reference API groups not served here (batch/v1 JobSpec.scheduling names
 * scheduling.k8s.io/v1alpha3 types). A client sending them gets them dropped, as upstream does
 * with the gate off.
 */
export const SKIPPED_FIELDS = new Map([
  ['k8s.io.api.batch.v1.JobSpec', new Set(['scheduling'])],
  // CSINode.status (alpha CSIVolumeHealth): Go writes a value struct always, so every CSINode would read `status: {}`.
  ['k8s.io.api.storage.v1.CSINode', new Set(['status'])],
]);

const flowcontrol = (version) =>
  api(`flowcontrol/${version}`, {
    proto: `flowcontrol-${version}`,
    ts: FLOWCONTROL,
    roots: ['FlowSchema', 'FlowSchemaList', 'PriorityLevelConfiguration', 'PriorityLevelConfigurationList'],
  });

/**
 * proto: the file name under proto/generated/ (without `.generated.proto`), and of the entry's part
 * of its TypeScript module; ts: the module, or none where the kinds' OpenAPI definitions are
 * hand-written with field descriptions of our own (core basics, rbac, coordination, certificates:
 * resources/<group>/schemas.ts).
 */
export const OUTPUTS = [
  // Comes first so that it, not the pod types, declares the references every group shares.
  api('core/v1', {
    proto: 'core-v1',
    roots: ['ConfigMap', 'ConfigMapList', 'Secret', 'SecretList', 'Namespace', 'NamespaceList', 'ServiceAccount', 'ServiceAccountList', 'ObjectReference', 'LocalObjectReference'],
  }),
  api('rbac/v1', {
    proto: 'rbac-v1',
    roots: ['Role', 'RoleList', 'ClusterRole', 'ClusterRoleList', 'RoleBinding', 'RoleBindingList', 'ClusterRoleBinding', 'ClusterRoleBindingList'],
  }),
  api('coordination/v1', { proto: 'coordination-v1', roots: ['Lease', 'LeaseList'] }),
  api('certificates/v1', { proto: 'certificates-v1', roots: ['CertificateSigningRequest', 'CertificateSigningRequestList'] }),
  api('core/v1', {
    proto: 'core-v1-pods',
    ts: PODS,
    roots: [
      'Pod', 'PodList', 'PodTemplate', 'PodTemplateList', 'ReplicationController', 'ReplicationControllerList',
    ],
  }),
  api('apps/v1', {
    proto: 'apps-v1',
    ts: APPS,
    roots: [
      'Deployment', 'DeploymentList', 'ReplicaSet', 'ReplicaSetList', 'StatefulSet', 'StatefulSetList',
      'DaemonSet', 'DaemonSetList', 'ControllerRevision', 'ControllerRevisionList',
    ],
  }),
  api('autoscaling/v1', { proto: 'autoscaling-v1', ts: SCALE, roots: ['Scale'] }),
  api('core/v1', {
    proto: 'core-v1-cluster',
    ts: CLUSTER_KINDS,
    roots: [
      'Service', 'ServiceList', 'Endpoints', 'EndpointsList', 'Node', 'NodeList', 'Event', 'EventList', 'LimitRange', 'LimitRangeList', 'ResourceQuota', 'ResourceQuotaList',
      'PersistentVolume', 'PersistentVolumeList', 'PersistentVolumeClaim', 'PersistentVolumeClaimList', 'ComponentStatus', 'ComponentStatusList',
      // Used by storage/v1 StorageClass.allowedTopologies only.
      'TopologySelectorTerm',
    ],
  }),
  api('events/v1', { proto: 'events-v1', ts: CLUSTER_KINDS, roots: ['Event', 'EventList'] }),
  api('discovery/v1', { proto: 'discovery-v1', ts: CLUSTER_KINDS, roots: ['EndpointSlice', 'EndpointSliceList'] }),
  api('batch/v1', { proto: 'batch-v1', ts: MORE_KINDS, roots: ['Job', 'JobList', 'CronJob', 'CronJobList'] }),
  api('policy/v1', { proto: 'policy-v1', ts: MORE_KINDS, roots: ['PodDisruptionBudget', 'PodDisruptionBudgetList'] }),
  api('networking/v1', {
    proto: 'networking-v1',
    ts: MORE_KINDS,
    roots: ['Ingress', 'IngressList', 'IngressClass', 'IngressClassList', 'NetworkPolicy', 'NetworkPolicyList'],
  }),
  api('node/v1', { proto: 'node-v1', ts: MORE_KINDS, roots: ['RuntimeClass', 'RuntimeClassList'] }),
  flowcontrol('v1beta3'),
  flowcontrol('v1beta2'),
  flowcontrol('v1beta1'),
  api('scheduling/v1', { proto: 'scheduling-v1', ts: MORE_KINDS, roots: ['PriorityClass', 'PriorityClassList'] }),
  api('storage/v1', {
    proto: 'storage-v1',
    ts: MORE_KINDS,
    roots: ['StorageClass', 'StorageClassList', 'CSIDriver', 'CSIDriverList', 'CSINode', 'CSINodeList', 'VolumeAttachment', 'VolumeAttachmentList', 'CSIStorageCapacity', 'CSIStorageCapacityList'],
  }),
  api('autoscaling/v2', { proto: 'autoscaling-v2', ts: MORE_KINDS, roots: ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList'] }),
  // Scale and its parts are in autoscaling-v1 (above); this file adds the HPA.
  api('autoscaling/v1', { proto: 'autoscaling-v1-hpa', ts: MORE_KINDS, roots: ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList'] }),
  // Removed versions served again through --runtime-config (SPEC 9.4).
  api('networking/v1beta1', { proto: 'networking-v1beta1', ts: MORE_KINDS, roots: ['Ingress', 'IngressList', 'IngressClass', 'IngressClassList'] }),
  api('extensions/v1beta1', {
    proto: 'extensions-v1beta1',
    ts: MORE_KINDS,
    roots: ['Ingress', 'IngressList', 'NetworkPolicy', 'NetworkPolicyList', 'Deployment', 'DeploymentList', 'DaemonSet', 'DaemonSetList', 'ReplicaSet', 'ReplicaSetList'],
  }),
  api('apps/v1beta1', { proto: 'apps-v1beta1', ts: MORE_KINDS, roots: ['Deployment', 'DeploymentList', 'StatefulSet', 'StatefulSetList', 'ControllerRevision', 'ControllerRevisionList'] }),
  api('discovery/v1beta1', { proto: 'discovery-v1beta1', ts: MORE_KINDS, roots: ['EndpointSlice', 'EndpointSliceList'] }),
  api('autoscaling/v2beta1', { proto: 'autoscaling-v2beta1', ts: MORE_KINDS, old: true, roots: ['HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList'] }),
];
