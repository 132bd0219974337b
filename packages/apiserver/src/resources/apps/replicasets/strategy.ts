import type { LabelSelectorObject } from '@cluster/apimachinery';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { defaultPodTemplateSpec } from '../../core/pod-spec/defaults.js';
import type { Workload } from '../../core/pod-spec/types.js';
import { validateSelectorMatchesTemplate } from '../workload/selector.js';
import { selectorText, validateReplicas, validateSelectorImmutable, validateWorkloadTemplate, workloadStrategy } from '../workload/strategy.js';
import { column, containerCells, containersColumn, imagesColumn, orNone, selectorColumn } from '../workload/table.js';

export interface ReplicaSet extends Workload {
  spec?: Workload['spec'] & { selector?: LabelSelectorObject };
}

/** ReplicaSet behaviour (apps/v1): stored only; replicas default to 1, selector immutable. */
export const replicaSetStrategy = workloadStrategy<ReplicaSet>({
  defaults(rs) {
    const spec = (rs.spec ??= {});
    spec.replicas ??= 1;
    defaultPodTemplateSpec(spec.template);
  },
  validateSpec: (rs) => [
    ...validateReplicas(rs.spec?.replicas),
    ...validateSelectorMatchesTemplate(rs.spec?.selector, rs.spec?.template?.metadata?.labels, 'spec', 'replicaset'),
    ...validateWorkloadTemplate(rs),
  ],
  validateSpecUpdate: validateSelectorImmutable,
  scaleSelector: (rs) => selectorText(rs.spec?.selector),
  selectableFields: (rs) => ({ 'status.replicas': String(rs.status?.replicas ?? 0) }),
  table: {
    columns: [
      nameColumn,
      column('Desired', 'integer', 'Desired replicas.'),
      column('Current', 'integer', 'Observed replicas.'),
      column('Ready', 'integer', 'Ready replicas.'),
      ageColumn,
      containersColumn,
      imagesColumn,
      selectorColumn,
    ],
    cells: (rs) => [
      rs.metadata.name ?? '',
      rs.spec?.replicas ?? 0,
      rs.status?.replicas ?? 0,
      rs.status?.readyReplicas ?? 0,
      ageOf(rs.metadata.creationTimestamp, new Date()),
      ...containerCells(rs.spec?.template),
      orNone(selectorText(rs.spec?.selector)),
    ],
  },
});
