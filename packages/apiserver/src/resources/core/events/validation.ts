import {
  invalid,
  isQualifiedName,
  notSupported,
  required,
  tooLong,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import type { CoreEvent, EventV1 } from './types.js';

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain', coreFinalizers: true };
const TYPES = ['Normal', 'Warning'];
const MAX_SHORT = 128;
const MAX_NOTE = 1024;

/** The rules of an event written by a new-style reporter (eventTime set), in the names of the API that got it. */
interface Reported {
  eventTime?: string | null;
  type?: string;
  controller?: string;
  instance?: string;
  action?: string;
  reason?: string;
  note?: string;
}

function validateReported(e: Reported, names: { controller: string; note: string }): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!e.eventTime) errs.push(required('eventTime'));
  if (!TYPES.includes(e.type ?? '')) errs.push(notSupported('type', e.type ?? '', TYPES));
  if (!e.controller) errs.push(required(names.controller));
  else for (const msg of isQualifiedName(e.controller)) errs.push(invalid(names.controller, e.controller, msg));
  for (const [field, value] of [
    ['reportingInstance', e.instance],
    ['action', e.action],
    ['reason', e.reason],
  ] as const) {
    if (!value) errs.push(required(field));
    else if (value.length > MAX_SHORT) errs.push(tooLong(field, MAX_SHORT));
  }
  if ((e.note ?? '').length > MAX_NOTE) errs.push(tooLong(names.note, MAX_NOTE));
  return errs;
}

/** A core/v1 event's reference must name its own namespace (an empty one is allowed in `default`). */
function validateInvolvedNamespace(ev: CoreEvent): FieldErrorList {
  const ns = ev.metadata.namespace ?? '';
  const involved = ev.involvedObject?.namespace ?? '';
  if (involved === '' ? ns !== '' && ns !== 'default' : involved !== ns) {
    return [invalid('involvedObject.namespace', involved, 'does not match event.namespace')];
  }
  return [];
}

/** core/v1 Event: legacy events (no eventTime) need only a matching namespace; new-style ones the reporter fields. */
export function validateCoreEvent(ev: CoreEvent): FieldErrorList {
  const errs = [...validateObjectMeta(ev.metadata, metaOptions), ...validateInvolvedNamespace(ev)];
  if (ev.eventTime) {
    errs.push(
      ...validateReported(
        { eventTime: ev.eventTime, type: ev.type, controller: ev.reportingComponent, instance: ev.reportingInstance, action: ev.action, reason: ev.reason, note: ev.message },
        { controller: 'reportingController', note: 'message' },
      ),
    );
  } else if ((ev.message ?? '').length > MAX_NOTE * 4) {
    errs.push(tooLong('message', MAX_NOTE * 4));
  }
  return errs;
}

export function validateCoreEventUpdate(ev: CoreEvent, old: CoreEvent): FieldErrorList {
  return [...validateObjectMetaUpdate(ev.metadata, old.metadata, metaOptions), ...validateCoreEvent({ ...ev, metadata: { ...ev.metadata, name: old.metadata.name } }).filter((e) => !e.field.startsWith('metadata'))];
}

const DEPRECATED = ['deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount'] as const;

/** events/v1 Event (SPEC 9.4): reporter fields required, type Normal or Warning, no deprecated fields in new events. */
export function validateEventV1(ev: EventV1): FieldErrorList {
  const errs = validateObjectMeta(ev.metadata, metaOptions);
  errs.push(
    ...validateReported(
      { eventTime: ev.eventTime, type: ev.type, controller: ev.reportingController, instance: ev.reportingInstance, action: ev.action, reason: ev.reason, note: ev.note },
      { controller: 'reportingController', note: 'note' },
    ),
  );
  for (const f of DEPRECATED) {
    const v = ev[f];
    if (v !== undefined && v !== null && v !== 0 && !(typeof v === 'object' && Object.keys(v).length === 0)) {
      errs.push(invalid(f, v, 'needs to be unset'));
    }
  }
  const ns = ev.metadata.namespace ?? '';
  const regardingNs = ev.regarding?.namespace ?? '';
  if (regardingNs !== '' && regardingNs !== ns) errs.push(invalid('regarding.namespace', regardingNs, 'does not match event.namespace'));
  return errs;
}

export function validateEventV1Update(ev: EventV1, old: EventV1): FieldErrorList {
  const errs = validateObjectMetaUpdate(ev.metadata, old.metadata, metaOptions);
  for (const f of ['regarding', 'reason', 'action', 'reportingController', 'reportingInstance', 'type', 'eventTime'] as const) {
    if (JSON.stringify(ev[f] ?? null) !== JSON.stringify(old[f] ?? null)) errs.push(invalid(f, ev[f], 'field is immutable'));
  }
  return errs;
}
