import type { KubeObject } from '@cluster/apimachinery';

export type IntOrString = number | string;

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port: number;
  targetPort?: IntOrString;
  nodePort?: number;
}

/** core/v1 Service, as far as the server reads it (the full shape is in the OpenAPI schema). */
export interface Service extends KubeObject {
  spec?: {
    ports?: ServicePort[];
    selector?: Record<string, string>;
    clusterIP?: string;
    clusterIPs?: string[];
    type?: string;
    externalIPs?: string[];
    sessionAffinity?: string;
    loadBalancerIP?: string;
    externalName?: string;
    externalTrafficPolicy?: string;
    internalTrafficPolicy?: string;
    healthCheckNodePort?: number;
    ipFamilies?: string[];
    ipFamilyPolicy?: string;
    allocateLoadBalancerNodePorts?: boolean;
    [field: string]: unknown;
  };
  status?: Record<string, unknown>;
}

export const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'] as const;

/** Whether the type gets node ports (LoadBalancer unless allocateLoadBalancerNodePorts is false). */
export function needsNodePorts(svc: Service): boolean {
  const type = svc.spec?.type;
  return type === 'NodePort' || (type === 'LoadBalancer' && svc.spec?.allocateLoadBalancerNodePorts !== false);
}

/** Whether the service gets a cluster IP from the allocator (not ExternalName, not headless). */
export function needsClusterIP(svc: Service): boolean {
  return svc.spec?.type !== 'ExternalName' && svc.spec?.clusterIP !== 'None';
}

/** LoadBalancer services that keep traffic on the receiving node get a health-check node port. */
export function needsHealthCheckNodePort(svc: Service): boolean {
  return svc.spec?.type === 'LoadBalancer' && svc.spec?.externalTrafficPolicy === 'Local';
}
