import type { KubeObject } from '@cluster/apimachinery';

/** apiregistration/v1 ServiceReference: the Service in front of an extension API server. */
export interface ApiServiceReference {
  namespace?: string;
  name?: string;
  /** 443 when unset (upstream's default). */
  port?: number;
}

export interface ApiServiceCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/**
 * apiregistration/v1 APIService: who serves `/apis/<group>/<version>`. Without a `service` the
 * group version is served by this server (Local); with one, requests are proxied to it.
 */
export interface ApiService extends KubeObject {
  spec?: {
    service?: ApiServiceReference | null;
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    /** PEM bundle, base64 in JSON (the `format: byte` of upstream's []byte). */
    caBundle?: string;
    groupPriorityMinimum?: number;
    versionPriority?: number;
  };
  status?: { conditions?: ApiServiceCondition[] };
}

/** The `Available` condition type, the only one upstream sets. */
export const AVAILABLE = 'Available';

/** The Available condition of an APIService, if any. */
export function availableCondition(svc: ApiService): ApiServiceCondition | undefined {
  return svc.status?.conditions?.find((c) => c.type === AVAILABLE);
}

/** Whether the APIService's Available condition is True. */
export function isAvailable(svc: ApiService): boolean {
  return availableCondition(svc)?.status === 'True';
}
