import type { TableColumnDefinition } from '../../../registry/strategy.js';
import { ageOf } from '../../../tables/human-duration.js';
import type { CoreEvent } from './types.js';

const col = (name: string, description: string, priority = 0): TableColumnDefinition => ({ name, type: 'string', format: '', description, priority });

/** Upstream's event columns: LAST SEEN TYPE REASON OBJECT MESSAGE, the rest when wide. */
export const eventColumns: TableColumnDefinition[] = [
  col('Last Seen', 'Time since the event was last seen.'),
  col('Type', 'Type of the event (Normal or Warning).'),
  col('Reason', 'Short, machine-readable reason of the event.'),
  col('Object', 'The object the event is about.'),
  col('Subobject', 'The part of the object the event is about.', 1),
  col('Source', 'The component that reported the event.', 1),
  col('Message', 'Human-readable description of the event.'),
  col('First Seen', 'Time since the event was first seen.', 1),
  col('Count', 'How many times the event occurred.', 1),
  col('Name', 'Name of the event.', 1),
];

function since(t: string | null | undefined, now: Date): string {
  return t ? ageOf(t, now) : '';
}

function source(ev: CoreEvent): string {
  const s = ev.source ?? {};
  if (s.component) return s.host ? `${s.component}, ${s.host}` : s.component;
  if (ev.reportingComponent) return ev.reportingInstance ? `${ev.reportingComponent}, ${ev.reportingInstance}` : ev.reportingComponent;
  return '';
}

/** Cells of one event in its stored (core/v1) form. */
export function eventCells(ev: CoreEvent): unknown[] {
  const now = new Date();
  const first = since(ev.firstTimestamp, now) || since(ev.eventTime, now) || '<unknown>';
  let last = since(ev.lastTimestamp, now) || first;
  if (ev.series?.lastObservedTime) last = since(ev.series.lastObservedTime, now);
  const count = ev.series ? ev.series.count ?? 0 : ev.count ?? 0;
  const involved = ev.involvedObject ?? {};
  return [
    last,
    ev.type ?? '',
    ev.reason ?? '',
    `${(involved.kind ?? '').toLowerCase()}/${involved.name ?? ''}`,
    involved.fieldPath ?? '',
    source(ev),
    (ev.message ?? '').trim(),
    first,
    String(count),
    ev.metadata.name ?? '',
  ];
}
