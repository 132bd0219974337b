import type { TableColumnDefinition } from '../../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ageOf } from '../../../tables/human-duration.js';
import { column } from '../../apps/workload/table.js';
import type { HPAV2, MetricSpecV2, MetricStatusV2 } from './types.js';

const UNKNOWN = '<unknown>';

/** One metric's "current/target" text, as upstream's formatHPAMetrics writes it. */
function metricText(spec: MetricSpecV2, status: MetricStatusV2 | undefined): string {
  switch (spec.type) {
    case 'External':
    case 'Object': {
      const key = spec.type === 'External' ? 'external' : 'object';
      const target = spec[key]?.target;
      const current = status?.[key]?.current;
      if (target?.averageValue !== undefined) return `${current?.averageValue ?? UNKNOWN}/${target.averageValue} (avg)`;
      return `${status?.[key] ? (current?.value ?? '0') : UNKNOWN}/${target?.value ?? '0'}`;
    }
    case 'Pods':
      return `${status?.pods ? (status.pods.current?.averageValue ?? '0') : UNKNOWN}/${spec.pods?.target?.averageValue ?? '0'}`;
    case 'Resource':
    case 'ContainerResource': {
      const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
      const target = spec[key]?.target;
      const st = status?.[key];
      if (target?.averageValue !== undefined) return `${st ? (st.current?.averageValue ?? '0') : UNKNOWN}/${target.averageValue}`;
      const current = st?.current?.averageUtilization !== undefined ? `${st.current.averageUtilization}%` : UNKNOWN;
      return `${current}/${target?.averageUtilization !== undefined ? `${target.averageUtilization}%` : '<auto>'}`;
    }
    default:
      return '<unknown type>';
  }
}

/** Upstream's formatHPAMetrics: the first two metrics, then how many more. */
export function formatHpaMetrics(specs: readonly MetricSpecV2[], statuses: readonly MetricStatusV2[]): string {
  if (specs.length === 0) return '<none>';
  const list = specs.map((s, i) => metricText(s, statuses[i]));
  if (list.length > 2) return `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...`;
  return list.join(', ');
}

export const hpaColumns: TableColumnDefinition[] = [
  nameColumn,
  column('Reference', 'string', 'The scaled resource, kind/name.'),
  column('Targets', 'string', 'Current and target values of the metrics.'),
  column('MinPods', 'string', 'The lower limit of replicas.'),
  column('MaxPods', 'string', 'The upper limit of replicas.'),
  column('Replicas', 'string', 'The current number of replicas.'),
  ageColumn,
];

/** The row of a (v2-form) HPA; autoscaling/v1 objects are converted first, as upstream prints its internal form. */
export function hpaCells(hpa: HPAV2): unknown[] {
  const spec = hpa.spec ?? {};
  return [
    hpa.metadata.name ?? '',
    `${spec.scaleTargetRef?.kind ?? ''}/${spec.scaleTargetRef?.name ?? ''}`,
    formatHpaMetrics(spec.metrics ?? [], hpa.status?.currentMetrics ?? []),
    spec.minReplicas !== undefined ? String(spec.minReplicas) : '<unset>',
    spec.maxReplicas ?? 0,
    hpa.status?.currentReplicas ?? 0,
    ageOf(hpa.metadata.creationTimestamp, new Date()),
  ];
}
