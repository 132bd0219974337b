import type { KubeObject } from '@cluster/apimachinery';
import type { ResourceRegistration } from '../../../registry/registration.js';
import { coreToEventV1, eventV1ToCore } from './conversion.js';
import { coreEventStrategy, DEFAULT_EVENT_TTL_SECONDS, eventV1Strategy } from './strategy.js';
import type { CoreEvent, EventV1 } from './types.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

/** core/v1 events, expiring `ttlSeconds` after their last write (--event-ttl). */
export function coreEvents(ttlSeconds: number = DEFAULT_EVENT_TTL_SECONDS): ResourceRegistration {
  return {
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
    strategy: { ...coreEventStrategy, ttlSeconds },
  };
}

/** events.<apiDomain>/v1 events: the same stored objects as core/v1 events, converted field by field. */
export function eventsV1(apiDomain: string, ttlSeconds: number = DEFAULT_EVENT_TTL_SECONDS): ResourceRegistration {
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
    strategy: { ...eventV1Strategy, ttlSeconds },
    storedAs: {
      group: '',
      resource: 'events',
      toStorage: (obj: KubeObject) => eventV1ToCore(obj as EventV1),
      fromStorage: (obj: KubeObject) => coreToEventV1(obj as CoreEvent, `${group}/v1`),
    },
  };
}
