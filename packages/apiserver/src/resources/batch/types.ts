import type { KubeObject, LabelSelectorObject, ObjectMeta } from '@cluster/apimachinery';
import type { PodTemplateSpec } from '../core/pod-spec/types.js';

/** The parts of batch/v1 JobSpec the strategies read or default; the rest is kept as decoded. */
export interface JobSpec {
  parallelism?: number;
  completions?: number;
  activeDeadlineSeconds?: number;
  backoffLimit?: number;
  backoffLimitPerIndex?: number;
  maxFailedIndexes?: number;
  selector?: LabelSelectorObject;
  manualSelector?: boolean;
  template?: PodTemplateSpec;
  ttlSecondsAfterFinished?: number;
  completionMode?: string;
  suspend?: boolean;
  podReplacementPolicy?: string;
  managedBy?: string;
  podFailurePolicy?: { rules?: PodFailurePolicyRule[] };
  successPolicy?: { rules?: Array<{ succeededIndexes?: string; succeededCount?: number }> };
  [field: string]: unknown;
}

export interface PodFailurePolicyRule {
  action?: string;
  onExitCodes?: { containerName?: string; operator?: string; values?: number[] };
  onPodConditions?: Array<{ type?: string; status?: string }>;
}

export interface JobStatus {
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  ready?: number;
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
  conditions?: Array<{ type?: string; status?: string }>;
  [field: string]: unknown;
}

export interface Job extends KubeObject {
  spec?: JobSpec;
  status?: JobStatus;
}

export interface CronJobSpec {
  schedule?: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: string;
  suspend?: boolean;
  jobTemplate?: { metadata?: ObjectMeta; spec?: JobSpec };
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
  [field: string]: unknown;
}

export interface CronJob extends KubeObject {
  spec?: CronJobSpec;
  status?: { active?: unknown[]; lastScheduleTime?: string; lastSuccessfulTime?: string; [field: string]: unknown };
}
