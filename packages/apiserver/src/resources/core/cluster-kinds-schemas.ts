import { listSchema, objectTypeMeta, META_V1, type GvkMarker, type JsonObject } from '@cluster/apimachinery';
import type { Definitions } from '../../registry/resource-info.js';
import { generatedClusterKindDefinitions } from './cluster-kinds-schemas.generated.js';

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
  ComponentStatus: 'The health of a cluster component (deprecated since 1.19).',
};

/**
 * OpenAPI definitions of Service, Endpoints, Node, Event, LimitRange, ResourceQuota (core/v1) and
 * Event (events.<apiDomain>/v1), EndpointSlice (discovery.<apiDomain>/v1), plus meta/v1 Condition. The field shapes are generated
 * (cluster-kinds-schemas.generated.ts); this adds the object envelope and group-version-kinds.
 */
export function clusterKindDefinitions(apiDomain: string): Definitions {
  const defs: Definitions = { ...generatedClusterKindDefinitions };
  const topLevel = (prefix: string, kind: string, gvk: GvkMarker, description: string): void => {
    const name = `${prefix}.${kind}`;
    const generated = defs[name] as JsonObject & { properties: Record<string, JsonObject> };
    defs[name] = {
      ...generated,
      description,
      properties: sortKeys({ ...generated.properties, ...objectTypeMeta() }),
      'x-kubernetes-group-version-kind': [{ group: gvk.group, kind: gvk.kind, version: gvk.version }],
    };
    defs[`${name}List`] = listSchema(name, { ...gvk, kind: `${kind}List` }, `The ${kind} objects.`);
  };
  for (const [kind, description] of Object.entries(CORE_KINDS)) topLevel(CORE_V1, kind, { group: '', version: 'v1', kind }, description);
  // PersistentVolumeClaim's fields come with the pod types (pod-schemas.ts); its list is added here.
  defs[`${CORE_V1}.PersistentVolumeClaimList`] = listSchema(`${CORE_V1}.PersistentVolumeClaim`, { group: '', version: 'v1', kind: 'PersistentVolumeClaimList' }, 'The PersistentVolumeClaim objects.');
  topLevel(EVENTS_V1, 'Event', { group: `events.${apiDomain}`, version: 'v1', kind: 'Event' }, CORE_KINDS['Event']!);
  topLevel(DISCOVERY_V1, 'EndpointSlice', { group: `discovery.${apiDomain}`, version: 'v1', kind: 'EndpointSlice' }, 'A subset of the endpoints of a service.');
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

function sortKeys(props: Record<string, JsonObject>): Record<string, JsonObject> {
  return Object.fromEntries(Object.keys(props).sort().map((k) => [k, props[k]!]));
}
