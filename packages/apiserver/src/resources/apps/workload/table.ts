import type { KubeObject } from '@cluster/apimachinery';
import type { TableColumnDefinition } from '../../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
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

/** Comma-joined container names and images of a template, as kubectl's wide columns show them. */
export function containerCells(template: PodTemplateSpec | undefined): [string, string] {
  const containers = template?.spec?.containers ?? [];
  return [containers.map((c) => c.name ?? '').join(','), containers.map((c) => c.image ?? '').join(',')];
}

/** `<none>` for an empty selector text, as upstream prints it. */
export function orNone(text: string): string {
  return text === '' ? '<none>' : text;
}

/** The parts of a kind's table that depend on the kind (see podTemplateTable). */
export interface PodTemplateTableParts<T extends KubeObject> {
  /** Columns between Name and Age. */
  columns: TableColumnDefinition[];
  /** Cells of those columns. */
  cells(obj: T, now: Date): unknown[];
  /** The pod template whose containers the wide columns show. */
  template(obj: T): PodTemplateSpec | undefined;
  /** The wide Selector column, last; absent when kubectl shows none (StatefulSet). */
  selector?: { description: string; text(obj: T): string };
}

/**
 * The table of a kind that runs a pod template (the workloads, Job, CronJob), as kubectl prints
 * it: Name, the kind's own columns, Age, then the wide Containers, Images and Selector columns.
 */
export function podTemplateTable<T extends KubeObject>(parts: PodTemplateTableParts<T>): { columns: TableColumnDefinition[]; cells(obj: T): unknown[] } {
  const selector = parts.selector;
  const selectorColumns = selector ? [column('Selector', 'string', selector.description, 1)] : [];
  return {
    columns: [nameColumn, ...parts.columns, ageColumn, containersColumn, imagesColumn, ...selectorColumns],
    cells(obj) {
      const now = new Date();
      const cells = [obj.metadata.name ?? '', ...parts.cells(obj, now), ageOf(obj.metadata.creationTimestamp, now), ...containerCells(parts.template(obj))];
      return selector ? [...cells, orNone(selector.text(obj))] : cells;
    },
  };
}
