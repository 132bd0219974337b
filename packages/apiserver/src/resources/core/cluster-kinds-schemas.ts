import { META_V1 } from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';
import { generatedClusterKindDefinitions } from '../../generated/cluster-kinds-schemas.generated.js';
import { withTopLevelKinds, type TopLevelKind } from '../top-level-kinds.js';

const CORE_V1 = 'io.k8s.api.core.v1';
const EVENTS_V1 = 'io.k8s.api.events.v1';
const DISCOVERY_V1 = 'io.k8s.api.discovery.v1';

/** Top-level kinds of issue 20 served here, with a description of our own. */
const CORE_KINDS: Record<string, string> = {
  Service: 'A named abstraction over a set of endpoints, with a stable virtual IP and ports.',
  Endpoints: 'The addresses and ports that implement a service.',
  Node: 'A worker machine of the cluster.',
  Event: 'A report of something that happened to an object.',
  LimitRange: 'Per-namespace limits on the resources of pods and containers.',
  ResourceQuota: 'Per-namespace limits on aggregate resource consumption.',
  PersistentVolume: 'A piece of storage in the cluster, provisioned by an administrator or a storage class.',
  PersistentVolumeClaim: "A user's request for storage, bound to a persistent volume.",
  ComponentStatus: 'The health of a cluster component (deprecated since 1.19).',
};

/**
 * OpenAPI definitions of Service, Endpoints, Node, Event, LimitRange, ResourceQuota (core/v1) and
 * Event (events.<apiDomain>/v1), EndpointSlice (discovery.<apiDomain>/v1), plus meta/v1 Condition. The field shapes are generated
 * (src/generated/cluster-kinds-schemas.generated.ts, by hack/gen-types); this adds the object
 * envelope, lists and group-version-kinds.
 */
export function clusterKindDefinitions(apiDomain: string): Definitions {
  const kinds: TopLevelKind[] = [
    ...Object.entries(CORE_KINDS).map(([kind, description]) => ({ prefix: CORE_V1, gvk: { group: '', version: 'v1', kind }, description })),
    { prefix: EVENTS_V1, gvk: { group: `events.${apiDomain}`, version: 'v1', kind: 'Event' }, description: CORE_KINDS['Event']! },
    { prefix: DISCOVERY_V1, gvk: { group: `discovery.${apiDomain}`, version: 'v1', kind: 'EndpointSlice' }, description: 'A subset of the endpoints of a service.' },
  ];
  const defs = withTopLevelKinds(generatedClusterKindDefinitions, kinds);
  defs[`${META_V1}.Condition`] = {
    description: 'One aspect of the current state of an object.',
    type: 'object',
    properties: {
      lastTransitionTime: { $ref: `#/definitions/${META_V1}.Time` },
      message: { type: 'string', default: '' },
      observedGeneration: { type: 'integer', format: 'int64' },
      reason: { type: 'string', default: '' },
      status: { type: 'string', default: '' },
      type: { type: 'string', default: '' },
    },
    required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  };
  return defs;
}

