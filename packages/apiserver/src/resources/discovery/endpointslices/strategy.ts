import { isDeepStrictEqual } from 'node:util';
import {
  child,
  duplicate,
  index,
  invalid,
  isDNS1123Label,
  isDNS1123Subdomain,
  notSupported,
  required,
  tooMany,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type KubeObject,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageOf } from '../../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ipFamily, validateNonSpecialIP } from '../../core/endpoints/special-ip.js';

export interface EndpointSlice extends KubeObject {
  addressType?: string;
  endpoints?: Array<{
    addresses?: string[];
    conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean };
    hostname?: string;
    nodeName?: string;
    zone?: string;
    deprecatedTopology?: Record<string, string>;
  }>;
  ports?: Array<{ name?: string; protocol?: string; port?: number; appProtocol?: string }>;
}

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain' };
const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_ENDPOINTS = 1000;
const MAX_PORTS = 100;
const MAX_ADDRESSES = 100;

function validateAddress(type: string, address: string, path: string): FieldErrorList {
  if (type === 'IPv4') return ipFamily(address) === 4 ? validateNonSpecialIP(address, path) : [invalid(path, address, 'must be a valid IPv4 address')];
  if (type === 'IPv6') return ipFamily(address) === 6 ? validateNonSpecialIP(address, path) : [invalid(path, address, 'must be a valid IPv6 address')];
  if (type === 'FQDN') return isDNS1123Subdomain(address).map((m) => invalid(path, address, m));
  return [];
}

function validateSlice(es: EndpointSlice): FieldErrorList {
  const errs: FieldErrorList = [];
  const type = es.addressType ?? '';
  if (type === '') errs.push(required('addressType'));
  else if (!ADDRESS_TYPES.includes(type)) errs.push(notSupported('addressType', type, ADDRESS_TYPES));
  const eps = es.endpoints ?? [];
  if (eps.length > MAX_ENDPOINTS) errs.push(tooMany('endpoints', eps.length, MAX_ENDPOINTS));
  eps.forEach((ep, i) => {
    const path = index('endpoints', i);
    const addrs = ep.addresses ?? [];
    if (addrs.length === 0) errs.push(required(child(path, 'addresses'), 'must contain at least 1 address'));
    if (addrs.length > MAX_ADDRESSES) errs.push(tooMany(child(path, 'addresses'), addrs.length, MAX_ADDRESSES));
    addrs.forEach((a, j) => errs.push(...validateAddress(type, a, index(child(path, 'addresses'), j))));
    if (ep.hostname) for (const m of isDNS1123Label(ep.hostname)) errs.push(invalid(child(path, 'hostname'), ep.hostname, m));
  });
  const ports = es.ports ?? [];
  if (ports.length > MAX_PORTS) errs.push(tooMany('ports', ports.length, MAX_PORTS));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const path = index('ports', i);
    const name = p.name ?? '';
    if (name !== '') for (const m of isDNS1123Label(name)) errs.push(invalid(child(path, 'name'), name, m));
    if (names.has(name)) errs.push(duplicate(child(path, 'name'), name));
    names.add(name);
    if (p.protocol !== undefined && !PROTOCOLS.includes(p.protocol)) errs.push(notSupported(child(path, 'protocol'), p.protocol, PROTOCOLS));
    if (p.port !== undefined && (p.port < 0 || p.port > 65535)) errs.push(invalid(child(path, 'port'), p.port, 'must be between 0 and 65535, inclusive'));
  });
  return errs;
}

export function defaultSlice(es: EndpointSlice): void {
  for (const p of es.ports ?? []) {
    p.protocol ??= 'TCP';
    p.name ??= '';
  }
}

function formatPorts(es: EndpointSlice): string {
  const ports = (es.ports ?? []).map((p) => String(p.port ?? ''));
  return ports.length ? ports.join(',') : '<unset>';
}

function formatEndpoints(es: EndpointSlice): string {
  const all = (es.endpoints ?? []).flatMap((e) => e.addresses ?? []);
  if (all.length === 0) return '<unset>';
  return all.length > 3 ? `${all.slice(0, 3).join(',')} + ${all.length - 3} more...` : all.join(',');
}

const col = (name: string, description: string) => ({ name, type: 'string' as const, format: '', description, priority: 0 });

/**
 * Upstream's dropTopologyOnV1: deprecatedTopology is read-only at v1 (only discovery/v1beta1's
 * `topology` writes it); a v1 update that leaves the endpoints as they were keeps it. Mutates es.
 */
export function dropDeprecatedTopology(es: EndpointSlice, old?: EndpointSlice): void {
  if (old && isDeepStrictEqual(old.endpoints, es.endpoints)) return;
  for (const e of es.endpoints ?? []) delete e.deprecatedTopology;
}

/** EndpointSlice behaviour (discovery/v1): validated addresses per addressType, which is immutable. */
export const endpointSliceStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate: (es: EndpointSlice) => {
    defaultSlice(es);
    dropDeprecatedTopology(es);
  },
  prepareForUpdate: (es: EndpointSlice, old: EndpointSlice) => {
    defaultSlice(es);
    dropDeprecatedTopology(es, old);
  },
  validate: (es: EndpointSlice) => [...validateObjectMeta(es.metadata, metaOptions), ...validateSlice(es)],
  validateUpdate: (es: EndpointSlice, old: EndpointSlice) => {
    const errs = [...validateObjectMetaUpdate(es.metadata, old.metadata, metaOptions), ...validateSlice(es)];
    if (es.addressType !== old.addressType) errs.push(invalid('addressType', es.addressType, 'field is immutable'));
    return errs;
  },
  table: {
    columns: [nameColumn, col('AddressType', 'Type of the addresses.'), col('Ports', 'Ports of the slice.'), col('Endpoints', 'Addresses of the endpoints.'), ageColumn],
    cells: (es: EndpointSlice) => [es.metadata.name ?? '', es.addressType ?? '', formatPorts(es), formatEndpoints(es), ageOf(es.metadata.creationTimestamp, new Date())],
  },
} satisfies ResourceStrategy<EndpointSlice>;
