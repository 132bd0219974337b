import { coreToEventV1, eventV1ToCore } from './conversion.js';
import type { CoreEvent, EventV1 } from './types.js';

const meta = { name: 'e1', namespace: 'default' };

describe('Event conversion between core/v1 and events/v1', () => {
  const v1: EventV1 = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: meta,
    eventTime: '2024-01-02T03:04:05.000000Z',
    series: { count: 3, lastObservedTime: '2024-01-02T03:05:05.000000Z' },
    reportingController: 'k8s.io/ctrl',
    reportingInstance: 'ctrl-1',
    action: 'Scheduling',
    reason: 'Started',
    regarding: { kind: 'Pod', name: 'p', namespace: 'default', uid: 'u1' },
    related: { kind: 'Node', name: 'n1' },
    note: 'started the pod',
    type: 'Normal',
    deprecatedSource: { component: 'kubelet', host: 'n1' },
    deprecatedFirstTimestamp: '2024-01-02T03:04:05Z',
    deprecatedLastTimestamp: '2024-01-02T03:05:05Z',
    deprecatedCount: 2,
  };
  const core: CoreEvent = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta,
    eventTime: '2024-01-02T03:04:05.000000Z',
    series: { count: 3, lastObservedTime: '2024-01-02T03:05:05.000000Z' },
    reportingComponent: 'k8s.io/ctrl',
    reportingInstance: 'ctrl-1',
    action: 'Scheduling',
    reason: 'Started',
    involvedObject: { kind: 'Pod', name: 'p', namespace: 'default', uid: 'u1' },
    related: { kind: 'Node', name: 'n1' },
    message: 'started the pod',
    type: 'Normal',
    source: { component: 'kubelet', host: 'n1' },
    firstTimestamp: '2024-01-02T03:04:05Z',
    lastTimestamp: '2024-01-02T03:05:05Z',
    count: 2,
  };

  test('every events/v1 field maps to its core/v1 field', () => {
    expect(eventV1ToCore(v1)).toEqual(core);
  });

  test('every core/v1 field maps back', () => {
    expect(coreToEventV1(core, 'events.k8s.io/v1')).toEqual(v1);
  });

  test('empty core strings (reportingComponent "" as core shows it) are left out of events/v1', () => {
    const ev: CoreEvent = { apiVersion: 'v1', kind: 'Event', metadata: meta, reportingComponent: '', reportingInstance: '', message: 'm', eventTime: null };
    const v1 = coreToEventV1(ev, 'events.k8s.io/v1');
    expect(v1).not.toHaveProperty('reportingController');
    expect(v1).not.toHaveProperty('reportingInstance');
    expect(v1.note).toBe('m');
  });

  test('a legacy core event without eventTime reads as events/v1 with eventTime null', () => {
    const legacy: CoreEvent = { apiVersion: 'v1', kind: 'Event', metadata: meta, involvedObject: { kind: 'Pod', name: 'p' }, message: 'm', count: 1 };
    expect(coreToEventV1(legacy, 'events.example.org/v1')).toEqual({
      apiVersion: 'events.example.org/v1',
      kind: 'Event',
      metadata: meta,
      eventTime: null,
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
      regarding: { kind: 'Pod', name: 'p' },
      note: 'm',
      deprecatedCount: 1,
    });
  });
});
