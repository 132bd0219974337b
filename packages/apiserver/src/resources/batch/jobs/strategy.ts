import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { humanDuration } from '../../../tables/human-duration.js';
import { selectorText } from '../../apps/workload/strategy.js';
import { column, podTemplateTable } from '../../apps/workload/table.js';
import { generationPrepare, statusSubresource } from '../../status-subresource.js';
import { defaultJob } from '../defaults.js';
import type { Job } from '../types.js';
import {
  CONTROLLER_UID_LABEL,
  JOB_NAME_LABEL,
  LEGACY_CONTROLLER_UID_LABEL,
  LEGACY_JOB_NAME_LABEL,
  validateGeneratedSelector,
  validateIndexedHostnames,
  validateJobSpec,
  validateJobSpecUpdate,
  validateJobStatus,
} from '../validation.js';

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain' };

/**
 * Upstream's generateSelector: unless spec.manualSelector is true, the pod template carries the
 * Job's uid and name as labels and the selector selects that uid, so no two Jobs share pods.
 * Labels or a selector the client set are kept (validation then reports a mismatch). Mutates job.
 */
export function generateSelector(job: Job): void {
  const spec = (job.spec ??= {});
  if (spec.manualSelector === true) return;
  const template = (spec.template ??= {});
  const meta = (template.metadata ??= {});
  const labels = (meta.labels ??= {});
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  labels[LEGACY_JOB_NAME_LABEL] ??= name;
  labels[JOB_NAME_LABEL] ??= name;
  labels[LEGACY_CONTROLLER_UID_LABEL] ??= uid;
  labels[CONTROLLER_UID_LABEL] ??= uid;
  const selector = (spec.selector ??= {});
  const matchLabels = (selector.matchLabels ??= {});
  matchLabels[CONTROLLER_UID_LABEL] ??= uid;
}

function completionsCell(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (job.spec?.completions !== undefined) return `${succeeded}/${job.spec.completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function durationCell(job: Job, now: Date): string {
  const start = job.status?.startTime ? Date.parse(job.status.startTime) : NaN;
  if (Number.isNaN(start)) return '';
  const end = job.status?.completionTime ? Date.parse(job.status.completionTime) : now.getTime();
  return humanDuration(end - start);
}

/**
 * Job behaviour (batch/v1): stored only (the controller manager runs the pods), defaulted and
 * validated as upstream, with a generated selector; status changes only through `status`.
 */
export const jobStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  ...generationPrepare<Job>((job, old) => {
    defaultJob(job);
    if (!old) generateSelector(job);
  }),
  validate: (job: Job) => [
    ...validateObjectMeta(job.metadata, metaOptions),
    ...validateGeneratedSelector(job),
    ...validateJobSpec(job.spec ?? {}),
    ...validateIndexedHostnames(job),
  ],
  validateUpdate: (job: Job, old: Job) => [
    ...validateObjectMetaUpdate(job.metadata, old.metadata, metaOptions),
    ...validateGeneratedSelector(job),
    ...validateJobSpec(job.spec ?? {}),
    ...validateIndexedHostnames(job),
    ...validateJobSpecUpdate(job, old),
  ],
  selectableFields: (job: Job) => ({ 'status.successful': String(job.status?.succeeded ?? 0) }),
  subresources: { status: statusSubresource<Job>(metaOptions, (job) => validateJobStatus(job.status)) },
  table: podTemplateTable<Job>({
    columns: [
      column('Completions', 'string', 'Succeeded pods out of the completions wanted.'),
      column('Duration', 'string', 'Time required to complete the job.'),
    ],
    cells: (job, now) => [completionsCell(job), durationCell(job, now)],
    template: (job) => job.spec?.template,
    selector: { description: 'Label selector of the pods of the job.', text: (job) => selectorText(job.spec?.selector) },
  }),
} satisfies ResourceStrategy<Job>;
