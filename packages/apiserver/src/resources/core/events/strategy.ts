import type { ResourceStrategy } from '../../../registry/strategy.js';
import { eventV1ToCore } from './conversion.js';
import { eventCells, eventColumns } from './table.js';
import type { CoreEvent, EventV1 } from './types.js';
import { validateCoreEvent, validateCoreEventUpdate, validateEventV1, validateEventV1Update } from './validation.js';

const REFERENCE_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const;

/** The field selectors of the object an event is about: `<at>.kind`, `<at>.namespace`, ... ('' when unset). */
function referenceFields(at: string, ref: Partial<Record<(typeof REFERENCE_FIELDS)[number], string>> | undefined): Record<string, string> {
  return Object.fromEntries(REFERENCE_FIELDS.map((f) => [`${at}.${f}`, ref?.[f] ?? '']));
}

/**
 * Field selectors of core/v1 events (what `kubectl describe` asks with). `source` is the legacy
 * source.component, or else the new-style reporting controller, as upstream selects events/v1
 * writers' events by it.
 */
export function coreEventFields(ev: CoreEvent): Record<string, string> {
  return {
    ...referenceFields('involvedObject', ev.involvedObject),
    reason: ev.reason ?? '',
    reportingComponent: ev.reportingComponent ?? '',
    source: ev.source?.component || ev.reportingComponent || '',
    type: ev.type ?? '',
  };
}

/**
 * The value fields upstream's JSON always shows for a core/v1 Event (Go structs and strings without
 * omitempty), so JSON and Protobuf reads agree. Mutates `ev`.
 */
function fillValueFields(ev: CoreEvent): void {
  ev.involvedObject ??= {};
  ev.source ??= {};
  ev.firstTimestamp ??= null;
  ev.lastTimestamp ??= null;
  ev.eventTime ??= null;
  ev.reportingComponent ??= '';
  ev.reportingInstance ??= '';
}

/** Upstream's --event-ttl default: events expire an hour after their last write. */
export const DEFAULT_EVENT_TTL_SECONDS = 3600;

/** core/v1 Event behaviour: stored only; legacy and new-style reporters both accepted. */
export const coreEventStrategy = {
  namespaceScoped: true,
  ttlSeconds: DEFAULT_EVENT_TTL_SECONDS,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate: fillValueFields,
  prepareForUpdate: fillValueFields,
  validate: (ev: CoreEvent) => validateCoreEvent(ev),
  validateUpdate: (ev: CoreEvent, old: CoreEvent) => validateCoreEventUpdate(ev, old),
  selectableFields: coreEventFields,
  table: { columns: eventColumns, cells: eventCells },
} satisfies ResourceStrategy<CoreEvent>;

/** Field selectors of events/v1, named in its own fields (upstream's label conversion). */
function eventV1Fields(ev: EventV1): Record<string, string> {
  return {
    ...referenceFields('regarding', ev.regarding),
    reason: ev.reason ?? '',
    reportingController: ev.reportingController ?? '',
    type: ev.type ?? '',
  };
}

/** events/v1 Event behaviour: the new-style rules of SPEC 9.4 over the same stored events. */
export const eventV1Strategy = {
  namespaceScoped: true,
  ttlSeconds: DEFAULT_EVENT_TTL_SECONDS,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: (ev: EventV1) => validateEventV1(ev),
  validateUpdate: (ev: EventV1, old: EventV1) => validateEventV1Update(ev, old),
  selectableFields: eventV1Fields,
  table: { columns: eventColumns, cells: (ev: EventV1) => eventCells(eventV1ToCore(ev)) },
} satisfies ResourceStrategy<EventV1>;
