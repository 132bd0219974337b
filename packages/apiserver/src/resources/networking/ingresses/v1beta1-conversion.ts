import type { KubeObject } from '@cluster/apimachinery';
import type { IngressBackend } from '../types.js';

// Upstream's networking/v1beta1 (and extensions/v1beta1) Ingress conversion
// (pkg/apis/networking/v1beta1/conversion.go): spec.backend is v1's spec.defaultBackend, and a
// backend's serviceName/servicePort (an int-or-string) is v1's service.name and
// service.port.number or service.port.name. Other kinds pass unchanged.

interface BackendV1beta1 {
  serviceName?: string;
  servicePort?: number | string;
  resource?: IngressBackend['resource'];
}
type Json = Record<string, unknown>;

function backendToV1(b: BackendV1beta1): IngressBackend {
  const out: IngressBackend = {};
  const port = b.servicePort;
  if (b.serviceName || (typeof port === 'number' && port !== 0) || typeof port === 'string') {
    out.service = { name: b.serviceName ?? '', port: typeof port === 'string' ? { name: port } : { number: port ?? 0 } };
    // Go writes a zero port number only when set; keep the service's port empty then.
    if (typeof port !== 'string' && !port) out.service.port = {};
  }
  if (b.resource) out.resource = b.resource;
  return out;
}

function backendFromV1(b: IngressBackend): BackendV1beta1 {
  const out: BackendV1beta1 = {};
  if (b.service) {
    out.serviceName = b.service.name ?? '';
    if (b.service.port?.name) out.servicePort = b.service.port.name;
    else if (b.service.port?.number) out.servicePort = b.service.port.number;
    else out.servicePort = 0;
  }
  if (b.resource) out.resource = b.resource;
  return out;
}

function convertSpec(spec: Json | undefined, toV1: boolean): Json | undefined {
  if (!spec) return spec;
  const out: Json = { ...spec };
  const [from, to] = toV1 ? ['backend', 'defaultBackend'] : ['defaultBackend', 'backend'];
  const convert = (b: unknown) => (toV1 ? backendToV1(b as BackendV1beta1) : backendFromV1(b as IngressBackend));
  delete out[from];
  if (spec[from] !== undefined && spec[from] !== null) out[to] = convert(spec[from]);
  const rules = spec['rules'] as Array<{ http?: { paths?: Array<Json> } } & Json> | undefined;
  if (rules) {
    out['rules'] = rules.map((r) =>
      r.http?.paths ? { ...r, http: { ...r.http, paths: r.http.paths.map((p) => (p['backend'] ? { ...p, backend: convert(p['backend']) } : p)) } } : r,
    );
  }
  return out;
}

/** A v1beta1 Ingress in v1 form (other kinds unchanged). Does not change `obj`. */
export function ingressV1beta1ToV1(obj: KubeObject, apiVersion: string): KubeObject {
  if (obj.kind !== 'Ingress') return { ...obj, apiVersion };
  const spec = convertSpec(obj['spec'] as Json | undefined, true);
  return { ...obj, apiVersion, ...(spec ? { spec } : {}) };
}

/** A v1 Ingress in v1beta1 form (other kinds unchanged). Does not change `obj`. */
export function ingressV1ToV1beta1(obj: KubeObject, apiVersion: string): KubeObject {
  if (obj.kind !== 'Ingress') return { ...obj, apiVersion };
  const spec = convertSpec(obj['spec'] as Json | undefined, false);
  return { ...obj, apiVersion, ...(spec ? { spec } : {}) };
}

/** Upstream's v1beta1 SetDefaults_HTTPIngressPath: pathType ImplementationSpecific. Mutates `obj`. */
export function defaultIngressV1beta1(obj: KubeObject): void {
  const rules = (obj['spec'] as { rules?: Array<{ http?: { paths?: Array<{ pathType?: string }> } }> } | undefined)?.rules;
  for (const r of rules ?? []) for (const p of r.http?.paths ?? []) p.pathType ??= 'ImplementationSpecific';
}
