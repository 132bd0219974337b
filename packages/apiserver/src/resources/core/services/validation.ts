import {
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  isDNS1123Label,
  isDNS1123Subdomain,
  notSupported,
  regexError,
  required,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import { parseIPv4 } from './ip-range.js';
import { ipFamily, validateNonSpecialIP } from '../endpoints/special-ip.js';
import { SERVICE_TYPES, type Service, type ServicePort } from './types.js';

const DNS1035_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035Re = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const IANA_SVC_NAME_RE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** RFC 1035 label (service names): starts with a letter; a generateName prefix may end in '-'. */
export function isDNS1035Label(value: string, prefix = false): string[] {
  const errs: string[] = [];
  const v = prefix && value.endsWith('-') ? `${value.slice(0, -1)}a` : value;
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!dns1035Re.test(v)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_FMT,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

export const serviceMetaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: isDNS1035Label, coreFinalizers: true };

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** A port name as upstream's IANA_SVC_NAME: at most 15 characters, a letter, no '--'. */
function ianaServiceNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!IANA_SVC_NAME_RE.test(name)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (name.includes('--')) errs.push("must not contain consecutive hyphens");
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  return errs;
}

function validatePortNumber(field: string, port: unknown): FieldErrorList {
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    return [invalid(field, port, 'must be between 1 and 65535, inclusive')];
  }
  return [];
}

function validatePorts(svc: Service): FieldErrorList {
  const spec = svc.spec ?? {};
  const ports = spec.ports ?? [];
  const errs: FieldErrorList = [];
  const headless = spec.clusterIP === 'None';
  if (ports.length === 0 && !headless && spec.type !== 'ExternalName') errs.push(required('spec.ports'));
  const names = new Set<string>();
  const keys = new Set<string>();
  const nodePorts = new Set<string>();
  ports.forEach((p: ServicePort, i) => {
    const path = index('spec.ports', i);
    const name = p.name ?? '';
    if (ports.length > 1 && name === '') errs.push(required(child(path, 'name')));
    if (name !== '') {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(child(path, 'name'), name, msg));
      if (names.has(name)) errs.push(duplicate(child(path, 'name'), name));
      names.add(name);
    }
    errs.push(...validatePortNumber(child(path, 'port'), p.port));
    const protocol = p.protocol ?? '';
    if (protocol === '') errs.push(required(child(path, 'protocol')));
    else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(child(path, 'protocol'), protocol, PROTOCOLS));
    const key = `${p.port}/${protocol}`;
    if (keys.has(key)) errs.push(duplicate(path, { port: p.port, protocol }));
    keys.add(key);
    const target = p.targetPort;
    if (typeof target === 'number') errs.push(...validatePortNumber(child(path, 'targetPort'), target));
    else if (typeof target === 'string') {
      for (const msg of ianaServiceNameErrors(target)) errs.push(invalid(child(path, 'targetPort'), target, msg));
    }
    if (p.nodePort !== undefined && p.nodePort !== 0) {
      if (spec.type === 'ClusterIP' || spec.type === 'ExternalName') {
        errs.push(forbidden(child(path, 'nodePort'), `may not be used when \`type\` is '${spec.type}'`));
      } else {
        errs.push(...validatePortNumber(child(path, 'nodePort'), p.nodePort));
        const np = `${p.nodePort}/${protocol}`;
        if (nodePorts.has(np)) errs.push(duplicate(child(path, 'nodePort'), p.nodePort));
        nodePorts.add(np);
      }
    }
  });
  return errs;
}

