import type { LabelSelectorObject } from '@cluster/apimachinery';
import { defaultPodTemplateSpec } from '../../core/pod-spec/defaults.js';
import type { Workload } from '../../core/pod-spec/types.js';
import { validateSelectorMatchesTemplate } from '../workload/selector.js';
import { selectorText, validateReplicas, validateSelectorImmutable, validateWorkloadTemplate, workloadStrategy } from '../workload/strategy.js';
import { replicaCountParts } from '../workload/replica-counts.js';

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
  ...replicaCountParts<ReplicaSet>((rs) => selectorText(rs.spec?.selector)),
});
