import { isDeepStrictEqual } from 'node:util';
import {
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  isDNS1123Label,
  key,
  labelSelectorFromLabelSelectorObject,
  notSupported,
  required,
  tooMany,
  validateImmutableField,
  type FieldErrorList,
} from '@cluster/apimachinery';
import { validatePodTemplateSpec } from '../core/pod-spec/validation.js';
import type { PodTemplateSpec } from '../core/pod-spec/types.js';
import { validateLabelSelector } from '../apps/workload/selector.js';
import type { Job, JobSpec, JobStatus } from './types.js';

/** Labels the server puts on a Job's pod template and selects on (upstream's generated selector). */
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';

const COMPLETION_MODES = ['Indexed', 'NonIndexed'];
const REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];
const FAILURE_ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const EXIT_CODE_OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const MAX_PARALLELISM_INDEXED = 100000;
const MAX_POD_FAILURE_POLICY_RULES = 20;

const nonNegative = (v: number | undefined, path: string): FieldErrorList =>
  v !== undefined && v < 0 ? [invalid(path, v, 'must be greater than or equal to 0')] : [];

function validatePodFailurePolicy(spec: JobSpec, path: string): FieldErrorList {
  const rules = spec.podFailurePolicy?.rules ?? [];
  const errs: FieldErrorList = [];
  const rulesPath = child(path, 'rules');
  if (rules.length > MAX_POD_FAILURE_POLICY_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_POD_FAILURE_POLICY_RULES));
  rules.forEach((rule, i) => {
    const rp = index(rulesPath, i);
    if (!rule.action) errs.push(required(child(rp, 'action')));
    else if (!FAILURE_ACTIONS.includes(rule.action)) errs.push(notSupported(child(rp, 'action'), rule.action, FAILURE_ACTIONS));
    if (rule.action === 'FailIndex' && spec.backoffLimitPerIndex === undefined) {
      errs.push(forbidden(child(rp, 'action'), 'requires the backoffLimitPerIndex to be set'));
    }
    const codes = rule.onExitCodes;
    const conditions = rule.onPodConditions;
    if (codes && conditions && conditions.length) errs.push(invalid(rp, 'both', 'specifying both OnExitCodes and OnPodConditions is not supported'));
    else if (!codes && !(conditions && conditions.length)) errs.push(invalid(rp, null, 'specifying one of OnExitCodes and OnPodConditions is required'));
    if (codes) {
      const cp = child(rp, 'onExitCodes');
      if (!codes.operator) errs.push(required(child(cp, 'operator')));
      else if (!EXIT_CODE_OPERATORS.includes(codes.operator)) errs.push(notSupported(child(cp, 'operator'), codes.operator, EXIT_CODE_OPERATORS));
      const values = codes.values ?? [];
      if (values.length === 0) errs.push(invalid(child(cp, 'values'), values, 'at least one value is required'));
      const seen = new Set<number>();
      values.forEach((v, j) => {
        const vp = index(child(cp, 'values'), j);
        if (seen.has(v)) errs.push(duplicate(vp, v));
        if (codes.operator === 'In' && v === 0) errs.push(invalid(vp, v, 'must not be 0 for the In operator'));
        if (j > 0 && v < values[j - 1]!) errs.push(invalid(vp, v, 'must be ordered'));
        seen.add(v);
      });
    }
    (conditions ?? []).forEach((c, j) => {
      const pp = index(child(rp, 'onPodConditions'), j);
      if (!c.type) errs.push(required(child(pp, 'type')));
      if (!c.status) errs.push(required(child(pp, 'status')));
      else if (!CONDITION_STATUSES.includes(c.status)) errs.push(notSupported(child(pp, 'status'), c.status, CONDITION_STATUSES));
    });
  });
  return errs;
}

/**
 * Upstream's validateJobSpec: counts, modes and the pod template, whose restartPolicy must be
 * OnFailure or Never (pods of a Job run to completion). Shared by Job and CronJob's jobTemplate.
 */
