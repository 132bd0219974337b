import { invalid, notSupported, type FieldErrorList, type LabelSelectorObject } from '@cluster/apimachinery';
import { defaultPodTemplateSpec } from '../../core/pod-spec/defaults.js';
import type { Workload } from '../../core/pod-spec/types.js';
import { validateSelectorMatchesTemplate } from '../workload/selector.js';
import { selectorText, validateReplicas, validateSelectorImmutable, validateWorkloadTemplate, workloadStrategy } from '../workload/strategy.js';
import { column, podTemplateTable } from '../workload/table.js';

export interface StatefulSet extends Workload {
  spec?: Workload['spec'] & {
    selector?: LabelSelectorObject;
    serviceName?: string;
    podManagementPolicy?: string;
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number; maxUnavailable?: number | string } };
    persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
    volumeClaimTemplates?: Array<{ spec?: { volumeMode?: string }; [field: string]: unknown }>;
  };
}

const POLICIES = ['OrderedReady', 'Parallel'];
const UPDATE_TYPES = ['OnDelete', 'RollingUpdate'];

/** Upstream's SetDefaults_StatefulSet. Mutates `sts`. */
export function defaultStatefulSet(sts: StatefulSet): void {
  const spec = (sts.spec ??= {});
  spec.replicas ??= 1;
  spec.podManagementPolicy ??= 'OrderedReady';
  const us = (spec.updateStrategy ??= {});
  us.type ??= 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = (us.rollingUpdate ??= {});
    ru.partition ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  const retention = (spec.persistentVolumeClaimRetentionPolicy ??= {});
  retention.whenDeleted ??= 'Retain';
  retention.whenScaled ??= 'Retain';
  for (const t of spec.volumeClaimTemplates ?? []) {
    t.spec ??= {};
    t.spec.volumeMode ??= 'Filesystem';
  }
  defaultPodTemplateSpec(spec.template);
}

function validateSpec(sts: StatefulSet): FieldErrorList {
  const spec = sts.spec ?? {};
  const errs = [
    ...validateReplicas(spec.replicas),
    ...validateSelectorMatchesTemplate(spec.selector, spec.template?.metadata?.labels, 'spec', 'statefulset'),
    ...validateWorkloadTemplate(sts),
  ];
  if (spec.podManagementPolicy !== undefined && !POLICIES.includes(spec.podManagementPolicy)) {
    errs.push(notSupported('spec.podManagementPolicy', spec.podManagementPolicy, POLICIES));
  }
  const type = spec.updateStrategy?.type;
  if (type !== undefined && !UPDATE_TYPES.includes(type)) errs.push(notSupported('spec.updateStrategy.type', type, UPDATE_TYPES));
  const partition = spec.updateStrategy?.rollingUpdate?.partition;
  if (partition !== undefined && partition < 0) {
    errs.push(invalid('spec.updateStrategy.rollingUpdate.partition', partition, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** StatefulSet behaviour (apps/v1): stored only; selector immutable. */
export const statefulSetStrategy = workloadStrategy<StatefulSet>({
  defaults: defaultStatefulSet,
  validateSpec,
  validateSpecUpdate: validateSelectorImmutable,
  scaleSelector: (sts) => selectorText(sts.spec?.selector),
  // kubectl shows no Selector column for StatefulSets.
  table: podTemplateTable<StatefulSet>({
    columns: [column('Ready', 'string', 'Ready replicas out of desired replicas.')],
    cells: (sts) => [`${sts.status?.readyReplicas ?? 0}/${sts.spec?.replicas ?? 0}`],
    template: (sts) => sts.spec?.template,
  }),
});
