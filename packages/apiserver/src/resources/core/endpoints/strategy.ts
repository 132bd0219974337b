import {
  child,
  duplicate,
  index,
  invalid,
  isDNS1123Label,
  notSupported,
  required,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type KubeObject,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../../registry/strategy.js';
import { ageOf } from '../../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { ipFamily, validateNonSpecialIP } from './special-ip.js';

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: Record<string, unknown>;
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}

const metaOptions: ObjectMetaOptions = { namespaced: true, nameValidator: 'subdomain', coreFinalizers: true };
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validateAddress(a: EndpointAddress, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (!a.ip) errs.push(required(child(path, 'ip')));
  else if (ipFamily(a.ip) === 0) errs.push(invalid(child(path, 'ip'), a.ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  if (a.hostname) for (const msg of isDNS1123Label(a.hostname)) errs.push(invalid(child(path, 'hostname'), a.hostname, msg));
  // As upstream: an address that is otherwise valid must not be one only this host could reach.
  if (errs.length === 0) errs.push(...validateNonSpecialIP(a.ip, child(path, 'ip')));
  return errs;
}

function validateSubsets(ep: Endpoints): FieldErrorList {
  const errs: FieldErrorList = [];
  (ep.subsets ?? []).forEach((s, i) => {
    const path = index('subsets', i);
    if ((s.addresses ?? []).length === 0 && (s.notReadyAddresses ?? []).length === 0) {
      errs.push(required(path, 'must specify `addresses` or `notReadyAddresses`'));
    }
    (s.addresses ?? []).forEach((a, j) => errs.push(...validateAddress(a, index(child(path, 'addresses'), j))));
    (s.notReadyAddresses ?? []).forEach((a, j) => errs.push(...validateAddress(a, index(child(path, 'notReadyAddresses'), j))));
    const ports = s.ports ?? [];
    const names = new Set<string>();
    ports.forEach((p, j) => {
      const pp = index(child(path, 'ports'), j);
      const name = p.name ?? '';
      if (ports.length > 1 && name === '') errs.push(required(child(pp, 'name')));
      if (name !== '') {
        for (const msg of isDNS1123Label(name)) errs.push(invalid(child(pp, 'name'), name, msg));
        if (names.has(name)) errs.push(duplicate(child(pp, 'name'), name));
        names.add(name);
      }
      if (typeof p.port !== 'number' || p.port < 1 || p.port > 65535) errs.push(invalid(child(pp, 'port'), p.port, 'must be between 1 and 65535, inclusive'));
      if (!p.protocol) errs.push(required(child(pp, 'protocol')));
      else if (!PROTOCOLS.includes(p.protocol)) errs.push(notSupported(child(pp, 'protocol'), p.protocol, PROTOCOLS));
    });
  });
  return errs;
}

function defaultEndpoints(ep: Endpoints): void {
  for (const s of ep.subsets ?? []) for (const p of s.ports ?? []) p.protocol ||= 'TCP';
}

const MAX_SHOWN = 3;

/** `ip:port` pairs as upstream's printer shows them: the first three, then "+ N more...". */
export function formatEndpoints(ep: Endpoints): string {
  const all: string[] = [];
  for (const s of ep.subsets ?? []) {
    for (const a of s.addresses ?? []) {
      if ((s.ports ?? []).length === 0) all.push(a.ip);
      for (const p of s.ports ?? []) all.push(`${a.ip}:${p.port}`);
    }
  }
  if (all.length === 0) return '<none>';
  const shown = all.slice(0, MAX_SHOWN).join(',');
  return all.length > MAX_SHOWN ? `${shown} + ${all.length - MAX_SHOWN} more...` : shown;
}

/** Endpoints behaviour (core/v1): validated addresses and ports, subsets replaced as a whole. */
export const endpointsStrategy = {
  namespaceScoped: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate: (ep: Endpoints) => defaultEndpoints(ep),
  prepareForUpdate: (ep: Endpoints) => defaultEndpoints(ep),
  validate: (ep: Endpoints) => [...validateObjectMeta(ep.metadata, metaOptions), ...validateSubsets(ep)],
  validateUpdate: (ep: Endpoints, old: Endpoints) => [...validateObjectMetaUpdate(ep.metadata, old.metadata, metaOptions), ...validateSubsets(ep)],
  table: {
    columns: [
      nameColumn,
      { name: 'Endpoints', type: 'string', format: '', description: 'Addresses and ports of the endpoints.', priority: 0 },
      ageColumn,
    ],
    cells: (ep: Endpoints) => [ep.metadata.name ?? '', formatEndpoints(ep), ageOf(ep.metadata.creationTimestamp, new Date())],
  },
} satisfies ResourceStrategy<Endpoints>;
