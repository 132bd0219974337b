import { child, invalid, notSupported, type FieldErrorList, type LabelSelectorObject } from '@cluster/apimachinery';
import { defaultPodTemplateSpec } from '../../core/pod-spec/defaults.js';
import type { Workload } from '../../core/pod-spec/types.js';
import { validateSelectorMatchesTemplate } from '../workload/selector.js';
import {
  selectorText,
  validateReplicas,
  validateSelectorImmutable,
  validateWorkloadTemplate,
  workloadStrategy,
} from '../workload/strategy.js';
import { column, podTemplateTable } from '../workload/table.js';

interface RollingUpdate {
  maxUnavailable?: number | string;
  maxSurge?: number | string;
}

export interface Deployment extends Workload {
  spec?: Workload['spec'] & {
    selector?: LabelSelectorObject;
    strategy?: { type?: string; rollingUpdate?: RollingUpdate };
    progressDeadlineSeconds?: number;
    paused?: boolean;
  };
}

const STRATEGY_TYPES = ['Recreate', 'RollingUpdate'];

/** Upstream's SetDefaults_Deployment. Mutates `d`. */
export function defaultDeployment(d: Deployment): void {
  const spec = (d.spec ??= {});
  spec.replicas ??= 1;
  const strategy = (spec.strategy ??= {});
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = (strategy.rollingUpdate ??= {});
    ru.maxUnavailable ??= '25%';
    ru.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  defaultPodTemplateSpec(spec.template);
}

/** An IntOrString that is a non-negative count or a percentage of at most 100%. */
function validateIntOrPercent(v: number | string | undefined, path: string): FieldErrorList {
  if (v === undefined) return [];
  if (typeof v === 'number') return v < 0 ? [invalid(path, v, 'must be greater than or equal to 0')] : [];
  const m = /^(\d+)%$/.exec(v);
  if (!m) return [invalid(path, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  return Number(m[1]) > 100 ? [invalid(path, v, 'must not be greater than 100%')] : [];
}

const isZero = (v: number | string | undefined) => v === undefined || v === 0 || v === '0%';

function validateDeploymentSpec(d: Deployment): FieldErrorList {
  const spec = d.spec ?? {};
  const errs = [
    ...validateReplicas(spec.replicas),
    ...validateSelectorMatchesTemplate(spec.selector, spec.template?.metadata?.labels, 'spec', 'deployment'),
    ...validateWorkloadTemplate(d),
  ];
  const strategy = spec.strategy ?? {};
  if (strategy.type !== undefined && !STRATEGY_TYPES.includes(strategy.type)) {
    errs.push(notSupported('spec.strategy.type', strategy.type, STRATEGY_TYPES));
  }
  if (strategy.type === 'Recreate' && strategy.rollingUpdate) {
    errs.push({ type: 'FieldValueForbidden', field: 'spec.strategy.rollingUpdate', detail: 'may not be specified when strategy `type` is \'Recreate\'' });
  }
  const ru = strategy.rollingUpdate;
  if (ru) {
    const ruPath = 'spec.strategy.rollingUpdate';
    errs.push(...validateIntOrPercent(ru.maxUnavailable, child(ruPath, 'maxUnavailable')));
    errs.push(...validateIntOrPercent(ru.maxSurge, child(ruPath, 'maxSurge')));
    if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge)) {
      errs.push(invalid(child(ruPath, 'maxUnavailable'), ru.maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
    }
  }
  if (spec.revisionHistoryLimit !== undefined && spec.revisionHistoryLimit < 0) {
    errs.push(invalid('spec.revisionHistoryLimit', spec.revisionHistoryLimit, 'must be greater than or equal to 0'));
  }
  if (spec.progressDeadlineSeconds !== undefined && spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
    errs.push(invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** Deployment behaviour (apps/v1): stored only; nothing rolls anything out. */
export const deploymentStrategy = workloadStrategy<Deployment>({
  defaults: defaultDeployment,
  validateSpec: validateDeploymentSpec,
  statusKeepsLabels: true,
  validateSpecUpdate: validateSelectorImmutable,
  scaleSelector: (d) => selectorText(d.spec?.selector),
  table: podTemplateTable<Deployment>({
    columns: [
      column('Ready', 'string', 'Ready replicas out of desired replicas.'),
      column('Up-to-date', 'integer', 'Replicas updated to the current template.'),
      column('Available', 'integer', 'Replicas available to users.'),
    ],
    cells: (d) => [`${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`, d.status?.updatedReplicas ?? 0, d.status?.availableReplicas ?? 0],
    template: (d) => d.spec?.template,
    selector: { description: 'Label selector of the pods.', text: (d) => selectorText(d.spec?.selector) },
  }),
});
