import type { KubeObject } from '@cluster/apimachinery';

export interface ApiServiceCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ApiService extends KubeObject {
  spec?: {
    service?: { namespace?: string; name?: string; port?: number } | null;
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    caBundle?: string;
  };
  status?: { conditions?: ApiServiceCondition[] };
}

export interface Service extends KubeObject {
  spec?: { type?: string; ports?: Array<{ name?: string; port?: number; targetPort?: number | string }> };
}

export interface Endpoints extends KubeObject {
  subsets?: Array<{ addresses?: Array<{ ip?: string }>; ports?: Array<{ name?: string; port?: number }> }>;
}

/** Where the extension answers: an endpoint address and port, and the TLS name of its Service. */
export interface ResolvedEndpoint {
  host: string;
  port: number;
  serverName: string;
}

/** What availability depends on besides the discovery check: a verdict already, or where to check. */
export type Reachability = { verdict: ApiServiceCondition } | { endpoint: ResolvedEndpoint };

const unavailable = (reason: string, message: string): { verdict: ApiServiceCondition } => ({ verdict: { type: 'Available', status: 'False', reason, message } });

/**
 * Upstream's availability checks before discovery, in its order and with its reasons: a local
 * APIService is Available (Local); otherwise the Service must exist (ServiceNotFound), listen on
 * the referenced port (ServicePortError), have Endpoints (EndpointsNotFound) with a ready address
 * on the port of the same name (MissingEndpoints). The endpoint found is where the discovery check
 * goes (this cluster has no service proxy). Pure.
 */
export function reachability(svc: ApiService, service: Service | undefined, endpoints: Endpoints | undefined): Reachability {
  const ref = svc.spec?.service;
  if (!ref) return { verdict: { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' } };
  const ns = ref.namespace ?? '';
  const name = ref.name ?? '';
  const port = ref.port ?? 443;
  if (!service) return unavailable('ServiceNotFound', `service/${name} in "${ns}" is not present`);
  const svcPort = (service.spec?.ports ?? []).find((p) => p.port === port);
  if (!svcPort) return unavailable('ServicePortError', `service/${name} in "${ns}" is not listening on port ${port}`);
  if (!endpoints) return unavailable('EndpointsNotFound', `cannot find endpoints for service/${name} in "${ns}"`);
  const portName = svcPort.name ?? '';
  for (const subset of endpoints.subsets ?? []) {
    const ports = subset.ports ?? [];
    const epPort = ports.find((p) => (p.name ?? '') === portName);
    const ip = subset.addresses?.find((a) => a.ip)?.ip;
    if (epPort?.port && ip) return { endpoint: { host: ip, port: epPort.port, serverName: `${name}.${ns}.svc` } };
  }
  return unavailable('MissingEndpoints', `endpoints for service/${name} in "${ns}" have no addresses with port name "${portName}"`);
}

/** The condition after a discovery check of `gv` (`/apis/<group>/<version>`): Passed, or FailedDiscoveryCheck with the error. */
export function discoveryVerdict(path: string, error: string | undefined): ApiServiceCondition {
  if (error === undefined) return { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' };
  return { type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${path}: ${error}` };
}

/**
 * The status to write so that `svc` carries `condition` (with a lastTransitionTime of `now` when
 * the status changes, else the old one), or undefined when it already does. Other condition types
 * are kept. Pure.
 */
export function planStatus(svc: ApiService, condition: ApiServiceCondition, now: string): ApiService | undefined {
  const conditions = svc.status?.conditions ?? [];
  const old = conditions.find((c) => c.type === 'Available');
  if (old && old.status === condition.status && old.reason === condition.reason && old.message === condition.message) return undefined;
  const next: ApiServiceCondition = { ...condition, lastTransitionTime: old && old.status === condition.status && old.lastTransitionTime ? old.lastTransitionTime : now };
  return { ...svc, status: { ...svc.status, conditions: [...conditions.filter((c) => c.type !== 'Available'), next] } };
}
