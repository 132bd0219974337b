import { invalid, required, validateLabels, type FieldErrorList } from '@cluster/apimachinery';
import { goMapText } from '../../apps/workload/selector.js';
import { validateReplicas, validateWorkloadTemplate, workloadStrategy } from '../../apps/workload/strategy.js';
import { replicaCountParts } from '../../apps/workload/replica-counts.js';
import { defaultPodTemplateSpec } from '../pod-spec/defaults.js';
import type { Workload } from '../pod-spec/types.js';

export interface ReplicationController extends Workload {
  spec?: Workload['spec'] & { selector?: Record<string, string> };
}

/** The map selector as label selector text (`a=b,c=d`, keys sorted). */
export function mapSelectorText(sel: Record<string, string> | undefined): string {
  return Object.entries(sel ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** Upstream's SetDefaults_ReplicationController: selector and labels from the template's labels. */
export function defaultReplicationController(rc: ReplicationController): void {
  const spec = (rc.spec ??= {});
  const templateLabels = spec.template?.metadata?.labels;
  if (templateLabels && Object.keys(templateLabels).length) {
    if (!spec.selector || Object.keys(spec.selector).length === 0) spec.selector = { ...templateLabels };
    if (!rc.metadata.labels || Object.keys(rc.metadata.labels).length === 0) rc.metadata.labels = { ...templateLabels };
  }
  spec.replicas ??= 1;
  defaultPodTemplateSpec(spec.template);
}

function validateSpec(rc: ReplicationController): FieldErrorList {
  const spec = rc.spec ?? {};
  const errs = [...validateReplicas(spec.replicas)];
  const selector = spec.selector ?? {};
  if (Object.keys(selector).length === 0) errs.push(required('spec.selector'));
  else errs.push(...validateLabels(selector, 'spec.selector'));
  const labels = spec.template?.metadata?.labels ?? {};
  if (!spec.template) errs.push(required('spec.template'));
  else {
    const matches = Object.entries(selector).every(([k, v]) => labels[k] === v);
    if (Object.keys(selector).length && !matches) {
      errs.push(invalid('spec.template.metadata.labels', goMapText(labels), '`selector` does not match template `labels`'));
    }
    errs.push(...validateWorkloadTemplate(rc));
  }
  return errs;
}

/**
 * ReplicationController behaviour (core/v1): stored only; map selector, mutable. A delete without
 * a propagation policy orphans the pods, as upstream keeps for core/v1.
 */
export const replicationControllerStrategy = {
  ...workloadStrategy<ReplicationController>({
    defaults: defaultReplicationController,
    validateSpec,
    ...replicaCountParts<ReplicationController>((rc) => mapSelectorText(rc.spec?.selector)),
  }),
  defaultGarbageCollectionPolicy: 'OrphanDependents' as const,
};
