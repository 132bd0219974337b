import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceRegistration } from '../../../registry/registration.js';
import { coreToEventV1, eventV1ToCore } from './conversion.js';
import { coreEventStrategy, eventV1Strategy } from './strategy.js';
import type { CoreEvent, EventV1 } from './types.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

/** core/v1 events. */
export const coreEvents: ResourceRegistration = {
  info: {
    group: '',
    version: 'v1',
    resource: 'events',
    singularName: 'event',
    kind: 'Event',
    listKind: 'EventList',
    namespaced: true,
    verbs: VERBS,
    shortNames: ['ev'],
    definitionName: 'io.k8s.api.core.v1.Event',
  },
  strategy: coreEventStrategy,
};

/** events.<apiDomain>/v1 events: the same stored objects as core/v1 events, converted field by field. */
export function eventsV1(apiDomain: string): ResourceRegistration {
  const group = `events.${apiDomain}`;
  return {
    info: {
      group,
      version: 'v1',
      resource: 'events',
      singularName: 'event',
      kind: 'Event',
      listKind: 'EventList',
      namespaced: true,
      verbs: VERBS,
      shortNames: ['ev'],
      definitionName: 'io.k8s.api.events.v1.Event',
    },
    strategy: eventV1Strategy,
    storedAs: {
      group: '',
      resource: 'events',
      toStorage: (obj: KubeObject) => eventV1ToCore(obj as EventV1),
      fromStorage: (obj: KubeObject) => coreToEventV1(obj as CoreEvent, `${group}/v1`),
    },
  };
}