function validateClusterIPs(svc: Service): FieldErrorList {
  const spec = svc.spec ?? {};
  const errs: FieldErrorList = [];
  const ip = spec.clusterIP ?? '';
  const ips = spec.clusterIPs ?? [];
  if (spec.type === 'ExternalName') {
    if (ip !== '' || ips.length > 0) errs.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    return errs;
  }
  if (ips.length > 0 && ips[0] !== ip) errs.push(invalid(index('spec.clusterIPs', 0), ips[0], 'must match `spec.clusterIP`'));
  if (ips.length > 1) errs.push(invalid('spec.clusterIPs', ips, 'this cluster is not configured for dual-stack services'));
  if (ip !== '' && ip !== 'None' && parseIPv4(ip) === undefined) {
    const detail = ip.includes(':')
      ? 'IPv6 is not configured on this cluster'
      : 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
    errs.push(invalid(index('spec.clusterIPs', 0), ip, detail));
  }
  if (ip === 'None' && (spec.type === 'NodePort' || spec.type === 'LoadBalancer')) {
    errs.push(invalid(index('spec.clusterIPs', 0), ip, `may not be set to 'None' for ${spec.type} services`));
  }
  const families = spec.ipFamilies ?? [];
  families.forEach((f, i) => {
    if (f === 'IPv6') errs.push(invalid(index('spec.ipFamilies', i), f, 'not configured on this cluster'));
    else if (f !== 'IPv4') errs.push(notSupported(index('spec.ipFamilies', i), f, ['IPv4', 'IPv6']));
  });
  if (families.length > 1) errs.push(invalid('spec.ipFamilies', families, 'this cluster is not configured for dual-stack services'));
  const policy = spec.ipFamilyPolicy;
  if (policy !== undefined && !['SingleStack', 'PreferDualStack', 'RequireDualStack'].includes(policy)) {
    errs.push(notSupported('spec.ipFamilyPolicy', policy, ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
  } else if (policy === 'RequireDualStack') {
    errs.push(invalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
  }
  return errs;
}

function validateSpec(svc: Service): FieldErrorList {
  const spec = svc.spec ?? {};
  const errs: FieldErrorList = [];
  const type = spec.type ?? '';
  if (!(SERVICE_TYPES as readonly string[]).includes(type)) errs.push(notSupported('spec.type', type, SERVICE_TYPES));
  if (type === 'ExternalName') {
    const name = spec.externalName ?? '';
    if (name === '') errs.push(required('spec.externalName'));
    else for (const msg of isDNS1123Subdomain(name.replace(/\.$/, ''))) errs.push(invalid('spec.externalName', name, msg));
  }
  const affinity = spec.sessionAffinity ?? '';
  if (!['ClientIP', 'None'].includes(affinity)) errs.push(notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  const etp = spec.externalTrafficPolicy;
  if (etp !== undefined && etp !== '') {
    if (type !== 'NodePort' && type !== 'LoadBalancer') {
      errs.push(invalid('spec.externalTrafficPolicy', etp, 'may only be set when `type` is \'NodePort\' or \'LoadBalancer\''));
    } else if (!['Cluster', 'Local'].includes(etp)) errs.push(notSupported('spec.externalTrafficPolicy', etp, ['Cluster', 'Local']));
  }
  if (spec.healthCheckNodePort !== undefined && spec.healthCheckNodePort !== 0) {
    if (type !== 'LoadBalancer' || etp !== 'Local') {
      errs.push(invalid('spec.healthCheckNodePort', spec.healthCheckNodePort, 'may only be set when `type` is \'LoadBalancer\' and `externalTrafficPolicy` is \'Local\''));
    } else errs.push(...validatePortNumber('spec.healthCheckNodePort', spec.healthCheckNodePort));
  }
  const itp = spec.internalTrafficPolicy;
  if (itp !== undefined && !['Cluster', 'Local'].includes(itp)) errs.push(notSupported('spec.internalTrafficPolicy', itp, ['Cluster', 'Local']));
  (spec.externalIPs ?? []).forEach((ip, i) => {
    // As upstream: any valid IPv4 or IPv6 address, but not one of the special ranges (ValidateNonSpecialIP).
    const path = index('spec.externalIPs', i);
    if (ipFamily(ip) === 0) errs.push(invalid(path, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    else errs.push(...validateNonSpecialIP(ip, path));
  });
  for (const [k, v] of Object.entries(spec.selector ?? {})) {
    if (typeof v !== 'string') errs.push(invalid(`spec.selector[${k}]`, v, 'must be a string'));
  }
  return [...errs, ...validatePorts(svc), ...validateClusterIPs(svc)];
}

/** Validation of a Service to create (upstream's ValidateService, main rules). */
export function validateService(svc: Service): FieldErrorList {
  return [...validateObjectMeta(svc.metadata, serviceMetaOptions), ...validateSpec(svc)];
}

/** Validation of an update: the create rules plus the immutable cluster IP (unless to or from ExternalName). */
export function validateServiceUpdate(svc: Service, old: Service): FieldErrorList {
  const errs = [...validateObjectMetaUpdate(svc.metadata, old.metadata, serviceMetaOptions), ...validateSpec(svc)];
  const typeChangesExternal = svc.spec?.type === 'ExternalName' || old.spec?.type === 'ExternalName';
  const oldIP = old.spec?.clusterIP ?? '';
  const newIP = svc.spec?.clusterIP ?? '';
  if (!typeChangesExternal && oldIP !== '' && newIP !== oldIP) {
    errs.push(invalid(index('spec.clusterIPs', 0), newIP, 'may not change once set'));
  }
  return errs;
}
