import type { FieldErrorList } from '@cluster/apimachinery';
import { cronJobStrategy } from './cronjobs/strategy.js';
import { jobStrategy } from './jobs/strategy.js';
import type { CronJob, Job } from './types.js';

const brief = (errs: FieldErrorList) => errs.map((e) => `${e.field} ${e.type}`);
const podTemplate = (restartPolicy?: string) => ({
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'c', image: 'busybox' }] },
});

function newJob(spec: Job['spec'], name = 'pi'): Job {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'default', uid: 'u-1' }, spec };
}

/** Runs a create through the strategy as the registry does: prepare, then validate. */
function createJob(job: Job): FieldErrorList {
  jobStrategy.prepareForCreate(job);
  return jobStrategy.validate(job);
}

describe('Job', () => {
  test('defaults and the generated selector, as upstream stores a Job', () => {
    const job = newJob({ template: podTemplate('Never') });
    expect(createJob(job)).toEqual([]);
    expect(job.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } },
    });
    expect(job.spec?.template?.metadata?.labels).toEqual({
      'batch.kubernetes.io/controller-uid': 'u-1',
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': 'u-1',
      'job-name': 'pi',
    });
    expect(job.metadata.generation).toBe(1);
  });

  test.each([
    ['no restartPolicy (defaulted to Always)', { template: podTemplate() }, ['spec.template.spec.restartPolicy FieldValueRequired']],
    ['restartPolicy Always', { template: podTemplate('Always') }, ['spec.template.spec.restartPolicy FieldValueRequired']],
    ['restartPolicy OnFailure', { template: podTemplate('OnFailure') }, []],
    ['negative parallelism', { parallelism: -1, template: podTemplate('Never') }, ['spec.parallelism FieldValueInvalid']],
    ['negative backoffLimit', { backoffLimit: -1, template: podTemplate('Never') }, ['spec.backoffLimit FieldValueInvalid']],
    ['unknown completionMode', { completionMode: 'Sometimes', template: podTemplate('Never') }, ['spec.completionMode FieldValueNotSupported']],
    ['Indexed without completions', { completionMode: 'Indexed', parallelism: 2, template: podTemplate('Never') }, ['spec.completions FieldValueRequired']],
    ['backoffLimitPerIndex without Indexed', { backoffLimitPerIndex: 1, template: podTemplate('Never') }, ['spec.backoffLimitPerIndex FieldValueForbidden']],
    [
      'a selector of its own without manualSelector',
      { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, ...podTemplate('Never') } },
      ['spec.selector FieldValueInvalid'],
    ],
    [
      'a manual selector that does not select the template',
      { manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'y' } }, ...podTemplate('Never') } },
      ['spec.template.metadata.labels FieldValueInvalid'],
    ],
    ['a manual selector left out', { manualSelector: true, template: podTemplate('Never') }, ['spec.selector FieldValueRequired']],
    [
      'a pod failure policy rule without action or requirement',
      { podFailurePolicy: { rules: [{ action: 'Explode' }] }, template: podTemplate('Never') },
      ['spec.podFailurePolicy.rules[0].action FieldValueNotSupported', 'spec.podFailurePolicy.rules[0] FieldValueInvalid'],
    ],
  ])('%s', (_name, spec, expected) => {
    expect(brief(createJob(newJob(spec as Job['spec'])))).toEqual(expected);
  });

  test('an Indexed Job whose last pod name would not be a DNS label is refused', () => {
    const errs = createJob(newJob({ completionMode: 'Indexed', completions: 10, template: podTemplate('Never') }, 'a'.repeat(62)));
    expect(brief(errs)).toContain('metadata.name FieldValueInvalid');
  });

  test('completions, selector and template are immutable; parallelism is not', () => {
    const old = newJob({ template: podTemplate('Never') });
    createJob(old);
    old.metadata.resourceVersion = '5';
    const scaled = structuredClone(old);
    scaled.spec!.parallelism = 3;
    jobStrategy.prepareForUpdate(scaled, old);
    expect(jobStrategy.validateUpdate(scaled, old)).toEqual([]);
    expect(scaled.metadata.generation).toBe(2);
    const changed = structuredClone(old);
    changed.spec!.completions = 4;
    changed.spec!.template!.spec!.containers![0]!.image = 'other';
    jobStrategy.prepareForUpdate(changed, old);
    expect(brief(jobStrategy.validateUpdate(changed, old))).toEqual(['spec.completions FieldValueInvalid', 'spec.template FieldValueInvalid']);
  });

  test('a suspended Job that never started may change its scheduling directives', () => {
    const old = newJob({ suspend: true, template: podTemplate('Never') });
    createJob(old);
    old.metadata.resourceVersion = '5';
    const next = structuredClone(old);
    next.spec!.template!.spec!['nodeSelector'] = { zone: 'a' };
    next.spec!.template!.metadata!.annotations = { a: 'b' };
    jobStrategy.prepareForUpdate(next, old);
    expect(jobStrategy.validateUpdate(next, old)).toEqual([]);
    next.spec!.template!.spec!.containers![0]!.image = 'other';
    expect(brief(jobStrategy.validateUpdate(next, old))).toEqual(['spec.template FieldValueInvalid']);
  });

  test('status: counters are not negative, uncounted pods unique', () => {
    const job = newJob({ template: podTemplate('Never') });
    createJob(job);
    job.metadata.resourceVersion = '5';
    const status = jobStrategy.subresources.status;
    const next = status.merge({ ...job, status: { active: -1, uncountedTerminatedPods: { succeeded: ['a'], failed: ['a', ''] } } }, job);
    expect(brief(status.validateUpdate(next, job))).toEqual([
      'status.active FieldValueInvalid',
      'status.uncountedTerminatedPods.failed[0] FieldValueDuplicate',
      'status.uncountedTerminatedPods.failed[1] FieldValueInvalid',
    ]);
    expect(next.spec).toEqual(job.spec);
  });

  test('table cells follow upstream printJob', () => {
    const job = newJob({ template: podTemplate('Never') });
    createJob(job);
    job.status = { succeeded: 1, startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:01:05Z' };
    const cells = jobStrategy.table.cells(job);
    expect(cells.slice(0, 3)).toEqual(['pi', '1/1', '65s']);
    expect(jobStrategy.selectableFields(job)).toEqual({ 'status.successful': '1' });
  });
});

