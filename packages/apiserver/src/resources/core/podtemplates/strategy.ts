import { validateObjectMeta, validateObjectMetaUpdate } from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { nameColumn } from '../../../tables/columns.js';
import { column, containerCells } from '../../apps/workload/table.js';
import { defaultPodTemplateSpec } from '../pod-spec/defaults.js';
import type { PodTemplate } from '../pod-spec/types.js';
import { validatePodTemplateSpec } from '../pod-spec/validation.js';
import { reshapeInPlace } from '../pod-spec/go-shape.js';

const metaOptions = { namespaced: true, nameValidator: 'subdomain' as const };

function labelsText(labels: Record<string, string> | undefined): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
}

/** PodTemplate behaviour (core/v1): a stored template, defaulted and validated as a pod's. */
export const podTemplateStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate(obj: PodTemplate) {
    defaultPodTemplateSpec(obj.template);
    reshapeInPlace(obj);
  },
  prepareForUpdate(obj: PodTemplate) {
    defaultPodTemplateSpec(obj.template);
    reshapeInPlace(obj);
  },
  validate: (obj: PodTemplate) => [
    ...validateObjectMeta(obj.metadata, metaOptions),
    ...validatePodTemplateSpec(obj.template, 'template', { requireAlwaysRestart: false }),
  ],
  validateUpdate: (obj: PodTemplate, old: PodTemplate) => [
    ...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions),
    ...validatePodTemplateSpec(obj.template, 'template', { requireAlwaysRestart: false }),
  ],
  table: {
    columns: [
      nameColumn,
      column('Containers', 'string', 'Names of the containers of the template.'),
      column('Images', 'string', 'Images of the containers of the template.'),
      column('Pod Labels', 'string', 'Labels of the template.'),
    ],
    cells: (obj: PodTemplate) => [obj.metadata.name ?? '', ...containerCells(obj.template), labelsText(obj.template?.metadata?.labels)],
  },
} satisfies ResourceStrategy<PodTemplate>;