export function validateJobSpecCommon(spec: JobSpec, path: string): FieldErrorList {
  const errs: FieldErrorList = [
    ...nonNegative(spec.parallelism, child(path, 'parallelism')),
    ...nonNegative(spec.completions, child(path, 'completions')),
    ...nonNegative(spec.activeDeadlineSeconds, child(path, 'activeDeadlineSeconds')),
    ...nonNegative(spec.backoffLimit, child(path, 'backoffLimit')),
    ...nonNegative(spec.ttlSecondsAfterFinished, child(path, 'ttlSecondsAfterFinished')),
    ...nonNegative(spec.backoffLimitPerIndex, child(path, 'backoffLimitPerIndex')),
    ...nonNegative(spec.maxFailedIndexes, child(path, 'maxFailedIndexes')),
  ];
  const mode = spec.completionMode;
  if (mode !== undefined) {
    if (!COMPLETION_MODES.includes(mode)) errs.push(notSupported(child(path, 'completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (spec.completions === undefined) errs.push(required(child(path, 'completions'), 'when completion mode is Indexed'));
      if (spec.parallelism !== undefined && spec.parallelism > MAX_PARALLELISM_INDEXED) {
        errs.push(invalid(child(path, 'parallelism'), spec.parallelism, `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`));
      }
    }
  }
  if (spec.backoffLimitPerIndex !== undefined && mode !== 'Indexed') {
    errs.push(forbidden(child(path, 'backoffLimitPerIndex'), 'requires indexed completion mode'));
  }
  if (spec.maxFailedIndexes !== undefined && spec.backoffLimitPerIndex === undefined) {
    errs.push(required(child(path, 'backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  if (spec.podReplacementPolicy !== undefined) {
    if (!REPLACEMENT_POLICIES.includes(spec.podReplacementPolicy)) {
      errs.push(notSupported(child(path, 'podReplacementPolicy'), spec.podReplacementPolicy, REPLACEMENT_POLICIES));
    } else if (spec.podReplacementPolicy !== 'Failed' && spec.podFailurePolicy) {
      errs.push(notSupported(child(path, 'podReplacementPolicy'), spec.podReplacementPolicy, ['Failed']));
    }
  }
  if (spec.podFailurePolicy) errs.push(...validatePodFailurePolicy(spec, child(path, 'podFailurePolicy')));
  const templatePath = child(path, 'template');
  errs.push(...validatePodTemplateSpec(spec.template, templatePath, { requireAlwaysRestart: false }));
  const restart = spec.template?.spec?.restartPolicy;
  const restartPath = child(templatePath, 'spec', 'restartPolicy');
  if (restart === 'Always' || restart === undefined || restart === '') {
    // Defaulting makes an unset policy Always, which a Job's pods cannot have.
    if (!errs.some((e) => e.field === restartPath)) errs.push(required(restartPath, 'valid values: "OnFailure", "Never"'));
  } else if (restart !== 'OnFailure' && restart !== 'Never') {
    if (!errs.some((e) => e.field === restartPath)) errs.push(notSupported(restartPath, restart, ['OnFailure', 'Never']));
  }
  return errs;
}

/** True when the label selector object selects these labels (a malformed selector selects nothing). */
function selects(selector: JobSpec['selector'], labels: Record<string, string>): boolean | undefined {
  try {
    return labelSelectorFromLabelSelectorObject(selector).matches(labels);
  } catch {
    return undefined;
  }
}

/** Upstream's ValidateJobSpec: the common rules plus a selector that selects the template's labels. */
export function validateJobSpec(spec: JobSpec, path = 'spec'): FieldErrorList {
  const errs = validateJobSpecCommon(spec, path);
  const selPath = child(path, 'selector');
  if (!spec.selector) errs.push(required(selPath));
  else errs.push(...validateLabelSelector(spec.selector, selPath));
  const labels = spec.template?.metadata?.labels ?? {};
  if (spec.selector && selects(spec.selector, labels) === false) {
    errs.push(invalid(child(path, 'template', 'metadata', 'labels'), labels, '`selector` does not match template `labels`'));
  }
  return errs;
}

/** Upstream's ValidateGeneratedSelector: without manualSelector the selector must be the generated one. */
export function validateGeneratedSelector(job: Job): FieldErrorList {
  const spec = job.spec ?? {};
  if (spec.manualSelector === true || !spec.selector) return [];
  const errs: FieldErrorList = [];
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  if (!uid) errs.push(required('metadata.uid'));
  const labels = spec.template?.metadata?.labels ?? {};
  const metaPath = 'spec.template.metadata';
  for (const [label, want] of [
    [CONTROLLER_UID_LABEL, uid],
    [JOB_NAME_LABEL, name],
  ] as const) {
    const have = labels[label];
    const labelPath = key(child(metaPath, 'labels'), label);
    if (have === undefined) errs.push(required(labelPath, want));
    else if (have !== want) errs.push(invalid(labelPath, labels, `must be '${want}'`));
  }
  if (selects(spec.selector, { [CONTROLLER_UID_LABEL]: uid, [JOB_NAME_LABEL]: name }) === false) {
    errs.push(invalid('spec.selector', spec.selector, '`selector` not auto-generated'));
  }
  return errs;
}

/** Indexed pods are named `<job>-<index>`: the largest index must still make a DNS label. */
export function validateIndexedHostnames(job: Job): FieldErrorList {
  const spec = job.spec ?? {};
  if (spec.completionMode !== 'Indexed' || !spec.completions || spec.completions <= 0) return [];
  const name = job.metadata.name ?? '';
  const hostname = `${name}-${spec.completions - 1}`;
  return isDNS1123Label(hostname).length ? [invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`)] : [];
}

/** The template fields a suspended Job that never started may change (upstream's mutable scheduling directives). */
function withMutableSchedulingFrom(old: PodTemplateSpec | undefined, next: PodTemplateSpec | undefined): PodTemplateSpec | undefined {
  if (!old) return old;
  const spec: Record<string, unknown> = { ...(old.spec ?? {}) };
  const nextSpec: Record<string, unknown> = next?.spec ?? {};
  for (const f of ['nodeSelector', 'tolerations', 'schedulingGates'] as const) {
    if (nextSpec[f] === undefined) delete spec[f];
    else spec[f] = nextSpec[f];
  }
  const oldAffinity = spec['affinity'] as Record<string, unknown> | undefined;
  const nextAffinity = nextSpec['affinity'] as Record<string, unknown> | undefined;
  const affinity: Record<string, unknown> = { ...(oldAffinity ?? {}) };
  if (nextAffinity?.['nodeAffinity'] === undefined) delete affinity['nodeAffinity'];
  else affinity['nodeAffinity'] = nextAffinity['nodeAffinity'];
  if (Object.keys(affinity).length === 0 && nextAffinity === undefined) delete spec['affinity'];
  else spec['affinity'] = affinity;
  const metadata = { ...(old.metadata ?? {}) };
  for (const f of ['labels', 'annotations'] as const) {
    if (next?.metadata?.[f] === undefined) delete metadata[f];
    else metadata[f] = next.metadata[f];
  }
  return { ...old, metadata, spec };
}

/** Upstream's ValidateJobSpecUpdate: what may not change once a Job exists. */
export function validateJobSpecUpdate(job: Job, old: Job): FieldErrorList {
  const spec = job.spec ?? {};
  const oldSpec = old.spec ?? {};
  const eq = (a: unknown, b: unknown) => isDeepStrictEqual(a, b);
  const errs: FieldErrorList = [
    ...validateImmutableField(spec.completions, oldSpec.completions, 'spec.completions', eq),
    ...validateImmutableField(spec.selector, oldSpec.selector, 'spec.selector', eq),
    ...validateImmutableField(spec.completionMode, oldSpec.completionMode, 'spec.completionMode', eq),
    ...validateImmutableField(spec.podFailurePolicy, oldSpec.podFailurePolicy, 'spec.podFailurePolicy', eq),
    ...validateImmutableField(spec.backoffLimitPerIndex, oldSpec.backoffLimitPerIndex, 'spec.backoffLimitPerIndex', eq),
  ];
  if (spec.managedBy !== oldSpec.managedBy) errs.push(...validateImmutableField(spec.managedBy, oldSpec.managedBy, 'spec.managedBy'));
  const mayReschedule = oldSpec.suspend === true && !old.status?.startTime;
  const oldTemplate = mayReschedule ? withMutableSchedulingFrom(oldSpec.template, spec.template) : oldSpec.template;
  errs.push(...validateImmutableField(spec.template, oldTemplate, 'spec.template', eq));
  return errs;
}

/** Upstream's validateJobStatus: counters are not negative, uncounted pods are unique and named. */
export function validateJobStatus(status: JobStatus | undefined): FieldErrorList {
  const s = status ?? {};
  const errs: FieldErrorList = [
    ...nonNegative(s.active, 'status.active'),
    ...nonNegative(s.succeeded, 'status.succeeded'),
    ...nonNegative(s.failed, 'status.failed'),
    ...nonNegative(s.ready, 'status.ready'),
    ...nonNegative(s.terminating, 'status.terminating'),
  ];
  const seen = new Set<string>();
  for (const which of ['succeeded', 'failed'] as const) {
    (s.uncountedTerminatedPods?.[which] ?? []).forEach((uid, i) => {
      const p = index(child('status.uncountedTerminatedPods', which), i);
      if (uid === '') errs.push(invalid(p, uid, 'must not be empty'));
      else if (seen.has(uid)) errs.push(duplicate(p, uid));
      else seen.add(uid);
    });
  }
  return errs;
}
