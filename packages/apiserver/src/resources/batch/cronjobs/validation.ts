import { child, invalid, notSupported, required, type FieldErrorList } from '@cluster/apimachinery';
import { cronScheduleError, timeZoneError } from '../cron-schedule.js';
import type { CronJob, CronJobSpec } from '../types.js';
import { validateJobSpecCommon } from '../validation.js';

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
/** Job names are `<cronjob>-<11-character timestamp>` and must stay within 63 characters. */
const MAX_CRONJOB_NAME_LENGTH = 52;

const nonNegative = (v: number | undefined, path: string): FieldErrorList =>
  v !== undefined && v < 0 ? [invalid(path, v, 'must be greater than or equal to 0')] : [];

/** Upstream's validateTimeZone: unset, or an explicit IANA zone Go's time.LoadLocation knows. */
export function validateTimeZone(timeZone: string | undefined, path = 'spec.timeZone'): FieldErrorList {
  if (timeZone === undefined) return [];
  if (timeZone === '') return [invalid(path, timeZone, 'timeZone must be nil or non-empty string')];
  const errs: FieldErrorList = [];
  if (timeZone.toLowerCase() === 'local') {
    errs.push(invalid(path, timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  }
  const err = timeZoneError(timeZone);
  if (err) errs.push(invalid(path, timeZone, err));
  return errs;
}

/**
 * The schedule rules as upstream v1.24 had them: cron.ParseStandard must accept it (a leading
 * `TZ=` / `CRON_TZ=` location included), but a location in the schedule and the timeZone field
 * together are refused.
 */
export function validateSchedule(spec: CronJobSpec, path = 'spec.schedule'): FieldErrorList {
  const schedule = spec.schedule ?? '';
  if (schedule === '') return [required(path)];
  const errs: FieldErrorList = [];
  const err = cronScheduleError(schedule);
  if (err) errs.push(invalid(path, schedule, err));
  if (schedule.includes('TZ') && spec.timeZone !== undefined) {
    errs.push(invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  }
  return errs;
}

/** Upstream's ValidateCronJobSpec. */
export function validateCronJobSpec(spec: CronJobSpec): FieldErrorList {
  const errs: FieldErrorList = [...validateSchedule(spec), ...validateTimeZone(spec.timeZone)];
  errs.push(...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  const policy = spec.concurrencyPolicy ?? '';
  if (policy === '') errs.push(required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY_POLICIES.includes(policy)) errs.push(notSupported('spec.concurrencyPolicy', policy, CONCURRENCY_POLICIES));
  const templatePath = 'spec.jobTemplate';
  const jobSpec = spec.jobTemplate?.spec ?? {};
  errs.push(...validateJobSpecCommon(jobSpec, child(templatePath, 'spec')));
  // A CronJob's Jobs always get generated selectors.
  if (jobSpec.selector !== undefined) errs.push(invalid(child(templatePath, 'spec', 'selector'), jobSpec.selector, '`selector` will be auto-generated'));
  if (jobSpec.manualSelector === true) errs.push(notSupported(child(templatePath, 'spec', 'manualSelector'), jobSpec.manualSelector, ['nil', 'false']));
  errs.push(...nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'));
  errs.push(...nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'));
  return errs;
}

/** Checked on create only: old CronJobs with longer names stay updatable and deletable. */
export function validateCronJobName(cj: CronJob): FieldErrorList {
  const name = cj.metadata.name ?? '';
  return name.length > MAX_CRONJOB_NAME_LENGTH ? [invalid('metadata.name', name, `must be no more than ${MAX_CRONJOB_NAME_LENGTH} characters`)] : [];
}
