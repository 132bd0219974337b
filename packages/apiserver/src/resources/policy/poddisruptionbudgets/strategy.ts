import {
  child,
  duplicate,
  index,
  invalid,
  notSupported,
  required,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type KubeObject,
  type LabelSelectorObject,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { validateLabelSelector } from '../../apps/workload/selector.js';
import { column } from '../../apps/workload/table.js';
import { validateNotMoreThan100Percent, validatePositiveIntOrPercent } from '../../int-or-percent.js';
import { generationPrepare, statusSubresource } from '../../status-subresource.js';

export interface PodDisruptionBudget extends KubeObject {
  spec?: {
    minAvailable?: number | string;
    maxUnavailable?: number | string;
    selector?: LabelSelectorObject;
    unhealthyPodEvictionPolicy?: string;
  };
  status?: {
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    expectedPods?: number;
    conditions?: Array<{ type?: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string; observedGeneration?: number }>;
    [field: string]: unknown;
  };
}

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain' };
const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];

/** Upstream's ValidatePodDisruptionBudgetSpec: one of minAvailable / maxUnavailable, each a count or a percentage up to 100%. */
export function validatePdbSpec(spec: NonNullable<PodDisruptionBudget['spec']>): FieldErrorList {
  const errs: FieldErrorList = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    errs.push(invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const f of ['minAvailable', 'maxUnavailable'] as const) {
    const v = spec[f];
    if (v === undefined) continue;
    errs.push(...validatePositiveIntOrPercent(v, child('spec', f)), ...validateNotMoreThan100Percent(v, child('spec', f)));
  }
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && !EVICTION_POLICIES.includes(policy)) errs.push(notSupported('spec.unhealthyPodEvictionPolicy', policy, EVICTION_POLICIES));
  return errs;
}

/** Upstream's ValidatePodDisruptionBudgetStatusUpdate (policy/v1): well-formed conditions, counters not negative. */
export function validatePdbStatus(status: PodDisruptionBudget['status']): FieldErrorList {
  const s = status ?? {};
  const errs: FieldErrorList = [];
  const seen = new Set<string>();
  (s.conditions ?? []).forEach((c, i) => {
    const p = index('status.conditions', i);
    if (!c.type) errs.push(required(child(p, 'type')));
    else if (seen.has(c.type)) errs.push(duplicate(child(p, 'type'), c.type));
    else seen.add(c.type);
    if (!CONDITION_STATUSES.includes(c.status ?? '')) errs.push(notSupported(child(p, 'status'), c.status ?? '', CONDITION_STATUSES));
    if (!c.lastTransitionTime) errs.push(required(child(p, 'lastTransitionTime'), 'must be set'));
    if (!c.reason) errs.push(required(child(p, 'reason'), 'must be set'));
    if (c.observedGeneration !== undefined && c.observedGeneration < 0) errs.push(invalid(child(p, 'observedGeneration'), c.observedGeneration, 'must be greater than or equal to zero'));
  });
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const) {
    const v = s[f];
    if (v !== undefined && v < 0) errs.push(invalid(child('status', f), v, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** A PodDisruptionBudget's IntOrString as kubectl prints it, or N/A. */
const intOrPercentCell = (v: number | string | undefined): string => (v === undefined ? 'N/A' : String(v));

/**
 * PodDisruptionBudget behaviour (policy/v1): stored only (the disruption controller fills the
 * status, the eviction API is not served here); updates need a resourceVersion, as upstream.
 */
export const podDisruptionBudgetStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  ...generationPrepare<PodDisruptionBudget>((pdb) => {
    pdb.spec ??= {};
  }),
  validate: (pdb: PodDisruptionBudget) => [...validateObjectMeta(pdb.metadata, metaOptions), ...validatePdbSpec(pdb.spec ?? {})],
  validateUpdate: (pdb: PodDisruptionBudget, old: PodDisruptionBudget) => [
    ...validateObjectMetaUpdate(pdb.metadata, old.metadata, metaOptions),
    ...validatePdbSpec(pdb.spec ?? {}),
  ],
  subresources: { status: statusSubresource<PodDisruptionBudget>(metaOptions, (pdb) => validatePdbStatus(pdb.status)) },
  table: {
    columns: [
      nameColumn,
      column('Min Available', 'string', 'The minimum number of pods that must be available.'),
      column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
      column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
      ageColumn,
    ],
    cells: (pdb: PodDisruptionBudget) => [
      pdb.metadata.name ?? '',
      intOrPercentCell(pdb.spec?.minAvailable),
      intOrPercentCell(pdb.spec?.maxUnavailable),
      pdb.status?.disruptionsAllowed ?? 0,
      ageOf(pdb.metadata.creationTimestamp, new Date()),
    ],
  },
} satisfies ResourceStrategy<PodDisruptionBudget>;