function newCronJob(spec: CronJob['spec'], name = 'nightly'): CronJob {
  return { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name, namespace: 'default', uid: 'u-2' }, spec };
}

function createCronJob(cj: CronJob): FieldErrorList {
  cronJobStrategy.prepareForCreate(cj);
  return cronJobStrategy.validate(cj);
}

describe('CronJob', () => {
  const jobTemplate = { spec: { template: podTemplate('OnFailure') } };

  test('defaults as upstream SetDefaults_CronJob', () => {
    const cj = newCronJob({ schedule: '@hourly', jobTemplate });
    expect(createCronJob(cj)).toEqual([]);
    expect(cj.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  });

  test.each([
    ['no schedule', { jobTemplate }, ['spec.schedule FieldValueRequired']],
    ['a bad schedule', { schedule: '* * *', jobTemplate }, ['spec.schedule FieldValueInvalid']],
    ['TZ in the schedule alone (v1.24 accepted it)', { schedule: 'TZ=UTC 0 3 * * *', jobTemplate }, []],
    ['TZ in the schedule and the timeZone field', { schedule: 'CRON_TZ=UTC 0 3 * * *', timeZone: 'UTC', jobTemplate }, ['spec.schedule FieldValueInvalid']],
    ['a valid timeZone', { schedule: '0 3 * * *', timeZone: 'Europe/Berlin', jobTemplate }, []],
    ['an unknown timeZone', { schedule: '0 3 * * *', timeZone: 'bad-time-zone', jobTemplate }, ['spec.timeZone FieldValueInvalid']],
    ['timeZone Local', { schedule: '0 3 * * *', timeZone: 'Local', jobTemplate }, ['spec.timeZone FieldValueInvalid']],
    ['an empty timeZone', { schedule: '0 3 * * *', timeZone: '', jobTemplate }, ['spec.timeZone FieldValueInvalid']],
    ['an unknown concurrencyPolicy', { schedule: '0 3 * * *', concurrencyPolicy: 'Sometimes', jobTemplate }, ['spec.concurrencyPolicy FieldValueNotSupported']],
    ['a negative startingDeadlineSeconds', { schedule: '0 3 * * *', startingDeadlineSeconds: -1, jobTemplate }, ['spec.startingDeadlineSeconds FieldValueInvalid']],
    ['a negative history limit', { schedule: '0 3 * * *', failedJobsHistoryLimit: -1, jobTemplate }, ['spec.failedJobsHistoryLimit FieldValueInvalid']],
    [
      'a selector in the job template',
      { schedule: '0 3 * * *', jobTemplate: { spec: { ...jobTemplate.spec, selector: { matchLabels: { a: 'b' } } } } },
      ['spec.jobTemplate.spec.selector FieldValueInvalid'],
    ],
    [
      'restartPolicy Always in the job template',
      { schedule: '0 3 * * *', jobTemplate: { spec: { template: podTemplate('Always') } } },
      ['spec.jobTemplate.spec.template.spec.restartPolicy FieldValueRequired'],
    ],
  ])('%s', (_name, spec, expected) => {
    expect(brief(createCronJob(newCronJob(spec as CronJob['spec'])))).toEqual(expected);
  });

  test('names longer than 52 characters are refused on create only', () => {
    const cj = newCronJob({ schedule: '@daily', jobTemplate }, 'c'.repeat(53));
    expect(brief(createCronJob(cj))).toEqual(['metadata.name FieldValueInvalid']);
    cj.metadata.resourceVersion = '3';
    const next = structuredClone(cj);
    cronJobStrategy.prepareForUpdate(next, cj);
    expect(cronJobStrategy.validateUpdate(next, cj)).toEqual([]);
  });

  test('a schedule with TZ warns, as upstream does', () => {
    expect(cronJobStrategy.warnings(newCronJob({ schedule: 'TZ=UTC @daily' }))).toHaveLength(1);
    expect(cronJobStrategy.warnings(newCronJob({ schedule: '@daily' }))).toEqual([]);
  });
});
