import {
  child,
  duplicate,
  index,
  invalid,
  isQualifiedName,
  notSupported,
  required,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FieldErrorList,
  type KubeObject,
  type ObjectMetaOptions,
} from '@cluster/apimachinery';
import type { ResourceStrategy, SubresourceStrategy } from '../../../registry/strategy.js';
import { statusUpdate } from '../../../registry/status-update.js';
import { ageOf } from '../../../tables/human-duration.js';
import { ageColumn, nameColumn } from '../../../tables/columns.js';
import { parseIPv4 } from '../services/ip-range.js';

interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface Node extends KubeObject {
  spec?: {
    podCIDR?: string;
    podCIDRs?: string[];
    providerID?: string;
    unschedulable?: boolean;
    taints?: Taint[];
    [field: string]: unknown;
  };
  status?: {
    conditions?: Array<{ type: string; status: string }>;
    addresses?: Array<{ type: string; address: string }>;
    nodeInfo?: { kubeletVersion?: string; osImage?: string; kernelVersion?: string; containerRuntimeVersion?: string };
    [field: string]: unknown;
  };
}

const metaOptions: ObjectMetaOptions = { namespaced: false, nameValidator: 'subdomain', coreFinalizers: true };
const TAINT_EFFECTS = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'];
const ADDRESS_TYPES = ['ExternalDNS', 'ExternalIP', 'Hostname', 'InternalDNS', 'InternalIP'];

function isCIDR(text: string): boolean {
  const m = /^([^/]+)\/([0-9]{1,3})$/.exec(text);
  if (!m) return false;
  if (parseIPv4(m[1]!) !== undefined) return Number(m[2]) <= 32;
  return m[1]!.includes(':') && Number(m[2]) <= 128;
}

function validateSpec(node: Node): FieldErrorList {
  const errs: FieldErrorList = [];
  const spec = node.spec ?? {};
  const cidrs = spec.podCIDRs ?? [];
  cidrs.forEach((c, i) => {
    if (!isCIDR(c)) errs.push(invalid(index('spec.podCIDRs', i), c, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
  });
  if (cidrs.length > 2) errs.push(invalid('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'));
  if (spec.podCIDR && cidrs.length > 0 && cidrs[0] !== spec.podCIDR) errs.push(invalid('spec.podCIDRs', cidrs, 'the first entry must match spec.podCIDR'));
  const seen = new Set<string>();
  (spec.taints ?? []).forEach((t, i) => {
    const path = index('spec.taints', i);
    if (!t.key) errs.push(required(child(path, 'key')));
    else for (const msg of isQualifiedName(t.key)) errs.push(invalid(child(path, 'key'), t.key, msg));
    if (!t.effect) errs.push(required(child(path, 'effect')));
    else if (!TAINT_EFFECTS.includes(t.effect)) errs.push(notSupported(child(path, 'effect'), t.effect, TAINT_EFFECTS));
    const k = `${t.key}:${t.effect}`;
    if (seen.has(k)) errs.push(duplicate(path, `${t.key}:${t.effect}`));
    seen.add(k);
  });
  return errs;
}

function validateStatus(node: Node): FieldErrorList {
  const errs: FieldErrorList = [];
  (node.status?.addresses ?? []).forEach((a, i) => {
    const path = index('status.addresses', i);
    if (!ADDRESS_TYPES.includes(a.type)) errs.push(notSupported(child(path, 'type'), a.type, ADDRESS_TYPES));
    if (!a.address) errs.push(required(child(path, 'address')));
  });
  return errs;
}

const NODE_INFO_FIELDS = [
  'machineID',
  'systemUUID',
  'bootID',
  'kernelVersion',
  'osImage',
  'containerRuntimeVersion',
  'kubeletVersion',
  'kubeProxyVersion',
  'operatingSystem',
  'architecture',
] as const;

function defaultNode(node: Node): void {
  const spec = (node.spec ??= {});
  if (spec.podCIDR && !spec.podCIDRs?.length) spec.podCIDRs = [spec.podCIDR];
  const status = (node.status ??= {});
  if (status['capacity'] && !status['allocatable']) status['allocatable'] = status['capacity'];
  // Value fields upstream's JSON always shows (Go structs without omitempty), so the JSON form is
  // the one a Protobuf read of the same node gives.
  const endpoints = ((status['daemonEndpoints'] as Record<string, { Port?: number }> | undefined) ??= {});
  endpoints['kubeletEndpoint'] = { Port: endpoints['kubeletEndpoint']?.Port ?? 0 };
  status['daemonEndpoints'] = endpoints;
  const info = (status.nodeInfo ??= {}) as Record<string, string>;
  for (const f of NODE_INFO_FIELDS) info[f] ??= '';
}

const statusStrategy: SubresourceStrategy<Node> = {
  merge: (requested, current) => {
    const next = statusUpdate(requested, current);
    defaultNode(next);
    return next;
  },
  validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata, metaOptions), ...validateStatus(obj)],
};

/** STATUS as upstream's printer: the Ready condition, then SchedulingDisabled when cordoned. */
export function nodeStatusText(node: Node): string {
  const ready = (node.status?.conditions ?? []).find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) parts.push('SchedulingDisabled');
  return parts.join(',');
}

/** ROLES from the well-known node-role labels, as kubectl users know them. */
export function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function address(node: Node, type: string): string {
  return (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? '<none>';
}

const col = (name: string, description: string, priority = 0) => ({ name, type: 'string' as const, format: '', description, priority });

/** Node behaviour (core/v1, cluster-scoped): status through its subresource only after create. */
export const nodeStrategy = {
  namespaceScoped: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate: (node: Node) => defaultNode(node),
  prepareForUpdate(node: Node, old: Node) {
    node.status = old.status;
    defaultNode(node);
  },
  validate: (node: Node) => [...validateObjectMeta(node.metadata, metaOptions), ...validateSpec(node), ...validateStatus(node)],
  validateUpdate: (node: Node, old: Node) => [...validateObjectMetaUpdate(node.metadata, old.metadata, metaOptions), ...validateSpec(node)],
  selectableFields: (node: Node) => ({ 'spec.unschedulable': String(node.spec?.unschedulable ?? false) }),
  subresources: { status: statusStrategy },
  table: {
    columns: [
      nameColumn,
      col('Status', 'The status of the node.'),
      col('Roles', 'The roles of the node.'),
      ageColumn,
      col('Version', 'Kubelet version reported by the node.'),
      col('Internal-IP', 'The node internal IP.', 1),
      col('External-IP', 'The node external IP.', 1),
      col('OS-Image', 'OS image reported by the node.', 1),
      col('Kernel-Version', 'Kernel version reported by the node.', 1),
      col('Container-Runtime', 'Container runtime and version reported by the node.', 1),
    ],
    cells: (node: Node) => {
      const info = node.status?.nodeInfo ?? {};
      return [
        node.metadata.name ?? '',
        nodeStatusText(node),
        nodeRoles(node),
        ageOf(node.metadata.creationTimestamp, new Date()),
        info.kubeletVersion ?? '',
        address(node, 'InternalIP'),
        address(node, 'ExternalIP'),
        info.osImage || '<unknown>',
        info.kernelVersion || '<unknown>',
        info.containerRuntimeVersion || '<unknown>',
      ];
    },
  },
} satisfies ResourceStrategy<Node>;
