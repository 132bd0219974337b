import { isIP } from 'node:net';
import {
  child,
  forbidden,
  index,
  invalid,
  isDNS1123Label,
  isDNS1123Subdomain,
  maxLenError,
  nameIsPathSegment,
  notSupported,
  regexError,
  required,
  tooLong,
  type FieldErrorList,
} from '@cluster/apimachinery';
import { portNameErrors } from '../core/pod-spec/validation.js';
import { isDNS1035Label } from '../core/services/validation.js';
import type { Ingress, IngressBackend, IngressClass, IngressClassParameters, IngressLoadBalancerStatus } from './types.js';

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];
const PARAMETER_SCOPES = ['Cluster', 'Namespace'];
const MAX_CONTROLLER_LENGTH = 250;
/** The annotation that named an Ingress's class before spec.ingressClassName (read by stock ingress controllers). */
export const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

const WILDCARD_FMT = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const wildcardRe = new RegExp(`^${WILDCARD_FMT}$`);
const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${HTTP_PATH_FMT}$`);

/** Upstream's IsWildcardDNS1123Subdomain (`*.example.com`). */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!wildcardRe.test(value)) {
    errs.push(
      regexError(
        "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
        WILDCARD_FMT,
        '*.example.com',
      ),
    );
  }
  return errs;
}

/** Upstream's IsValidPortNum. */
export function portNumErrors(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

function validateHost(host: string, path: string): { errs: FieldErrorList; wildcard: boolean } {
  const errs: FieldErrorList = [];
  if (isIP(host) !== 0) errs.push(invalid(path, host, 'must be a DNS name, not an IP address'));
  if (host.includes('*')) {
    for (const m of isWildcardDNS1123Subdomain(host)) errs.push(invalid(path, host, m));
    return { errs, wildcard: true };
  }
  for (const m of isDNS1123Subdomain(host)) errs.push(invalid(path, host, m));
  return { errs, wildcard: false };
}

/** Upstream's validateIngressTypedLocalObjectReference (backend resources and class parameters). */
function validateTypedReference(ref: { apiGroup?: string; kind?: string; name?: string }, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (ref.apiGroup !== undefined) for (const m of isDNS1123Subdomain(ref.apiGroup)) errs.push(invalid(child(path, 'apiGroup'), ref.apiGroup, m));
  for (const f of ['kind', 'name'] as const) {
    const v = ref[f] ?? '';
    if (v === '') errs.push(required(child(path, f), `${f} is required`));
    else for (const m of nameIsPathSegment(v, false)) errs.push(invalid(child(path, f), v, m));
  }
  return errs;
}

/** Upstream's validateIngressBackend: exactly one of a service (with a port name or number) or a resource. */
export function validateIngressBackend(backend: IngressBackend | undefined, path: string): FieldErrorList {
  const b = backend ?? {};
  if (b.resource && b.service) return [invalid(path, '', 'cannot set both resource and service backends')];
  if (b.resource) return validateTypedReference(b.resource, child(path, 'resource'));
  if (!b.service) return [invalid(path, '', 'resource or service backend is required')];
  const errs: FieldErrorList = [];
  const name = b.service.name ?? '';
  if (name === '') errs.push(required(child(path, 'service', 'name')));
  else for (const m of isDNS1035Label(name)) errs.push(invalid(child(path, 'service', 'name'), name, m));
  const portName = b.service.port?.name ?? '';
  const portNumber = b.service.port?.number ?? 0;
  if (portName !== '' && portNumber !== 0) errs.push(invalid(path, '', 'cannot set both port name & port number'));
  else if (portName !== '') for (const m of portNameErrors(portName)) errs.push(invalid(child(path, 'service', 'port', 'name'), portName, m));
  else if (portNumber !== 0) for (const m of portNumErrors(portNumber)) errs.push(invalid(child(path, 'service', 'port', 'number'), portNumber, m));
  else errs.push(required(path, 'port name or number is required'));
  return errs;
}

/** Upstream's validateHTTPIngressPath: pathType required; Exact and Prefix need a clean absolute path. */
export function validateIngressPath(p: { path?: string; pathType?: string; backend?: IngressBackend }, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const value = p.path ?? '';
  const pathPath = child(path, 'path');
  switch (p.pathType) {
    case undefined:
      return [required(child(path, 'pathType'), 'pathType must be specified')];
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(invalid(pathPath, value, 'must be an absolute path'));
      for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) errs.push(invalid(pathPath, value, `must not contain '${seq}'`));
      for (const suffix of INVALID_PATH_SUFFIXES) if (value.endsWith(suffix)) errs.push(invalid(pathPath, value, `cannot end with '${suffix}'`));
      break;
    case 'ImplementationSpecific':
      if (value !== '' && !value.startsWith('/')) errs.push(invalid(pathPath, value, 'must be an absolute path'));
      break;
    default:
      errs.push(notSupported(child(path, 'pathType'), p.pathType, PATH_TYPES));
  }
  errs.push(...validateIngressBackend(p.backend, child(path, 'backend')));
  return errs;
}

function ruleValueErrors(rule: NonNullable<NonNullable<Ingress['spec']>['rules']>[number], path: string): FieldErrorList {
  if (!rule.http) return [];
  const httpPath = child(path, 'http');
  const paths = rule.http.paths ?? [];
  const errs: FieldErrorList = paths.length === 0 ? [required(child(httpPath, 'paths'))] : [];
  paths.forEach((p, i) => errs.push(...validateIngressPath(p, index(child(httpPath, 'paths'), i))));
  return errs;
}

/** What an update of an old Ingress may keep although a create would refuse it (upstream's options). */
export interface IngressValidationOptions {
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
}

/** Upstream's ValidateIngressSpec. */
export function validateIngressSpec(ing: Ingress, opts: IngressValidationOptions = { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false }): FieldErrorList {
  const spec = ing.spec ?? {};
  const errs: FieldErrorList = [];
  const rules = spec.rules ?? [];
  if (rules.length === 0 && !spec.defaultBackend) errs.push(invalid('spec', rules, 'either `defaultBackend` or `rules` must be specified'));
  if (spec.defaultBackend) errs.push(...validateIngressBackend(spec.defaultBackend, 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    const rp = index('spec.rules', i);
    let wildcard = false;
    if (rule.host) {
      const host = validateHost(rule.host, child(rp, 'host'));
      errs.push(...host.errs);
      wildcard = host.wildcard;
    }
    if (!wildcard || !opts.allowInvalidWildcardHostRule) errs.push(...ruleValueErrors(rule, rp));
  });
  (spec.tls ?? []).forEach((tls, i) => {
    const tp = index('spec.tls', i);
    (tls.hosts ?? []).forEach((host, j) => {
      const hp = index(child(tp, 'hosts'), j);
      const msgs = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      for (const m of msgs) errs.push(invalid(hp, host, m));
    });
    if (!opts.allowInvalidSecretName && tls.secretName) {
      for (const m of isDNS1123Subdomain(tls.secretName)) errs.push(invalid(child(tp, 'secretName'), tls.secretName, m));
    }
  });
  if (spec.ingressClassName !== undefined) {
    for (const m of isDNS1123Subdomain(spec.ingressClassName)) errs.push(invalid('spec.ingressClassName', spec.ingressClassName, m));
  }
  return errs;
}

/** Upstream's ValidateIngressCreate beyond the spec: the class annotation and field are not both set. */
export function validateIngressClassAnnotation(ing: Ingress): FieldErrorList {
  const value = ing.metadata.annotations?.[INGRESS_CLASS_ANNOTATION];
  if (value === undefined || ing.spec?.ingressClassName === undefined) return [];
  return [invalid(`annotations.${INGRESS_CLASS_ANNOTATION}`, value, 'can not be set when the class field is also set')];
}

/** The leniency upstream grants an update: invalid secret names or wildcard rules the old object had. */
export function updateOptions(old: Ingress): IngressValidationOptions {
  const tls = old.spec?.tls ?? [];
  const rules = old.spec?.rules ?? [];
  return {
    allowInvalidSecretName: tls.some((t) => !!t.secretName && isDNS1123Subdomain(t.secretName).length > 0),
    allowInvalidWildcardHostRule: rules.some((r, i) => (r.host ?? '').includes('*') && ruleValueErrors(r, index('spec.rules', i)).length > 0),
  };
}

/** Upstream's ValidateIngressStatusUpdate: load-balancer addresses are IPs and host names. */
export function validateIngressStatus(lb: IngressLoadBalancerStatus | undefined): FieldErrorList {
  const errs: FieldErrorList = [];
  (lb?.ingress ?? []).forEach((ing, i) => {
    const p = index('status.loadBalancer.ingress', i);
    if (ing.ip && isIP(ing.ip) === 0) errs.push(invalid(child(p, 'ip'), ing.ip, 'must be a valid IP address'));
    if (ing.hostname) {
      for (const m of isDNS1123Subdomain(ing.hostname)) errs.push(invalid(child(p, 'hostname'), ing.hostname, m));
      if (isIP(ing.hostname) !== 0) errs.push(invalid(child(p, 'hostname'), ing.hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** Upstream's IsDomainPrefixedPath (an IngressClass controller such as `example.com/ingress`). */
export function validateDomainPrefixedPath(value: string, path: string): FieldErrorList {
  if (value === '') return [required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((m) => invalid(path, host, m));
  if (!httpPathRe.test(rest)) errs.push(invalid(path, rest, regexError('must be a valid path', HTTP_PATH_FMT)));
  return errs;
}

function validateParameters(params: IngressClassParameters | undefined, path: string): FieldErrorList {
  if (!params) return [];
  const errs = validateTypedReference(params, path);
  if (params.scope === undefined) return [...errs, required(child(path, 'scope'))];
  if (!PARAMETER_SCOPES.includes(params.scope)) return [...errs, notSupported(child(path, 'scope'), params.scope, PARAMETER_SCOPES)];
  if (params.scope === 'Namespace') {
    if (params.namespace === undefined) errs.push(required(child(path, 'namespace'), "`parameters.scope` is set to 'Namespace'"));
    else for (const m of isDNS1123Label(params.namespace)) errs.push(invalid(child(path, 'namespace'), params.namespace, m));
  }
  if (params.scope === 'Cluster' && params.namespace !== undefined) errs.push(forbidden(child(path, 'namespace'), "`parameters.scope` is set to 'Cluster'"));
  return errs;
}

/** Upstream's validateIngressClassSpec. */
export function validateIngressClassSpec(ic: IngressClass): FieldErrorList {
  const controller = ic.spec?.controller ?? '';
  const errs: FieldErrorList = [];
  if (controller.length > MAX_CONTROLLER_LENGTH) errs.push(tooLong('spec.controller', MAX_CONTROLLER_LENGTH));
  errs.push(...validateDomainPrefixedPath(controller, 'spec.controller'));
  errs.push(...validateParameters(ic.spec?.parameters, 'spec.parameters'));
  return errs;
}
