import type { TableColumnDefinition } from '../../../registry/strategy.js';
import type { PodTemplateSpec } from '../../core/pod-spec/types.js';

/** A table column; priority 1 columns appear only with -o wide. */
export const column = (name: string, type: TableColumnDefinition['type'], description: string, priority = 0): TableColumnDefinition => ({
  name,
  type,
  format: '',
  description,
  priority,
});

export const containersColumn = column('Containers', 'string', 'Names of the containers of the pod template.', 1);
export const imagesColumn = column('Images', 'string', 'Images of the containers of the pod template.', 1);
export const selectorColumn = column('Selector', 'string', 'Label selector of the pods.', 1);

/** Comma-joined container names and images of a template, as kubectl's wide columns show them. */
export function containerCells(template: PodTemplateSpec | undefined): [string, string] {
  const containers = template?.spec?.containers ?? [];
  return [containers.map((c) => c.name ?? '').join(','), containers.map((c) => c.image ?? '').join(',')];
}

/** `<none>` for an empty selector text, as upstream prints it. */
export function orNone(text: string): string {
  return text === '' ? '<none>' : text;
}
