import { notSupported, type FieldErrorList, type LabelSelectorObject } from '@cluster/apimachinery';
import { defaultPodTemplateSpec } from '../../core/pod-spec/defaults.js';
import type { Workload } from '../../core/pod-spec/types.js';
import { validateSelectorMatchesTemplate } from '../workload/selector.js';
import { selectorText, validateSelectorImmutable, validateWorkloadTemplate, workloadStrategy } from '../workload/strategy.js';
import { column, orNone, podTemplateTable } from '../workload/table.js';

export interface DaemonSet extends Workload {
  spec?: Workload['spec'] & {
    selector?: LabelSelectorObject;
    updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
  };
  status?: Workload['status'] & {
    desiredNumberScheduled?: number;
    currentNumberScheduled?: number;
    numberReady?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
  };
}

const UPDATE_TYPES = ['OnDelete', 'RollingUpdate'];

/** Upstream's SetDefaults_DaemonSet. Mutates `ds`. */
export function defaultDaemonSet(ds: DaemonSet): void {
  const spec = (ds.spec ??= {});
  const us = (spec.updateStrategy ??= {});
  us.type ??= 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = (us.rollingUpdate ??= {});
    ru.maxUnavailable ??= 1;
    ru.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultPodTemplateSpec(spec.template);
}

function validateSpec(ds: DaemonSet): FieldErrorList {
  const spec = ds.spec ?? {};
  const errs = [
    ...validateSelectorMatchesTemplate(spec.selector, spec.template?.metadata?.labels, 'spec', 'daemonset'),
    ...validateWorkloadTemplate(ds),
  ];
  const type = spec.updateStrategy?.type;
  if (type !== undefined && !UPDATE_TYPES.includes(type)) errs.push(notSupported('spec.updateStrategy.type', type, UPDATE_TYPES));
  return errs;
}

function nodeSelectorText(ds: DaemonSet): string {
  const sel = (ds.spec?.template?.spec?.['nodeSelector'] ?? {}) as Record<string, string>;
  return Object.entries(sel)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** DaemonSet behaviour (apps/v1): stored only; no scale subresource. */
export const daemonSetStrategy = workloadStrategy<DaemonSet>({
  defaults: defaultDaemonSet,
  validateSpec,
  validateSpecUpdate: validateSelectorImmutable,
  table: podTemplateTable<DaemonSet>({
    columns: [
      column('Desired', 'integer', 'Nodes that should run the daemon pod.'),
      column('Current', 'integer', 'Nodes running the daemon pod.'),
      column('Ready', 'integer', 'Nodes whose daemon pod is ready.'),
      column('Up-to-date', 'integer', 'Nodes running the current template.'),
      column('Available', 'integer', 'Nodes whose daemon pod is available.'),
      column('Node Selector', 'string', 'Node selector of the pod template.'),
    ],
    cells: (ds) => [
      ds.status?.desiredNumberScheduled ?? 0,
      ds.status?.currentNumberScheduled ?? 0,
      ds.status?.numberReady ?? 0,
      ds.status?.updatedNumberScheduled ?? 0,
      ds.status?.numberAvailable ?? 0,
      orNone(nodeSelectorText(ds)),
    ],
    template: (ds) => ds.spec?.template,
    selector: { description: 'Label selector of the pods.', text: (ds) => selectorText(ds.spec?.selector) },
  }),
});
