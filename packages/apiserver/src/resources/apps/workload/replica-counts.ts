import type { Workload } from '../../core/pod-spec/types.js';
import type { WorkloadKind } from './strategy.js';
import { column, podTemplateTable } from './table.js';

/**
 * What ReplicaSet and ReplicationController share beyond workloadStrategy: the table (Desired,
 * Current and Ready replicas), the `status.replicas` field selector and the Scale's selector. Only
 * the selector's form differs (a label selector against a plain map), so `selectorText` is given.
 */
export function replicaCountParts<T extends Workload>(selectorText: (obj: T) => string): Pick<WorkloadKind<T>, 'table' | 'selectableFields' | 'scaleSelector'> {
  return {
    scaleSelector: selectorText,
    selectableFields: (obj) => ({ 'status.replicas': String(obj.status?.replicas ?? 0) }),
    table: podTemplateTable<T>({
      columns: [
        column('Desired', 'integer', 'Desired replicas.'),
        column('Current', 'integer', 'Observed replicas.'),
        column('Ready', 'integer', 'Ready replicas.'),
      ],
      cells: (obj) => [obj.spec?.replicas ?? 0, obj.status?.replicas ?? 0, obj.status?.readyReplicas ?? 0],
      template: (obj) => obj.spec?.template,
      selector: { description: 'Label selector of the pods.', text: selectorText },
    }),
  };
}
