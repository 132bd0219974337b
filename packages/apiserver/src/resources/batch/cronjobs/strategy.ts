import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageOf } from '../../../tables/human-duration.js';
import { selectorText } from '../../apps/workload/strategy.js';
import { column, podTemplateTable } from '../../apps/workload/table.js';
import { generationPrepare, statusSubresource } from '../../status-subresource.js';
import { defaultCronJob } from '../defaults.js';
import type { CronJob } from '../types.js';
import { validateCronJobName, validateCronJobSpec } from './validation.js';

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain' };

/** Upstream's warning for a location given in the schedule rather than in spec.timeZone. */
function scheduleWarnings(cj: CronJob): string[] {
  return cj.spec?.schedule?.includes('TZ')
    ? ['CRON_TZ or TZ used in spec.schedule is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details']
    : [];
}

/**
 * CronJob behaviour (batch/v1): stored only (the controller manager creates the Jobs), defaulted
 * and validated as upstream; status changes only through `status`.
 */
export const cronJobStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  ...generationPrepare<CronJob>(defaultCronJob),
  validate: (cj: CronJob) => [...validateObjectMeta(cj.metadata, metaOptions), ...validateCronJobSpec(cj.spec ?? {}), ...validateCronJobName(cj)],
  validateUpdate: (cj: CronJob, old: CronJob) => [...validateObjectMetaUpdate(cj.metadata, old.metadata, metaOptions), ...validateCronJobSpec(cj.spec ?? {})],
  warnings: scheduleWarnings,
  subresources: { status: statusSubresource<CronJob>(metaOptions) },
  table: podTemplateTable<CronJob>({
    columns: [
      column('Schedule', 'string', 'The schedule in Cron format.'),
      column('Suspend', 'boolean', 'Whether later runs are suspended.'),
      column('Active', 'integer', 'Jobs of this CronJob still running.'),
      column('Last Schedule', 'string', 'When a job was last scheduled.'),
    ],
    cells: (cj, now) => {
      const suspend = cj.spec?.suspend;
      return [
        cj.spec?.schedule ?? '',
        suspend === undefined ? '<unset>' : suspend ? 'True' : 'False',
        (cj.status?.active ?? []).length,
        cj.status?.lastScheduleTime ? ageOf(cj.status.lastScheduleTime, now) : '<none>',
      ];
    },
    template: (cj) => cj.spec?.jobTemplate?.spec?.template,
    selector: { description: 'Label selector of the jobs.', text: (cj) => selectorText(cj.spec?.jobTemplate?.spec?.selector) },
  }),
} satisfies ResourceStrategy<CronJob>;
