import type { KubeObject } from '@cluster/apimachinery';
import type { EndpointSlice } from './strategy.js';

// Upstream's discovery/v1beta1 EndpointSlice conversion (pkg/apis/discovery/v1beta1/conversion.go):
// v1beta1's per-endpoint `topology` map is v1's `zone` (topology.kubernetes.io/zone), `nodeName`
// (kubernetes.io/hostname, when it equals nodeName) and read-only `deprecatedTopology` (the rest).

const ZONE = 'topology.kubernetes.io/zone';
const HOSTNAME = 'kubernetes.io/hostname';

type EndpointV1 = NonNullable<EndpointSlice['endpoints']>[number];
type EndpointV1beta1 = Omit<EndpointV1, 'zone' | 'deprecatedTopology'> & { topology?: Record<string, string> };

function endpointToV1(e: EndpointV1beta1): EndpointV1 {
  const { topology, ...rest } = e;
  const out: EndpointV1 = { ...rest };
  if (!topology) return out;
  const deprecated: Record<string, string> = { ...topology };
  if (ZONE in topology) {
    out.zone = topology[ZONE];
    delete deprecated[ZONE];
  }
  if (HOSTNAME in topology && out.nodeName !== undefined && topology[HOSTNAME] === out.nodeName) delete deprecated[HOSTNAME];
  if (Object.keys(deprecated).length) out.deprecatedTopology = deprecated;
  return out;
}

function endpointFromV1(e: EndpointV1): EndpointV1beta1 {
  const { zone, deprecatedTopology, ...rest } = e;
  const out: EndpointV1beta1 = { ...rest };
  if (deprecatedTopology === undefined && zone === undefined && e.nodeName === undefined) return out;
  const topology: Record<string, string> = { ...(deprecatedTopology ?? {}) };
  if (zone !== undefined) topology[ZONE] = zone;
  if (e.nodeName !== undefined && !topology[HOSTNAME]) topology[HOSTNAME] = e.nodeName;
  out.topology = topology;
  return out;
}

/** A v1beta1 EndpointSlice in v1 form. Does not change `obj`. */
export function sliceV1beta1ToV1(obj: KubeObject, apiVersion: string): KubeObject {
  const es = obj as EndpointSlice;
  return { ...es, apiVersion, ...(es.endpoints ? { endpoints: (es.endpoints as EndpointV1beta1[]).map(endpointToV1) } : {}) };
}

/** A v1 EndpointSlice in v1beta1 form. Does not change `obj`. */
export function sliceV1ToV1beta1(obj: KubeObject, apiVersion: string): KubeObject {
  const es = obj as EndpointSlice;
  return { ...es, apiVersion, ...(es.endpoints ? { endpoints: es.endpoints.map(endpointFromV1) } : {}) };
}
