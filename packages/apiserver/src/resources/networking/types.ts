import type { KubeObject, LabelSelectorObject } from '@cluster/apimachinery';

/** The parts of networking/v1 the strategies read; the rest is kept as decoded. */
export interface IngressBackend {
  service?: { name?: string; port?: { name?: string; number?: number } };
  resource?: { apiGroup?: string; kind?: string; name?: string };
}

export interface IngressLoadBalancerStatus {
  ingress?: Array<{ ip?: string; hostname?: string; ports?: unknown[] }>;
}

export interface Ingress extends KubeObject {
  spec?: {
    ingressClassName?: string;
    defaultBackend?: IngressBackend;
    tls?: Array<{ hosts?: string[]; secretName?: string }>;
    rules?: Array<{ host?: string; http?: { paths?: Array<{ path?: string; pathType?: string; backend?: IngressBackend }> } }>;
  };
  status?: { loadBalancer?: IngressLoadBalancerStatus };
}

export interface IngressClassParameters {
  apiGroup?: string;
  kind?: string;
  name?: string;
  scope?: string;
  namespace?: string;
}

export interface IngressClass extends KubeObject {
  spec?: { controller?: string; parameters?: IngressClassParameters };
}

export interface NetworkPolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

export interface NetworkPolicyPeer {
  podSelector?: LabelSelectorObject;
  namespaceSelector?: LabelSelectorObject;
  ipBlock?: { cidr?: string; except?: string[] };
}

export interface NetworkPolicy extends KubeObject {
  spec?: {
    podSelector?: LabelSelectorObject;
    ingress?: Array<{ ports?: NetworkPolicyPort[]; from?: NetworkPolicyPeer[] }>;
    egress?: Array<{ ports?: NetworkPolicyPort[]; to?: NetworkPolicyPeer[] }>;
    policyTypes?: string[];
  };
}
