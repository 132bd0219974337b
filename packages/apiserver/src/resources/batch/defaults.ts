import { defaultPodTemplateSpec } from '../core/pod-spec/defaults.js';
import type { CronJob, Job, JobSpec } from './types.js';

const MAX_INT32 = 2147483647;

/** Defaults of a JobSpec wherever it appears (the rules upstream attaches to its nested types). Mutates spec. */
function defaultJobSpecParts(spec: JobSpec): void {
  for (const rule of spec.podFailurePolicy?.rules ?? []) {
    for (const pattern of rule.onPodConditions ?? []) pattern.status ??= 'True';
  }
  defaultPodTemplateSpec(spec.template);
}

/** Upstream's SetDefaults_Job (batch/v1). Mutates job. */
export function defaultJob(job: Job): void {
  const spec = (job.spec ??= {});
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? MAX_INT32 : 6;
  const templateLabels = spec.template?.metadata?.labels;
  if (templateLabels && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...templateLabels };
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  defaultJobSpecParts(spec);
}

/** Upstream's SetDefaults_CronJob (batch/v1), plus the job template's nested defaults. Mutates cj. */
export function defaultCronJob(cj: CronJob): void {
  const spec = (cj.spec ??= {});
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  const template = (spec.jobTemplate ??= {});
  defaultJobSpecParts((template.spec ??= {}));
}
