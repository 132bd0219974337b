import type { KubeObject } from '@cluster/apimachinery';
import type { CoreEvent, EventV1 } from './types.js';

/** Fields that keep their name in both versions. */
const SAME = ['eventTime', 'series', 'reportingInstance', 'action', 'reason', 'related', 'type'] as const;

/** events/v1 name -> core/v1 name of the renamed fields (SPEC 9.4). */
const RENAMED: ReadonlyArray<readonly [keyof EventV1 & string, keyof CoreEvent & string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function copy(from: Record<string, unknown>, to: Record<string, unknown>, fromKey: string, toKey: string): void {
  if (from[fromKey] !== undefined) to[toKey] = from[fromKey];
}

/** events/v1 strings are omitempty; core/v1 shows reportingComponent/Instance as "" when unset. */
function copyNonEmpty(from: Record<string, unknown>, to: Record<string, unknown>, fromKey: string, toKey: string): void {
  if (from[fromKey] !== undefined && from[fromKey] !== '') to[toKey] = from[fromKey];
}

/** An events/v1 Event as the stored core/v1 Event (`apiVersion` is the core one). */
export function eventV1ToCore(ev: EventV1): CoreEvent {
  const out: Record<string, unknown> = { apiVersion: 'v1', kind: 'Event', metadata: ev.metadata };
  const src = ev as unknown as Record<string, unknown>;
  for (const f of SAME) copy(src, out, f, f);
  for (const [v1, core] of RENAMED) copy(src, out, v1, core);
  return out as unknown as CoreEvent;
}

/** A stored core/v1 Event as events/v1 (`apiVersion` is `events.<domain>/v1`). */
export function coreToEventV1(ev: CoreEvent, apiVersion: string): EventV1 {
  const out: Record<string, unknown> = { apiVersion, kind: 'Event', metadata: ev.metadata };
  const src = ev as unknown as Record<string, unknown>;
  for (const f of SAME) copyNonEmpty(src, out, f, f);
  for (const [v1, core] of RENAMED) copyNonEmpty(src, out, core, v1);
  // Value fields Go's JSON encoder writes even when empty (omitempty does not drop structs), so
  // the JSON form matches the Protobuf one and upstream's.
  out['regarding'] ??= {};
  out['eventTime'] ??= null;
  out['deprecatedSource'] ??= {};
  out['deprecatedFirstTimestamp'] ??= null;
  out['deprecatedLastTimestamp'] ??= null;
  return out as unknown as EventV1;
}

export type { KubeObject };
