import type { KubeObject, LabelSelectorObject, ObjectMeta } from '@cluster/apimachinery';

/**
 * The parts of upstream's PodSpec tree the strategies read or default. Everything else is kept
 * as decoded (typed by the OpenAPI schema), so the index signatures stay open.
 */
export interface ContainerPort {
  name?: string;
  containerPort?: number;
  hostPort?: number;
  protocol?: string;
  [field: string]: unknown;
}

export interface Probe {
  httpGet?: { path?: string; scheme?: string; [field: string]: unknown };
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  [field: string]: unknown;
}

export interface EnvVar {
  name?: string;
  value?: string;
  valueFrom?: { fieldRef?: { apiVersion?: string; fieldPath?: string }; [field: string]: unknown };
}

export interface Container {
  name?: string;
  image?: string;
  imagePullPolicy?: string;
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  volumeMounts?: Array<{ name?: string; mountPath?: string; [field: string]: unknown }>;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string>; [field: string]: unknown };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  [field: string]: unknown;
}

export interface Volume {
  name?: string;
  [source: string]: unknown;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Volume[];
  restartPolicy?: string;
  dnsPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  schedulerName?: string;
  securityContext?: Record<string, unknown>;
  enableServiceLinks?: boolean;
  nodeName?: string;
  serviceAccountName?: string;
  serviceAccount?: string;
  tolerations?: Toleration[];
  readinessGates?: Array<{ conditionType?: string }>;
  [field: string]: unknown;
}

export interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: { waiting?: { reason?: string }; terminated?: { reason?: string; signal?: number; exitCode?: number }; running?: unknown };
  [field: string]: unknown;
}

export interface PodStatus {
  phase?: string;
  reason?: string;
  podIP?: string;
  nominatedNodeName?: string;
  qosClass?: string;
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  conditions?: Array<{ type?: string; status?: string }>;
  [field: string]: unknown;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

export interface PodTemplate extends KubeObject {
  template?: PodTemplateSpec;
}

/** The spec shape every replicated workload shares (Deployment, ReplicaSet, StatefulSet, DaemonSet, RC). */
export interface WorkloadSpec {
  replicas?: number;
  selector?: LabelSelectorObject | Record<string, string>;
  template?: PodTemplateSpec;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  [field: string]: unknown;
}

export interface WorkloadStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  updatedReplicas?: number;
  observedGeneration?: number;
  [field: string]: unknown;
}

export interface Workload extends KubeObject {
  spec?: WorkloadSpec;
  status?: WorkloadStatus;
}
